/**
 * Where captured outputs live. Small ones sit in the run's status, where every reader finds
 * them; large ones would push the DAGRun towards the etcd object limit (a 1,000-step run with a
 * few big outputs would not fit), so the status only points at them: the value is the
 * attempt's stdout, trimmed, which the log store holds already. Pure.
 */
import type { RunNode } from '../../../core/resources/schemas.ts';

/** Largest output kept in the status itself. */
export const INLINE_OUTPUT_BYTES = 16 * 1024;

/**
 * Linux refuses to start a process with one environment string longer than 128 KiB
 * (MAX_ARG_STRLEN), so larger outputs cannot reach a step as a variable.
 */
export const MAX_ENV_VALUE_BYTES = 128 * 1024 - 1;

export type OutputFields = Pick<RunNode, 'outputs' | 'outputRefs' | 'stepOutputs'>;

/** The node's output fields after `name` captured `value` in `attempt`. */
export function keepOutput(
  node: OutputFields,
  name: string | undefined,
  value: string | undefined,
  attempt: number,
): OutputFields {
  if (name === undefined || value === undefined) return pick(node);
  const { [name]: _old, ...otherOutputs } = node.outputs ?? {};
  const { [name]: _oldRef, ...otherRefs } = node.outputRefs ?? {};
  const bytes = Buffer.byteLength(value);
  if (bytes <= INLINE_OUTPUT_BYTES) return pick({ outputs: { ...otherOutputs, [name]: value }, outputRefs: otherRefs });
  return pick({ outputs: otherOutputs, outputRefs: { ...otherRefs, [name]: { attempt, bytes } } });
}

function pick(node: OutputFields): OutputFields {
  return {
    ...(node.outputs === undefined || Object.keys(node.outputs).length === 0 ? {} : { outputs: node.outputs }),
    ...(node.outputRefs === undefined || Object.keys(node.outputRefs).length === 0
      ? {}
      : { outputRefs: node.outputRefs }),
  };
}

/** What a captured output is, given the attempt's archived stdout. */
export function outputFromStdout(stdout: string): string {
  return stdout.trim();
}

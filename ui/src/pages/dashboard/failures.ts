/**
 * Where a failed run's failure is: the first step that failed (in the run's order), else a
 * handler that failed, and the link one click away: that step's stderr, or the run itself
 * when no step failed (a precondition, a stop, a lost Pod).
 */
import { links } from '../../lib/links.ts';

/** The step status integer of a failed step (api-v2 "Step status values"). */
const STEP_FAILED = 2;

interface NodeLike {
  readonly step: { readonly name: string };
  readonly status: number;
  readonly error: string;
}

export interface RunLike {
  readonly name: string;
  readonly dagRunId: string;
  readonly nodes: readonly NodeLike[];
  readonly onFailure?: NodeLike | null;
  readonly onExit?: NodeLike | null;
  readonly onSuccess?: NodeLike | null;
  readonly onCancel?: NodeLike | null;
}

export interface FailedStep {
  readonly step: string;
  readonly error: string;
}

export function failedStep(run: RunLike): FailedStep | undefined {
  const handlers = [run.onFailure, run.onExit, run.onSuccess, run.onCancel].filter(
    (n) => n !== undefined && n !== null,
  );
  const node = [...run.nodes, ...handlers].find((n) => n.status === STEP_FAILED);
  return node === undefined ? undefined : { step: node.step.name, error: node.error };
}

/** The failed step's stderr when one failed, else the run's page. */
export function failureHref(
  run: { readonly name: string; readonly dagRunId: string },
  failed: FailedStep | undefined,
): string {
  const page = links.run(run.name, run.dagRunId);
  return failed === undefined ? page : links.stepLog(page, failed.step, 'stderr');
}

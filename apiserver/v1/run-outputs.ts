/**
 * A run's outputs as Dagu 2.x's `GET /api/v1/dag-runs/{name}/{dagRunId}/outputs` answers them
 * (v2.15.1 `internal/runtime/agent/agent.go` collectOutputs): for each step in run order, the
 * values it picked (object-form `output:`, `stdout: {outputs}`), then its captured `output:`
 * variable; a later value of a name wins. Declared outputs (`outputs:`) are not run outputs in
 * Dagu, so a record's `stepOutputs` count only for a step that picks and declares nothing (the
 * record keeps the declared values when a step has both, see the semantics note). Pure.
 */
import { HANDLER_EVENTS, type Dag, type Step } from '../../core/dag/index.ts';
import type { DagRunStatus, RunNode } from '../../core/resources/schemas.ts';
import { handlerKey } from '../views/runs.ts';

/** Each record of the status with the step it records, steps first, then handlers. */
function recordsWithSteps(status: DagRunStatus, dag: Dag | undefined): [RunNode, Step | undefined][] {
  const steps = new Map((dag?.steps ?? []).map((step) => [step.name, step]));
  const nodes = (status.nodes ?? []).map((node): [RunNode, Step | undefined] => [node, steps.get(node.name)]);
  const handlers = HANDLER_EVENTS.flatMap((event): [RunNode, Step | undefined][] => {
    const node = status[handlerKey(event)];
    return node === undefined ? [] : [[node, dag?.handlerOn[event]]];
  });
  return [...nodes, ...handlers];
}

/** The values a record's step picked, if it is a step that picks outputs and declares none. */
function pickedValues(node: RunNode, step: Step | undefined): Readonly<Record<string, string>> {
  if (step?.pickedOutputs === undefined || step.declaredOutputs !== undefined) return {};
  return node.stepOutputs ?? {};
}

/** The run's outputs: picked values and captured variables, merged in run order. */
export function runOutputs(status: DagRunStatus | undefined, dag: Dag | undefined): Record<string, string> {
  const outputs: Record<string, string> = {};
  for (const [node, step] of recordsWithSteps(status ?? {}, dag))
    Object.assign(outputs, pickedValues(node, step), node.outputs ?? {});
  return outputs;
}

/**
 * Readiness and propagation over a run's steps: when a step may start, and what it becomes
 * when an upstream step failed, was canceled or skipped (behaviour-notes 3). Pure.
 */
import type { Step } from '../../../core/dag/index.ts';
import { StepStatus, stepDone } from '../../../core/resources/status.ts';
import type { RunNode } from '../../../core/resources/schemas.ts';

export type Readiness =
  | { readonly kind: 'wait' }
  | { readonly kind: 'ready' }
  | {
      readonly kind: 'blocked';
      readonly status: typeof StepStatus.Canceled | typeof StepStatus.Skipped;
      readonly error: string;
    };

export function readiness(
  step: Step,
  nodes: ReadonlyMap<string, RunNode>,
  steps: ReadonlyMap<string, Step>,
): Readiness {
  for (const dep of step.depends) {
    const node = nodes.get(dep);
    if (node === undefined || !stepDone(node.status)) return { kind: 'wait' };
  }
  for (const dep of step.depends) {
    const node = nodes.get(dep) as RunNode;
    if (node.status === StepStatus.Failed && node.continued !== true)
      return { kind: 'blocked', status: StepStatus.Canceled, error: `upstream failed: ${dep}` };
    if (node.status === StepStatus.Canceled)
      return { kind: 'blocked', status: StepStatus.Canceled, error: `upstream canceled: ${dep}` };
    if (node.status === StepStatus.Rejected)
      return { kind: 'blocked', status: StepStatus.Canceled, error: `upstream rejected: ${dep}` };
    if (node.status === StepStatus.Skipped && steps.get(dep)?.continueOn.skipped !== true)
      return { kind: 'blocked', status: StepStatus.Skipped, error: `upstream skipped: ${dep}` };
  }
  return { kind: 'ready' };
}

/** Whether a record can block a step that depends on it: only then is there anything to propagate. */
function mayBlock(node: RunNode): boolean {
  return (
    (node.status === StepStatus.Failed && node.continued !== true) ||
    node.status === StepStatus.Canceled ||
    node.status === StepStatus.Skipped ||
    node.status === StepStatus.Rejected
  );
}

/**
 * Applies blocked verdicts until nothing changes, so that a failure cascades through every
 * transitive dependent in one pass. Returns the names of the steps it changed.
 */
export function propagate(
  steps: readonly Step[],
  nodes: Map<string, RunNode>,
  now: string,
  byName: ReadonlyMap<string, Step>,
): string[] {
  const changed: string[] = [];
  // The common case, every step so far succeeded or still to come: one look at each record.
  let blocking = false;
  for (const node of nodes.values()) if (mayBlock(node)) blocking = true;
  if (!blocking) return changed;
  for (let again = true; again;) {
    again = false;
    for (const step of steps) {
      const node = nodes.get(step.name);
      if (node?.status !== StepStatus.NotStarted) continue;
      const verdict = readiness(step, nodes, byName);
      if (verdict.kind !== 'blocked') continue;
      // Unmet preconditions and skipped upstreams carry no error text (behaviour-notes 3).
      const error = verdict.status === StepStatus.Skipped ? {} : { error: verdict.error };
      nodes.set(step.name, {
        ...node,
        status: verdict.status,
        statusLabel: verdict.status === StepStatus.Skipped ? 'skipped' : 'canceled',
        finishedAt: now,
        ...error,
      });
      changed.push(step.name);
      again = true;
    }
  }
  return changed;
}

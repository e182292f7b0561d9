/**
 * Where an approval step's push-back may send the run: `rewindTo` names the step itself or one
 * of its upstream steps, by name or id (Dagu's rule, v2.15.1 `validateApprovalRewindTargets`, with
 * its wording). Pure.
 */
import { childPath, issue, type DagIssue } from './issues.ts';
import type { Step } from './model.ts';

interface Draft {
  readonly step: Step;
  readonly path: string;
}

/** The step a push-back of `step` re-runs from: its rewindTo by name or id, else itself. */
export function rewindTarget(step: Step, steps: readonly Step[]): Step | undefined {
  const target = step.approval?.rewindTo;
  if (target === undefined) return step;
  return steps.find((s) => s.name === target) ?? steps.find((s) => s.id === target);
}

/** Whether `target` is `from` or upstream of it, through depends (names at this point). */
function upstreamOrSelf(from: Step, target: string, byName: ReadonlyMap<string, Step>): boolean {
  const seen = new Set<string>();
  const queue = [from.name];
  while (queue.length > 0) {
    const name = queue.pop() as string;
    if (name === target) return true;
    if (seen.has(name)) continue;
    seen.add(name);
    queue.push(...(byName.get(name)?.depends ?? []));
  }
  return false;
}

export function approvalIssues(drafts: readonly Draft[]): DagIssue[] {
  const steps = drafts.map((d) => d.step);
  const byName = new Map(steps.map((s) => [s.name, s]));
  const errors: DagIssue[] = [];
  for (const { step, path } of drafts) {
    const written = step.approval?.rewindTo;
    if (written === undefined) continue;
    const at = childPath(childPath(path, 'approval'), 'rewind_to');
    const target = rewindTarget(step, steps);
    if (target === undefined)
      errors.push(issue(at, `step ${step.name} approval.rewind_to references non-existent step ${written}`));
    else if (!upstreamOrSelf(step, target.name, byName))
      errors.push(
        issue(at, `step ${step.name} approval.rewind_to must reference the step itself or an upstream dependency`),
      );
  }
  return errors;
}

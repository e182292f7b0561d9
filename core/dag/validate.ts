/**
 * Rules that need the whole normalised DAG: names, ids, dependencies, cycles and the
 * executor rules of each step. Pure: the same checks serve the CLI, the API and the operator.
 */
import { approvalIssues } from './approval.ts';
import { checkExecutor } from './executors.ts';
import { childPath, issue, type DagIssue } from './issues.ts';
import type { Dag } from './model.ts';
import type { StepDraft } from './step.ts';
import { DAG_NAME_PATTERN } from './dag-name.ts';
import { MAX_STEP_NAME_LENGTH } from './steps.ts';

export const MAX_DAG_NAME_LENGTH = 40;
export { DAG_NAME_PATTERN } from './dag-name.ts';
export const STEP_ID_PATTERN = /^[a-zA-Z][a-zA-Z0-9_-]*$/;
/** Words that `${id.…}` references would make ambiguous. */
export const RESERVED_STEP_IDS = ['env', 'params', 'args', 'stdout', 'stderr', 'output', 'outputs'];

/** Checks a DAG name; returns the problem, or undefined when it is valid. */
export function dagNameProblem(name: string): string | undefined {
  if (name === '') return 'is required (set name, or load the file under a file name)';
  if (name.length > MAX_DAG_NAME_LENGTH)
    return `"${name}" is ${name.length} characters long; at most ${MAX_DAG_NAME_LENGTH} are allowed`;
  if (!DAG_NAME_PATTERN.test(name)) return `"${name}" may only contain letters, digits, "_", "." and "-"`;
  return undefined;
}

export function validateSteps(drafts: readonly StepDraft[], dag: Pick<Dag, 'ssh'>): DagIssue[] {
  const errors: DagIssue[] = [];
  const byName = new Map<string, StepDraft>();
  const byId = new Map<string, StepDraft>();
  for (const draft of drafts) {
    const { name, id } = draft.step;
    if (name.length > MAX_STEP_NAME_LENGTH)
      errors.push(
        issue(
          childPath(draft.path, 'name'),
          `"${name}" is ${name.length} characters long; at most ${MAX_STEP_NAME_LENGTH} are allowed`,
        ),
      );
    const twin = byName.get(name);
    if (twin !== undefined)
      errors.push(
        issue(childPath(draft.path, 'name'), `"${name}" is also the name of ${twin.path}; step names must be unique`),
      );
    else byName.set(name, draft);
    if (id === undefined) continue;
    const idTwin = byId.get(id);
    if (!STEP_ID_PATTERN.test(id))
      errors.push(
        issue(
          childPath(draft.path, 'id'),
          `"${id}" must start with a letter and hold only letters, digits, "_" and "-"`,
        ),
      );
    else if (RESERVED_STEP_IDS.includes(id.toLowerCase()))
      errors.push(issue(childPath(draft.path, 'id'), `"${id}" is reserved`));
    else if (idTwin !== undefined)
      errors.push(
        issue(childPath(draft.path, 'id'), `"${id}" is also the id of ${idTwin.path}; step ids must be unique`),
      );
    byId.set(id, draft);
  }
  for (const draft of drafts) {
    const { id } = draft.step;
    const owner = id === undefined ? undefined : byName.get(id);
    if (owner !== undefined && owner !== draft)
      errors.push(issue(childPath(draft.path, 'id'), `"${id ?? ''}" is the name of another step (${owner.path})`));
  }
  errors.push(...checkDependencies(drafts, byName));
  errors.push(...approvalIssues(drafts));
  for (const draft of drafts) errors.push(...checkStep(draft, dag));
  return errors;
}

function checkDependencies(drafts: readonly StepDraft[], byName: ReadonlyMap<string, StepDraft>): DagIssue[] {
  const errors: DagIssue[] = [];
  for (const draft of drafts) {
    for (const dep of draft.step.depends) {
      if (dep === draft.step.name)
        errors.push(issue(childPath(draft.path, 'depends'), `a step cannot depend on itself ("${dep}")`));
      else if (!byName.has(dep)) errors.push(issue(childPath(draft.path, 'depends'), `unknown step "${dep}"`));
    }
  }
  const cycle = findCycle(drafts, byName);
  if (cycle !== undefined)
    errors.push(
      issue(
        childPath(byName.get(cycle[0] ?? '')?.path ?? 'steps', 'depends'),
        `dependency cycle: ${cycle.join(' -> ')}`,
      ),
    );
  return errors;
}

/** Depth-first search with colours, iterative so that a 1,000-step chain cannot overflow the stack. */
function findCycle(drafts: readonly StepDraft[], byName: ReadonlyMap<string, StepDraft>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  for (const root of drafts) {
    if (state.has(root.step.name)) continue;
    const stack: { name: string; next: number }[] = [{ name: root.step.name, next: 0 }];
    state.set(root.step.name, 'open');
    while (stack.length > 0) {
      const frame = stack[stack.length - 1] as { name: string; next: number };
      const deps = byName.get(frame.name)?.step.depends ?? [];
      const dep = deps[frame.next];
      frame.next += 1;
      if (dep === undefined) {
        state.set(frame.name, 'done');
        stack.pop();
      } else if (dep !== frame.name && byName.has(dep)) {
        if (state.get(dep) === 'open')
          return [...stack.slice(stack.findIndex((f) => f.name === dep)).map((f) => f.name), dep];
        if (!state.has(dep)) {
          state.set(dep, 'open');
          stack.push({ name: dep, next: 0 });
        }
      }
    }
  }
  return undefined;
}

function checkStep(draft: StepDraft, dag: Pick<Dag, 'ssh'>): DagIssue[] {
  const { step, path } = draft;
  const errors = checkExecutor(step, path, { dagSsh: dag.ssh !== undefined }, draft.configPath);
  if (step.parallel !== undefined && step.call === undefined)
    errors.push(issue(childPath(path, 'parallel'), 'needs call: parallel runs a DAG once per item'));
  return errors;
}

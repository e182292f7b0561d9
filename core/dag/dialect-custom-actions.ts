/**
 * Dagu 2.x custom actions: a name declared under the DAG's `actions:` (or, in the deprecated
 * form, a step type declared under `step_types:`) that a step names with `action:` (`type:`).
 * Dagu expands such a step into the template the declaration holds (v2.15.1 README_SCHEMA.md
 * "Reusable Custom Actions"); Kubedag runs only the built-in actions and refuses the step by
 * the feature's name, not as an unknown action. The declaration itself is refused at the root
 * (dialect-spellings.ts REFUSED). A name that is neither built in nor declared in the file stays
 * "unknown action" (dialect-actions.ts): Dagu too fails it unless its base config declares it.
 * So does one in a foreach body, which is loaded as a DAG of its own, without the declarations.
 */
import { refusal } from './dialect-refusal.ts';
import { childPath, type DagIssue } from './issues.ts';
import { isMapping, without } from './mapping.ts';

type Mapping = Record<string, unknown>;

const WHY = 'Kubedag runs only its built-in executors';

interface Declared {
  readonly actions: ReadonlySet<string>;
  readonly types: ReadonlySet<string>;
}

/** The document with each step that names a declared custom action (or step type) refused and emptied. */
export function withoutCustomActions(document: Mapping, errors: DagIssue[]): Mapping {
  const declared = { actions: names(document.actions), types: names(document.step_types) };
  if (declared.actions.size === 0 && declared.types.size === 0) return document;
  const out = { ...document };
  if (out.steps !== undefined) out.steps = inSteps(out.steps, 'steps', declared, errors);
  if (isMapping(out.handler_on))
    out.handler_on = Object.fromEntries(
      Object.entries(out.handler_on).map(([event, step]) => [
        event,
        inStep(step, childPath('handler_on', event), declared, errors),
      ]),
    );
  return out;
}

function names(value: unknown): ReadonlySet<string> {
  return new Set(isMapping(value) ? Object.keys(value) : []);
}

function inSteps(steps: unknown, path: string, declared: Declared, errors: DagIssue[]): unknown {
  if (Array.isArray(steps)) return steps.map((step: unknown, i) => inSteps(step, childPath(path, i), declared, errors));
  if (path === 'steps' && isMapping(steps))
    return Object.fromEntries(
      Object.entries(steps).map(([name, step]) => [name, inStep(step, childPath(path, name), declared, errors)]),
    );
  return inStep(steps, path, declared, errors);
}

function inStep(step: unknown, path: string, declared: Declared, errors: DagIssue[]): unknown {
  if (!isMapping(step)) return step;
  const action = typeof step.action === 'string' ? step.action.trim() : undefined;
  if (action !== undefined && declared.actions.has(action)) {
    errors.push(refusal(childPath(path, 'action'), `custom action ${action} (declared under actions)`, WHY));
    return without(step, 'action', 'with');
  }
  const type = typeof step.type === 'string' ? step.type.trim() : undefined;
  if (type !== undefined && declared.types.has(type)) {
    errors.push(refusal(childPath(path, 'type'), `custom step type ${type} (declared under step_types)`, WHY));
    return without(step, 'type', 'with', 'config');
  }
  return step;
}

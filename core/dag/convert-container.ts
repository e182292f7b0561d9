/**
 * The one rule where a DAG-level `container` makes the dialects part ways: Dagu 1.x runs every
 * docker step in it (its settings ignored), Dagu 2.x runs a docker step that has settings of its
 * own (a step `container:`, or `with:`) in that container instead (dialect-container.ts). So
 * such a step has no form in the other dialect; `kubedag convert` reports it as a loss and
 * writes the step without its settings (what 1.x does with them). Used both ways.
 */
import { canonicalExecutorType } from './executors.ts';
import { childPath, issue, type DagIssue } from './issues.ts';
import { isMapping, without } from './mapping.ts';

type Mapping = Record<string, unknown>;

const WHY: Readonly<Record<'1.x' | '2.x', string>> = {
  '1.x':
    'a docker step with settings of its own beside the DAG-level container has no Dagu 1.x form: 1.x runs every docker step in the DAG-level container',
  '2.x':
    'the settings of a docker step in the DAG-level container (Dagu 1.x ignores them) have no Dagu 2.x form: 2.x would run the step in a container of its own',
};

/**
 * `document` in the target's shape (keys `steps` and `handlerOn`/`handler_on`, steps with
 * `type` + `with`/`config`); the docker steps with settings lose them, each a loss.
 */
export function withoutOwnDockerSettings(document: Mapping, to: '1.x' | '2.x', losses: DagIssue[]): Mapping {
  if (document.container === undefined) return document;
  const handlersKey = to === '1.x' ? 'handlerOn' : 'handler_on';
  const out: Mapping = { ...document, steps: inSteps(document.steps, 'steps', to, losses) };
  const handlers = document[handlersKey];
  if (isMapping(handlers))
    out[handlersKey] = Object.fromEntries(
      Object.entries(handlers).map(([event, step]) => [event, inStep(step, childPath(handlersKey, event), to, losses)]),
    );
  return out;
}

function inSteps(steps: unknown, path: string, to: '1.x' | '2.x', losses: DagIssue[]): unknown {
  if (Array.isArray(steps)) return steps.map((step: unknown, i) => inSteps(step, childPath(path, i), to, losses));
  if (path === 'steps' && isMapping(steps))
    return Object.fromEntries(
      Object.entries(steps).map(([name, step]) => [name, inStep(step, childPath(path, name), to, losses)]),
    );
  return inStep(steps, path, to, losses);
}

function inStep(step: unknown, path: string, to: '1.x' | '2.x', losses: DagIssue[]): unknown {
  if (!isMapping(step) || typeof step.type !== 'string' || canonicalExecutorType(step.type) !== 'docker') return step;
  const key = ['with', 'config'].find((k) => isMapping(step[k]) && Object.keys(step[k]).length > 0);
  if (key === undefined) return step;
  losses.push(issue(path, WHY[to]));
  return without(step, key);
}

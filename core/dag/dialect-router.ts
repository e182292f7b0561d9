/**
 * Dagu 2.x router steps (`type: router` with `value` and `routes`, or `action: router.route`
 * with them under `with`), as Dagu v2.15.1 runs them: not at run time but as a rewrite of the
 * graph when the DAG is loaded (internal/spec/dag.go transformRouterSteps). Each target step of
 * a route gets the precondition `{condition: <value>, expected: <pattern>}` (a `re:` pattern is
 * a regular expression, as in any precondition), depends on the router and continues when
 * skipped; the router itself continues when skipped and runs nothing (`true`; Dagu's prints the
 * routes). The same rewrite here gives the 1.x reader steps it already runs. Dagu's rules: a
 * router needs a graph DAG, a non-empty value and routes, every target must be a step, and a
 * step may be the target of one route only.
 */
import { childPath, issue, type DagIssue } from './issues.ts';
import { isMapping, without } from './mapping.ts';

type Mapping = Record<string, unknown>;

interface Route {
  readonly pattern: string;
  readonly targets: readonly string[];
}

/** A step's routing, from its type or its action; undefined when it routes nothing. */
function routerOf(step: Mapping, path: string, errors: DagIssue[]): Mapping | undefined {
  if (step.action === 'router.route') {
    const given = isMapping(step.with) ? step.with : {};
    for (const key of Object.keys(given).filter((k) => k !== 'value' && k !== 'routes'))
      errors.push(issue(childPath(childPath(path, 'with'), key), 'router.route takes value and routes only'));
    return { value: given.value, routes: given.routes, at: childPath(path, 'with') };
  }
  if (step.type === 'router') return { value: step.value, routes: step.routes, at: path };
  for (const key of ['value', 'routes'].filter((k) => Object.hasOwn(step, k)))
    errors.push(issue(childPath(path, key), 'is read only on a router step (type: router)'));
  return undefined;
}

/** The trimmed value and the routes (none when either is wrong: the errors say why). */
function routesOf(router: Mapping, errors: DagIssue[]): { value: string; routes: Route[] } {
  const at = router.at as string;
  const value = typeof router.value === 'string' ? router.value.trim() : '';
  if (value === '') errors.push(issue(childPath(at, 'value'), 'router step requires a non-empty string value'));
  if (!isMapping(router.routes) || Object.keys(router.routes).length === 0) {
    errors.push(
      issue(childPath(at, 'routes'), 'router step requires at least one route: a mapping of pattern to steps'),
    );
    return { value, routes: [] };
  }
  const routes: Route[] = [];
  for (const [written, targets] of Object.entries(router.routes)) {
    const path = childPath(childPath(at, 'routes'), written);
    const pattern = written.trim();
    const list = Array.isArray(targets) ? targets : [];
    if (pattern === '') errors.push(issue(path, 'route pattern cannot be empty'));
    else if (list.length === 0 || list.some((t) => typeof t !== 'string' || t.trim() === ''))
      errors.push(issue(path, 'must be a non-empty list of step names'));
    else routes.push({ pattern, targets: list.map((t) => (t as string).trim()) });
  }
  return { value, routes: value === '' ? [] : routes };
}

function nameOf(step: unknown): string | undefined {
  if (!isMapping(step)) return undefined;
  const name = step.name ?? step.id;
  return typeof name === 'string' ? name : undefined;
}

/** `preconditions` as a list (Dagu takes one condition or a list), with one more. */
function withCondition(step: Mapping, condition: Mapping): unknown[] {
  return [...listOf(step.preconditions), condition];
}

function listOf(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? (value as unknown[]) : [value];
}

function withDepends(step: Mapping, router: string): unknown[] {
  const list = listOf(step.depends);
  return list.includes(router) ? list : [...list, router];
}

function continuingWhenSkipped(step: Mapping, path: string, errors: DagIssue[]): unknown {
  const own = step.continue_on ?? {};
  if (isMapping(own)) return { ...own, skipped: true };
  errors.push(issue(childPath(path, 'continue_on'), 'must be a mapping on a router step or a route target'));
  return own;
}

/** Where each target is, by Dagu's rules (a step of this DAG other than the router, in one route). */
function targetIndexes(
  routes: readonly Route[],
  at: string,
  router: { readonly name: string; readonly index: number },
  steps: ReadonlyMap<string, number>,
  errors: DagIssue[],
): [number, string][] {
  const seen = new Map<string, string>();
  const found: [number, string][] = [];
  for (const route of routes)
    for (const target of route.targets) {
      const path = childPath(childPath(at, 'routes'), route.pattern);
      const first = seen.get(target);
      const j = steps.get(target);
      if (first !== undefined)
        errors.push(
          issue(
            path,
            `step "${target}" is targeted by routes "${first}" and "${route.pattern}"; a step can be the target of one route`,
          ),
        );
      else if (j === undefined || j === router.index)
        errors.push(issue(path, `router "${router.name}" routes to "${target}", which is no other step of this DAG`));
      else {
        seen.set(target, route.pattern);
        found.push([j, route.pattern]);
      }
    }
  return found;
}

/**
 * The steps of a 2.x document with its router steps rewritten as Dagu rewrites them. Steps are a
 * list (named by name, else id) or a mapping (named by key).
 */
export function withRouterSteps(document: Mapping, errors: DagIssue[]): Mapping {
  const listed = Array.isArray(document.steps);
  if (!listed && !isMapping(document.steps)) return document;
  const entries: [string, unknown][] = listed
    ? (document.steps as unknown[]).map((step, i) => [String(i), step])
    : Object.entries(document.steps as Mapping);
  const pathOf = (i: number): string => childPath('steps', listed ? i : (entries[i]?.[0] ?? ''));
  const nameAt = (i: number): string | undefined => (listed ? nameOf(entries[i]?.[1]) : entries[i]?.[0]);
  const index = new Map<string, number>();
  entries.forEach((_, i) => {
    const name = nameAt(i);
    if (name !== undefined) index.set(name, i);
  });
  let routed = false;
  for (const [i, [key, step]] of entries.entries()) {
    if (!isMapping(step)) continue;
    const router = routerOf(step, pathOf(i), errors);
    const plain = without(step, 'value', 'routes');
    entries[i] = [key, plain];
    if (router === undefined) continue;
    routed = true;
    const name = nameAt(i) ?? '';
    const { value, routes } = routesOf(router, errors);
    for (const [j, pattern] of targetIndexes(routes, router.at as string, { name, index: i }, index, errors)) {
      const [targetKey, target] = entries[j] as [string, Mapping];
      entries[j] = [
        targetKey,
        {
          ...target,
          preconditions: withCondition(target, { condition: value, expected: pattern }),
          depends: withDepends(target, name),
          continue_on: continuingWhenSkipped(target, pathOf(j), errors),
        },
      ];
    }
    entries[i] = [
      key,
      {
        ...without(plain, 'type', 'action', 'with'),
        command: 'true',
        continue_on: continuingWhenSkipped(plain, pathOf(i), errors),
      },
    ];
  }
  if (routed && typeof document.type === 'string' && document.type.trim() === 'chain')
    errors.push(issue('type', 'router steps need type: graph (a chain runs every step after the one before)'));
  return { ...document, steps: listed ? entries.map(([, step]) => step) : Object.fromEntries(entries) };
}

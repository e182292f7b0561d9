/**
 * Dagu 2.x's `foreach` (v2.15.1 `internal/spec/step.go` buildStepForeach,
 * `internal/runtime/builtin/foreach/`): a step that runs a small graph of steps once per item.
 * Kubedag runs it with the machinery of 1.x's `parallel` over a local DAG: the body becomes a
 * generated local DAG, the step calls it once per item, and each item reaches the body as the
 * params FOREACH_ITEM (a string as it is, anything else as JSON) and FOREACH_INDEX (and
 * FOREACH_KEY, which the operator resolves from `key`; `collect` is kept for it too). Pure; the
 * rules are in docs/decisions/2026-11-29-dagu-2x-steps.md and 2026-11-29-foreach-key-collect.md.
 */
import { childPath, issue, type DagIssue } from './issues.ts';
import { refusal } from './dialect-refusal.ts';
import { MAX_PARALLEL_ITEMS } from './step-rules.ts';
import { isMapping } from './mapping.ts';

type Mapping = Record<string, unknown>;

/** The params that carry an item into the body. */
export const FOREACH_ITEM = 'FOREACH_ITEM';
export const FOREACH_INDEX = 'FOREACH_INDEX';
/** The item's key when `foreach.key` is given (the operator resolves it, operator/run/decide/foreach-keys.ts). */
export const FOREACH_KEY = 'FOREACH_KEY';

/** A body to load as a local DAG: its document, and the path of the `foreach` that wrote it. */
export interface ForeachBody {
  readonly path: string;
  readonly name: string;
  readonly document: Mapping;
}

/** Keys a foreach step cannot have beside it (Dagu's validateForeachExecutionTarget). */
const NOT_WITH_FOREACH = ['run', 'action', 'command', 'exec', 'script', 'call', 'parallel', 'type'];
const IDENTIFIER = /^[A-Za-z][A-Za-z0-9_]*$/;

/**
 * The document with each foreach step of `steps` (a list, parallel groups in it, or a mapping
 * of name to step) as a 1.x `call` + `parallel` step, and the bodies to load as local DAGs.
 * A handler's `foreach` is left for the rewrite, which refuses it (dialect-spellings.ts).
 */
export function withForeachSteps(document: Mapping, errors: DagIssue[]): { document: Mapping; bodies: ForeachBody[] } {
  const bodies: ForeachBody[] = [];
  const one = (step: unknown, at: string): unknown => (isMapping(step) ? withForeach(step, at, errors, bodies) : step);
  const steps = document.steps;
  const rewritten = Array.isArray(steps)
    ? steps.map((step: unknown, i) =>
        Array.isArray(step)
          ? step.map((inner: unknown, j) => one(inner, childPath(childPath('steps', i), j)))
          : one(step, childPath('steps', i)),
      )
    : isMapping(steps)
      ? Object.fromEntries(Object.entries(steps).map(([name, step]) => [name, one(step, childPath('steps', name))]))
      : steps;
  return { document: steps === undefined ? document : { ...document, steps: rewritten }, bodies };
}

/** The foreach step as a 1.x `call` + `parallel` step; its body is pushed onto `bodies`. */
function withForeach(step: Mapping, path: string, errors: DagIssue[], bodies: ForeachBody[]): Mapping {
  if (!Object.hasOwn(step, 'foreach')) return step;
  const { foreach, ...rest } = step;
  const at = childPath(path, 'foreach');
  const clash = NOT_WITH_FOREACH.find((key) => Object.hasOwn(step, key));
  if (clash !== undefined) {
    errors.push(issue(at, `foreach cannot be combined with "${clash}" on the same step`));
    return rest;
  }
  const config = readForeach(foreach, at, errors);
  if (config === undefined) return { ...rest, command: 'true' };
  const name = bodyName(step, path);
  bodies.push({ path: at, name, document: { name, steps: config.steps } });
  // Items known only when the step runs are a JSON array the operator reads then (children.ts).
  const expression = typeof config.items === 'string' ? { foreach: true } : {};
  // The key and the collected values are resolved by the operator, as data, per item (foreach-keys.ts).
  const key = config.key === undefined ? {} : { key: config.key };
  const collect = config.collect === undefined ? {} : { collect: config.collect };
  return {
    ...rest,
    call: name,
    parallel: { items: config.items, max_concurrent: config.maxConcurrent, ...expression, ...key, ...collect },
  };
}

interface ForeachConfig {
  /** Static items as the params of each item, or an expression resolved when the step runs. */
  readonly items: Mapping[] | string;
  readonly maxConcurrent: number;
  readonly steps: unknown[];
  /** `foreach.key` and `foreach.collect` with the item references as the body's params. */
  readonly key?: string;
  readonly collect?: Record<string, string>;
}

/** Dagu's checks of the `foreach` mapping, and the parts Kubedag does not run yet refused by name. */
function readForeach(raw: unknown, at: string, errors: DagIssue[]): ForeachConfig | undefined {
  if (!isMapping(raw)) {
    errors.push(
      issue(at, 'foreach must be a mapping of items, steps and the optional as, key, max_concurrent, collect'),
    );
    return undefined;
  }
  const before = errors.length;
  const unknown = Object.keys(raw).find(
    (key) => !['items', 'as', 'key', 'max_concurrent', 'steps', 'collect'].includes(key),
  );
  if (unknown !== undefined) errors.push(issue(childPath(at, unknown), `unknown foreach field "${unknown}"`));
  const as = aliasOf(raw.as, childPath(at, 'as'), errors);
  const key = keyOf(raw.key, childPath(at, 'key'), errors);
  const collect = collectOf(raw.collect, childPath(at, 'collect'), errors);
  const items = itemsOf(raw.items, childPath(at, 'items'), errors);
  const maxConcurrent = maxConcurrentOf(raw.max_concurrent, childPath(at, 'max_concurrent'), errors);
  const steps = raw.steps;
  if (!Array.isArray(steps) || steps.length === 0)
    errors.push(issue(childPath(at, 'steps'), 'foreach.steps must be a non-empty list of steps'));
  else if (steps.some((s) => !isMapping(s)))
    errors.push(issue(childPath(at, 'steps'), 'each step of foreach.steps must be a mapping'));
  else if (steps.some((s) => isMapping(s) && Object.hasOwn(s, 'foreach')))
    errors.push(refusal(childPath(at, 'steps'), 'foreach inside a foreach body'));
  if (errors.length > before || items === undefined || !Array.isArray(steps)) return undefined;
  const keyed = key !== undefined;
  return {
    items,
    maxConcurrent,
    steps: withItemReferences(steps, as, keyed) as unknown[],
    ...(key === undefined ? {} : { key: withItemReferences(key, as, false) as string }),
    ...(collect === undefined ? {} : { collect: withItemReferences(collect, as, keyed) as Record<string, string> }),
  };
}

/**
 * `foreach.key`: a string (Dagu's parseForeachConfig). The operator resolves it per item as data
 * (item, index, the DAG's variables); a backtick command would need a shell, which only a Pod has,
 * so it is refused by name.
 */
function keyOf(value: unknown, at: string, errors: DagIssue[]): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') {
    errors.push(issue(at, 'foreach.key must be a non-empty string'));
    return undefined;
  }
  if (value.includes('`')) errors.push(refusal(at, 'foreach.key with a backtick command'));
  return value;
}

/** `foreach.collect`: output names (identifiers) to string expressions (Dagu's parseForeachCollect). */
function collectOf(value: unknown, at: string, errors: DagIssue[]): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (!isMapping(value)) {
    errors.push(issue(at, 'foreach.collect must be a mapping of output names to expressions'));
    return undefined;
  }
  for (const [name, expression] of Object.entries(value)) {
    if (!IDENTIFIER.test(name))
      errors.push(issue(childPath(at, name), `foreach.collect name must match ${IDENTIFIER.source}`));
    else if (typeof expression !== 'string')
      errors.push(issue(childPath(at, name), `foreach.collect.${name} must be a string`));
    else if (expression.includes('`'))
      errors.push(refusal(childPath(at, name), 'foreach.collect with a backtick command'));
  }
  return value as Record<string, string>;
}

function aliasOf(value: unknown, at: string, errors: DagIssue[]): string {
  if (value === undefined) return 'item';
  if (typeof value !== 'string' || !IDENTIFIER.test(value)) {
    errors.push(issue(at, `foreach.as must match ${IDENTIFIER.source}`));
    return 'item';
  }
  if (value === 'index' || value === 'key') errors.push(issue(at, `foreach.as "${value}" is reserved`));
  return value;
}

/**
 * Static items become flat mappings of the two params; an index keeps equal items apart. An
 * expression (`${steps.list.outputs.files}`) stays one, for the operator to read as a JSON array.
 */
function itemsOf(value: unknown, at: string, errors: DagIssue[]): Mapping[] | string | undefined {
  if (typeof value === 'string') {
    if (value.trim() !== '') return value;
    errors.push(issue(at, 'foreach.items must not be empty'));
    return undefined;
  }
  if (!Array.isArray(value)) {
    errors.push(issue(at, value === undefined ? 'foreach.items is required' : 'foreach.items must be a list'));
    return undefined;
  }
  if (value.length > MAX_PARALLEL_ITEMS) {
    errors.push(issue(at, `has ${value.length} items; at most ${MAX_PARALLEL_ITEMS} are allowed`));
    return undefined;
  }
  return value.map((item: unknown, i) => ({
    [FOREACH_INDEX]: String(i),
    [FOREACH_ITEM]: typeof item === 'string' ? item : JSON.stringify(item),
  }));
}

function maxConcurrentOf(value: unknown, at: string, errors: DagIssue[]): number {
  // Dagu's default (ir.DefaultMaxConcurrent) and ceiling (ir.MaxExpansionConcurrency).
  if (value === undefined) return 10;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_PARALLEL_ITEMS) {
    errors.push(issue(at, `max_concurrent must be an integer from 1 through ${MAX_PARALLEL_ITEMS}`));
    return 10;
  }
  return value;
}

/**
 * `${foreach.<as>}` (and a path into it), `${foreach.index}` and `${foreach.key}` (the key the
 * operator resolved when `keyed`, else the index, as in Dagu when no key is given) as the body's
 * params; other `${foreach.…}` stay and are refused.
 */
function withItemReferences(value: unknown, as: string, keyed: boolean): unknown {
  if (typeof value === 'string')
    return value.replace(
      /\$\{foreach\.([A-Za-z][A-Za-z0-9_]*)((?:\.[^}$]*)?)\}/g,
      (whole, name: string, rest: string) => {
        if (name === as) return `\${${FOREACH_ITEM}${rest}}`;
        if (rest !== '') return whole;
        if (name === 'key') return `\${${keyed ? FOREACH_KEY : FOREACH_INDEX}}`;
        return name === 'index' ? `\${${FOREACH_INDEX}}` : whole;
      },
    );
  if (Array.isArray(value)) return value.map((item: unknown) => withItemReferences(item, as, keyed));
  if (!isMapping(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withItemReferences(item, as, keyed)]));
}

/** The body's DAG name: from the step's id or name, so that a run's sub-runs say which step they serve. */
function bodyName(step: Mapping, path: string): string {
  const own = typeof step.id === 'string' ? step.id : typeof step.name === 'string' ? step.name : path;
  const safe = own.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '');
  return `${safe === '' ? 'step' : safe.slice(0, 30)}-foreach`;
}

/** `${foreach.…}` references the rewrite did not resolve, refused by name. */
export function foreachReferenceErrors(value: unknown, path: string): DagIssue[] {
  if (typeof value === 'string')
    return /\$\{foreach\./.test(value) ? [refusal(path, '${foreach.…} references outside a foreach body')] : [];
  if (Array.isArray(value))
    return value.flatMap((item: unknown, i) => foreachReferenceErrors(item, childPath(path, i)));
  if (!isMapping(value)) return [];
  return Object.entries(value).flatMap(([key, item]) => foreachReferenceErrors(item, childPath(path, key)));
}

/** Root keys that say how steps run, which a body run inherits from the DAG that wrote it (Dagu runs the body in the DAG's context). */
const INHERITED = [
  'env',
  'dotenv',
  'shell',
  'shell_args',
  'working_dir',
  'container',
  'kubernetes',
  'worker_selector',
  'registry_auths',
  'ssh',
  'max_output_size',
  'smtp',
];

/**
 * A body's local DAG document: its steps, what it inherits from the root, and `defaults: {}`,
 * which decides the 2.x dialect when the body is loaded alone (as its sub-run loads it) even if
 * its steps are spelled alike in both.
 */
export function bodyDocument(body: ForeachBody, root: Mapping): Mapping {
  const inherited = Object.fromEntries(
    INHERITED.filter((key) => Object.hasOwn(root, key)).map((key) => [key, root[key]]),
  );
  return { ...body.document, ...inherited, type: 'graph', defaults: {} };
}

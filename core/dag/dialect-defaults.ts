/**
 * Dagu 2.x's `defaults:` (step defaults) written into each step and handler of a 2.x document,
 * as Dagu applies them (internal/spec/defaults.go): a setting applies to a step that does not
 * write that key; `env` is put before the step's own variables and `preconditions` before its
 * own conditions. 1.x has no step defaults, so the rewrite leaves none behind.
 */
import { childPath, issue, type DagIssue } from './issues.ts';
import { isMapping } from './mapping.ts';

type Mapping = Record<string, unknown>;

/** The settings a step takes when it does not write them. */
const REPLACED = ['continue_on', 'retry_policy', 'repeat_policy', 'timeout_sec', 'mail_on_error', 'signal_on_stop'];
/** The lists a step's own entries are added to. */
const PREPENDED = ['env', 'preconditions'];

/** The document with its defaults in every step and handler, and without `defaults`. */
export function withStepDefaults(document: Mapping, errors: DagIssue[]): Mapping {
  if (!Object.hasOwn(document, 'defaults')) return document;
  const { defaults, ...rest } = document;
  if (!isMapping(defaults)) {
    errors.push(issue('defaults', 'must be a mapping of step settings'));
    return rest;
  }
  const stray = Object.keys(defaults).filter((key) => !REPLACED.includes(key) && !PREPENDED.includes(key));
  for (const key of stray)
    errors.push(
      issue(
        childPath('defaults', key),
        `is not a step default (defaults takes ${[...REPLACED, ...PREPENDED].join(', ')})`,
      ),
    );
  const apply = (step: unknown): unknown => stepWithDefaults(step, defaults);
  const out: Mapping = { ...rest };
  if (rest.steps !== undefined) out.steps = mapSteps(rest.steps, apply);
  if (isMapping(rest.handler_on))
    out.handler_on = Object.fromEntries(Object.entries(rest.handler_on).map(([event, step]) => [event, apply(step)]));
  return out;
}

/**
 * The DAG-level `log_output` (`separate` or `merged`, any letter case; Dagu's default is
 * separate) is the default of each step's own (ir.EffectiveLogOutput: the step's wins), so it
 * is written into every step and handler that does not write one, where the step's reading of
 * the key decides. `separate` is how Kubedag keeps every step's log anyway (stdout and stderr
 * apart), so it is dropped rather than written out.
 */
export function withLogOutputDefault(document: Mapping, errors: DagIssue[]): Mapping {
  if (!Object.hasOwn(document, 'log_output')) return document;
  const { log_output: written, ...rest } = document;
  if (written === null || written === undefined) return rest;
  const mode = typeof written === 'string' ? written.trim().toLowerCase() : undefined;
  if (mode !== 'separate' && mode !== 'merged' && mode !== '') {
    errors.push(
      issue(
        'log_output',
        typeof written === 'string'
          ? `invalid log_output value: "${written}" (must be separate or merged)`
          : 'must be a string: separate or merged',
      ),
    );
    return rest;
  }
  if (mode !== 'merged') return rest;
  const apply = (input: unknown): unknown => {
    const step = typeof input === 'string' ? { command: input } : input;
    return isMapping(step) && !Object.hasOwn(step, 'log_output') ? { ...step, log_output: mode } : input;
  };
  const out: Mapping = { ...rest };
  if (rest.steps !== undefined) out.steps = mapSteps(rest.steps, apply);
  if (isMapping(rest.handler_on))
    out.handler_on = Object.fromEntries(Object.entries(rest.handler_on).map(([event, step]) => [event, apply(step)]));
  return out;
}

/** Steps as a list (with parallel groups, lists in the list) or as a mapping of name to step. */
function mapSteps(steps: unknown, apply: (step: unknown) => unknown): unknown {
  if (Array.isArray(steps)) return steps.map((item: unknown) => (Array.isArray(item) ? item.map(apply) : apply(item)));
  return isMapping(steps)
    ? Object.fromEntries(Object.entries(steps).map(([name, step]) => [name, apply(step)]))
    : steps;
}

function stepWithDefaults(input: unknown, defaults: Mapping): unknown {
  // A step written as a string is its command.
  const step = typeof input === 'string' ? { command: input } : input;
  if (!isMapping(step)) return input;
  const out: Mapping = { ...step };
  for (const key of REPLACED) if (Object.hasOwn(defaults, key) && !Object.hasOwn(step, key)) out[key] = defaults[key];
  for (const key of PREPENDED) {
    if (!Object.hasOwn(defaults, key)) continue;
    out[key] = step[key] === undefined ? defaults[key] : [...asList(key, defaults[key]), ...asList(key, step[key])];
  }
  return out;
}

/** `env` as a mapping is a list of one-entry mappings in its order; one precondition a list of one. */
function asList(key: string, value: unknown): unknown[] {
  if (Array.isArray(value)) return value as unknown[];
  if (key === 'env' && isMapping(value)) return Object.entries(value).map(([name, item]) => ({ [name]: item }));
  return [value];
}

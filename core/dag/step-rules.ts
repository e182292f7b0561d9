/**
 * A step's rules as written into the model: continueOn, retryPolicy, repeatPolicy, parallel and
 * signalOnStop, each checked where it is written. step.ts reads the rest of a step.
 */
import { integerFrom, listFromFile } from './fields.ts';
import { childPath, issue, type DagIssue, type Diagnostics } from './issues.ts';
import { optional } from './optional.ts';
import { DEFAULTS, type ContinueOn, type Parallel, type RepeatPolicy, type RetryPolicy } from './model.ts';
import type { StepFile } from './schema.ts';

/** Most items a static `parallel` list may hold. */
export const MAX_PARALLEL_ITEMS = 1000;

/** No continueOn written: a failed or skipped step stops what depends on it. */
export const NO_CONTINUE: ContinueOn = { failure: false, skipped: false, exitCode: [], output: [], markSuccess: false };

export function continueOnOf(input: StepFile['continueOn'], path: string, errors: DagIssue[]): ContinueOn {
  const none = NO_CONTINUE;
  if (input === undefined) return none;
  if (typeof input === 'string') return input === 'skipped' ? { ...none, skipped: true } : { ...none, failure: true };
  const codes = input.exitCode === undefined ? [] : Array.isArray(input.exitCode) ? input.exitCode : [input.exitCode];
  const exitCode = codes.flatMap((code, i) => {
    const value = integerFrom(
      code,
      Array.isArray(input.exitCode) ? childPath(childPath(path, 'exitCode'), i) : childPath(path, 'exitCode'),
      errors,
    );
    return value === undefined ? [] : [value];
  });
  return {
    failure: input.failure ?? false,
    skipped: input.skipped ?? false,
    exitCode,
    output: listFromFile(input.output),
    markSuccess: input.markSuccess ?? false,
  };
}

function backoffOf(value: boolean | number | undefined, path: string, errors: DagIssue[]): number | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return 2;
  if (value <= 1) errors.push(issue(path, `must be greater than 1 (or true for 2), not ${value}`));
  return value;
}

export function retryPolicyOf(
  input: NonNullable<StepFile['retryPolicy']>,
  path: string,
  errors: DagIssue[],
): RetryPolicy {
  const countOf = (key: 'limit' | 'intervalSec'): number | string => {
    const value = input[key];
    if (value === undefined) {
      errors.push(issue(childPath(path, key), 'is required'));
      return 0;
    }
    if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) return Number(value);
    if (typeof value === 'string' && value.trim() === '') errors.push(issue(childPath(path, key), 'is empty'));
    if (typeof value === 'number' && value < 0) errors.push(issue(childPath(path, key), 'must be at least 0'));
    return value;
  };
  return {
    limit: countOf('limit'),
    intervalSec: countOf('intervalSec'),
    exitCode: input.exitCode ?? [],
    ...optional('backoff', backoffOf(input.backoff, childPath(path, 'backoff'), errors)),
    ...optional('maxIntervalSec', input.maxIntervalSec),
  };
}

/**
 * `repeat: true` repeats while the step succeeds; `while`/`until` need a condition or exit
 * codes; without `repeat` the mode is inferred as the reference does (condition + expected
 * means until, condition or exitCode alone means while).
 */
export function repeatPolicyOf(
  input: NonNullable<StepFile['repeatPolicy']>,
  path: string,
  diagnostics: Diagnostics,
): RepeatPolicy | undefined {
  const exitCode = input.exitCode ?? [];
  const mode = repeatMode(input);
  if (
    (input.repeat === 'while' || input.repeat === 'until') &&
    input.condition === undefined &&
    exitCode.length === 0
  ) {
    diagnostics.errors.push(issue(childPath(path, 'repeat'), `"${input.repeat}" needs condition or exitCode`));
  }
  if (input.expected !== undefined && input.condition === undefined)
    diagnostics.errors.push(issue(childPath(path, 'expected'), 'needs condition'));
  if (mode === undefined) {
    diagnostics.warnings.push(issue(path, 'has no effect: set repeat, condition or exitCode'));
    return undefined;
  }
  const condition =
    input.condition === undefined
      ? undefined
      : input.expected === undefined
        ? { condition: input.condition }
        : { condition: input.condition, expected: input.expected };
  return {
    repeat: mode,
    intervalSec: input.intervalSec ?? 0,
    limit: input.limit ?? 0,
    ...optional('condition', condition),
    exitCode,
    ...optional('backoff', backoffOf(input.backoff, childPath(path, 'backoff'), diagnostics.errors)),
    ...optional('maxIntervalSec', input.maxIntervalSec),
  };
}

function repeatMode(input: NonNullable<StepFile['repeatPolicy']>): 'while' | 'until' | undefined {
  if (input.repeat === 'while' || input.repeat === 'until') return input.repeat;
  if (input.repeat === true) return 'while';
  if (input.condition !== undefined) return input.expected === undefined ? 'while' : 'until';
  return (input.exitCode ?? []).length > 0 ? 'while' : undefined;
}

export function parallelOf(input: NonNullable<StepFile['parallel']>, path: string, errors: DagIssue[]): Parallel {
  const form: {
    items?: unknown[] | string;
    maxConcurrent?: number;
    foreach?: boolean;
    key?: string;
    collect?: Record<string, string>;
  } = typeof input === 'string' || Array.isArray(input) ? { items: input } : input;
  const items = form.items;
  if (items === undefined) errors.push(issue(path, 'needs items: a list or an expression such as ${ITEMS}'));
  if (typeof items === 'string' && items.trim() === '') errors.push(issue(path, 'items expression is empty'));
  if (Array.isArray(items)) {
    if (items.length > MAX_PARALLEL_ITEMS)
      errors.push(issue(path, `has ${items.length} items; at most ${MAX_PARALLEL_ITEMS} are allowed`));
    items.forEach((item, i) => {
      if (
        item === null ||
        Array.isArray(item) ||
        (typeof item === 'object' && Object.values(item).some((v) => v !== null && typeof v === 'object'))
      ) {
        errors.push(issue(childPath(path, i), 'an item is a string, a number, a boolean or a flat mapping'));
      }
    });
  }
  const foreach = typeof items === 'string' && form.foreach === true ? { foreach: true as const } : {};
  const keyed = {
    ...(form.key === undefined ? {} : { key: form.key }),
    ...(form.collect === undefined ? {} : { collect: form.collect }),
  };
  return { items: items ?? [], maxConcurrent: form.maxConcurrent ?? 0, ...foreach, ...keyed };
}

const SIGNALS = [
  'HUP',
  'INT',
  'QUIT',
  'ILL',
  'TRAP',
  'ABRT',
  'BUS',
  'FPE',
  'KILL',
  'USR1',
  'SEGV',
  'USR2',
  'PIPE',
  'ALRM',
  'TERM',
  'STKFLT',
  'CHLD',
  'CONT',
  'STOP',
  'TSTP',
  'TTIN',
  'TTOU',
  'URG',
  'XCPU',
  'XFSZ',
  'VTALRM',
  'PROF',
  'WINCH',
  'IO',
  'PWR',
  'SYS',
];

/** `TERM`, `sigterm` and `SIGTERM` all mean SIGTERM. */
export function signalOf(input: string | undefined, path: string, errors: DagIssue[]): string {
  if (input === undefined || input.trim() === '') return DEFAULTS.signalOnStop;
  const name = input.trim().toUpperCase().replace(/^SIG/, '');
  if (!SIGNALS.includes(name)) {
    errors.push(issue(path, `unknown signal "${input}"`));
    return DEFAULTS.signalOnStop;
  }
  return `SIG${name}`;
}

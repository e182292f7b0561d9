/**
 * Which of Dagu's two dialects a DAG document is written in: decided from the first key only one
 * dialect writes, with one error when a later key is of the other (the rules are in
 * docs/decisions/2026-11-29-dagu-2x-dialect.md). Apart from the rewrite (dialect.ts) and
 * importing only the spelling tables, the names and the issue helpers, so that the web UI's
 * editor decides as the server does from a generated copy of these files (scripts/generate.ts).
 */
import { DAG_NAME_PATTERN } from './dag-name.ts';
import {
  CHILD_SCOPES,
  ONE_X_ONLY,
  REFUSED,
  SETTINGS_SPELLINGS,
  SETTINGS_TYPES,
  SPELLINGS,
  TWO_X_ONLY,
  type Scope,
} from './dialect-spellings.ts';
import { childPath, issue, type DagIssue } from './issues.ts';
import { isMapping } from './mapping.ts';

export type Dialect = '1.x' | '2.x';

/** The first key that decided a document's dialect. */
export interface DialectMarker {
  readonly key: string;
  readonly path: string;
}

export interface DialectDecision {
  readonly dialect: Dialect;
  /** Absent when no key tells the dialects apart (the document is read as 1.x). */
  readonly marker?: DialectMarker;
  /** One error when the document mixes the dialects: the first key of the other one. */
  readonly errors: DagIssue[];
}

type Mapping = Record<string, unknown>;

/** 2.x's typed params, a list of `{name, type, default, ...}` (1.x read `{name: x}` as a parameter called "name"). */
export function isTypedParams(params: unknown): params is unknown[] {
  return Array.isArray(params) && params.some((entry) => isMapping(entry) && Object.hasOwn(entry, 'name'));
}

interface KeyVisit {
  readonly scope: Scope;
  readonly key: string;
  readonly path: string;
  readonly value: unknown;
  /** For a key of a step's executor settings: the executor's canonical type. */
  readonly settingsOf?: string;
}

const ONE_X_KEYS = Object.fromEntries(
  (Object.keys(SPELLINGS) as Scope[]).map((scope) => [
    scope,
    new Set([...Object.values(SPELLINGS[scope]), ...(ONE_X_ONLY[scope] ?? [])].map((key) => key.toLowerCase())),
  ]),
) as unknown as Record<Scope, ReadonlySet<string>>;

/** The 1.x name of a key as the 1.x reader matches it (case-insensitively), or the key itself. */
export function oneXName(scope: Scope, key: string): string {
  const renamed = SPELLINGS[scope][key];
  if (renamed !== undefined) return renamed;
  const children = Object.keys(CHILD_SCOPES[scope] ?? {});
  return [...children, 'steps'].find((name) => name.toLowerCase() === key.toLowerCase()) ?? key;
}

/** Every mapping key of the parts whose spelling differs, in document order. */
function* keysOf(value: unknown, scope: Scope, path: string): Generator<KeyVisit> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* keysOf(item, scope, childPath(path, i));
    return;
  }
  if (!isMapping(value)) return;
  for (const [key, item] of Object.entries(value)) {
    const at = childPath(path, key);
    yield { scope, key, path: at, value: item };
    const name = oneXName(scope, key);
    if (scope === 'step') yield* settingsOf(value, key, item, at);
    if (scope === 'root' && name === 'steps') yield* stepsOf(item, at);
    else if (scope === 'handlerOn') yield* keysOf(item, 'step', at);
    else {
      const child = CHILD_SCOPES[scope]?.[name];
      if (child !== undefined) yield* keysOf(item, child, at);
    }
  }
}

/**
 * The keys of a step's executor settings whose spelling differs between the dialects: `with:` or
 * `config:` beside `type:`, or `executor: {type, config}` (1.x `containerName`, 2.x
 * `container_name`). Each spelling is read by one dialect only, so it tells them apart as a key does.
 */
function* settingsOf(step: Mapping, key: string, item: unknown, at: string): Generator<KeyVisit> {
  const typed = key === 'with' || key === 'config' ? { type: step.type, settings: item, path: at } : undefined;
  const executor =
    key.toLowerCase() === 'executor' && isMapping(item)
      ? { type: item.type, settings: item.config, path: childPath(at, 'config') }
      : undefined;
  const found = typed ?? executor;
  const type = typeof found?.type === 'string' ? SETTINGS_TYPES[found.type.trim().toLowerCase()] : undefined;
  if (found === undefined || type === undefined || !isMapping(found.settings)) return;
  for (const [name, value] of Object.entries(found.settings))
    yield { scope: 'step', key: name, path: childPath(found.path, name), value, settingsOf: type };
}

/** Steps as a list (of steps and parallel groups) or as a mapping from name to step. */
function* stepsOf(value: unknown, path: string): Generator<KeyVisit> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* keysOf(item, 'step', childPath(path, i));
    return;
  }
  if (!isMapping(value)) return;
  for (const [name, step] of Object.entries(value)) yield* keysOf(step, 'step', childPath(path, name));
}

/** `run:` as 2.x writes it: a list, or a string that cannot be a 1.x sub-DAG name. */
function runIsShell(value: unknown): boolean {
  if (Array.isArray(value)) return true;
  return typeof value === 'string' && !DAG_NAME_PATTERN.test(value.trim().replace(/\.ya?ml$/, ''));
}

/** `run:` as a shell command; `output`, `stdout` and `stderr` as objects (1.x writes them as strings). */
function isTwoXStepValue(key: string, value: unknown): boolean {
  if (key === 'run') return runIsShell(value);
  return ['output', 'stdout', 'stderr'].includes(key) && isMapping(value);
}

/** A setting's dialect: 2.x's snake_case spelling, or 1.x's (matched case-insensitively, as its reader does). */
function dialectOfSetting(type: string, key: string): Dialect | undefined {
  const spellings = SETTINGS_SPELLINGS[type] ?? {};
  if (Object.hasOwn(spellings, key)) return '2.x';
  return Object.values(spellings).some((oneX) => oneX.toLowerCase() === key.toLowerCase()) ? '1.x' : undefined;
}

function dialectOfKey(visit: KeyVisit): Dialect | undefined {
  const { scope, key } = visit;
  if (visit.settingsOf !== undefined) return dialectOfSetting(visit.settingsOf, key);
  if (
    Object.hasOwn(SPELLINGS[scope], key) ||
    Object.hasOwn(REFUSED[scope] ?? {}, key) ||
    TWO_X_ONLY[scope]?.includes(key) === true
  )
    return '2.x';
  if (ONE_X_KEYS[scope].has(key.toLowerCase())) return '1.x';
  if (scope === 'step' && isTwoXStepValue(key, visit.value)) return '2.x';
  // 1.x read `params: [{name: x}]` as a parameter called "name"; a typed list is 2.x's.
  if (scope === 'root' && key === 'params' && isTypedParams(visit.value)) return '2.x';
  return undefined;
}

/** Decides a document's dialect from the first key that only one dialect writes. */
export function decideDialect(document: unknown): DialectDecision {
  let first: (DialectMarker & { dialect: Dialect }) | undefined;
  for (const visit of keysOf(document, 'root', '')) {
    const dialect = dialectOfKey(visit);
    if (dialect === undefined) continue;
    if (first === undefined) first = { dialect, key: visit.key, path: visit.path };
    else if (dialect !== first.dialect)
      return { dialect: first.dialect, marker: markerOf(first), errors: [mixed(visit, first)] };
  }
  return first === undefined
    ? { dialect: '1.x', errors: [] }
    : { dialect: first.dialect, marker: markerOf(first), errors: [] };
}

function markerOf(first: DialectMarker): DialectMarker {
  return { key: first.key, path: first.path };
}

function mixed(visit: KeyVisit, first: DialectMarker & { dialect: Dialect }): DagIssue {
  const other = first.dialect === '2.x' ? '1.x' : '2.x';
  const table = visit.settingsOf === undefined ? SPELLINGS[visit.scope] : (SETTINGS_SPELLINGS[visit.settingsOf] ?? {});
  const counterpart = first.dialect === '2.x' ? twoXSpelling(table, visit.key) : table[visit.key];
  const hint = counterpart === undefined ? '' : `; in Dagu ${first.dialect} it is written "${counterpart}"`;
  return issue(
    visit.path,
    `"${visit.key}" is a Dagu ${other} key, but this file is written in Dagu ${first.dialect} keys (the first is "${first.key}" at ${first.path}); a file uses one dialect${hint}`,
  );
}

function twoXSpelling(table: Readonly<Record<string, string>>, key: string): string | undefined {
  return Object.entries(table).find(([, oneX]) => oneX.toLowerCase() === key.toLowerCase())?.[0];
}

/**
 * The DAG JSON Schema check in the browser: the validator ajv compiled at build time
 * (ui/src/generated, from core/dag's dagJsonSchema) and its errors worded as the server words
 * them (core/dag/structure.ts), so that the editor's instant problems read like the ones the
 * validate endpoint sends a moment later.
 *
 * The server first makes key spellings canonical (any case; `key:` with nothing means unset)
 * and only then checks; raw ajv would flag those. The errors they cause are dropped here
 * instead of repeating the rewrite: the server's answer covers anything left.
 */
import type { SchemaError } from '../../generated/dag-validate.js';
import { pathText, pointerSegments, type Segment } from './yaml-paths.ts';

export interface SchemaIssue {
  readonly path: Segment[];
  readonly message: string;
  /** The issue is about a key rather than its value (an unknown key). */
  readonly atKey: boolean;
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  array: 'a list',
  object: 'a mapping',
  null: 'empty',
};
const TYPE_ORDER = ['string', 'integer', 'number', 'boolean', 'array', 'object', 'null'];

function typeNames(types: readonly string[]): string {
  const ordered = TYPE_ORDER.filter((t) => types.includes(t));
  const shown = ordered.includes('integer') && ordered.includes('number') ? ordered.filter((t) => t !== 'integer') : ordered;
  const names = shown.map((t) => TYPE_NAMES[t] ?? t);
  return names.length < 2 ? (names[0] ?? 'valid') : `${names.slice(0, -1).join(', ')} or ${names.at(-1) ?? ''}`;
}

function jsonType(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value === 'string' || typeof value === 'boolean' ? typeof value : 'object';
}

/** A short description of a value, never echoing large content (as the server's). */
export function describeValue(value: unknown): string {
  const type = jsonType(value);
  if (type === 'string') return (value as string).length > 40 ? 'a string' : `the string ${JSON.stringify(value)}`;
  if (type === 'integer' || type === 'number' || type === 'boolean') return String(value);
  return TYPE_NAMES[type] ?? type;
}

/** Edit distance, for "did you mean". */
export function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

function propertiesOf(error: SchemaError): string[] {
  const properties = error.parentSchema?.properties;
  return properties !== null && typeof properties === 'object' ? Object.keys(properties) : [];
}

function unknownKey(error: SchemaError, key: string): string {
  const known = propertiesOf(error);
  const ranked = known.map((k) => ({ k, d: distance(key.toLowerCase(), k.toLowerCase()) })).sort((a, b) => a.d - b.d);
  const best = ranked[0];
  return best !== undefined && best.d <= Math.max(2, Math.floor(key.length / 3)) ? `unknown key; did you mean "${best.k}"?` : 'unknown key';
}

function message(error: SchemaError): string {
  const params = error.params;
  switch (error.keyword) {
    case 'required':
      return `missing required key "${String(params.missingProperty)}"`;
    case 'type':
      return `must be ${typeNames(String(params.type).split(','))}, not ${describeValue(error.data)}`;
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}, not ${JSON.stringify(error.data)}`;
    case 'minimum':
      return `must be at least ${String(params.limit)}`;
    case 'maximum':
      return `must be at most ${String(params.limit)}`;
    default:
      return error.message ?? 'is invalid';
  }
}

const under = (path: string, parent: string): boolean => path.startsWith(`${parent}/`);

/**
 * ajv reports every failing branch of an `anyOf`. Errors below the value come only from a
 * branch of the value's type, the one meant: keep those and drop the type misses at the
 * value. With none below, a mapping may still miss keys (keep those); else say once which
 * types would do.
 */
function resolveAnyOf(errors: readonly SchemaError[]): SchemaError[] {
  const dropped = new Set<SchemaError>();
  const combined: SchemaError[] = [];
  for (const anyOf of errors.filter((e) => e.keyword === 'anyOf')) {
    const at = anyOf.instancePath;
    const here = errors.filter((e) => e !== anyOf && e.instancePath === at);
    const misses = here.filter((e) => e.keyword === 'type' || e.keyword === 'enum');
    const deeper = errors.some((e) => under(e.instancePath, at));
    const keyed = here.some((e) => e.keyword === 'required' || e.keyword === 'additionalProperties');
    dropped.add(anyOf);
    for (const miss of misses) dropped.add(miss);
    if (deeper || keyed) continue;
    const types = misses.flatMap((e) => (e.keyword === 'type' ? String(e.params.type).split(',') : []));
    combined.push({ ...anyOf, keyword: 'type', params: { type: types.join(',') } });
  }
  return [...errors.filter((e) => !dropped.has(e)), ...combined];
}

/** What the server would not say: null values of known keys (unset), keys in another case. */
function serverWouldAccept(error: SchemaError): boolean {
  const segments = pointerSegments(error.instancePath);
  const last = segments.at(-1);
  if (error.data === null && typeof last === 'string' && ['type', 'anyOf', 'enum'].includes(error.keyword)) return true;
  if (error.keyword !== 'additionalProperties') return false;
  const key = String(error.params.additionalProperty).toLowerCase();
  return propertiesOf(error).some((k) => k.toLowerCase() === key);
}

/** ajv's errors for one document, as issues worded like the server's; duplicates once. */
export function schemaIssues(errors: readonly SchemaError[]): SchemaIssue[] {
  const seen = new Set<string>();
  return resolveAnyOf(errors.filter((e) => !serverWouldAccept(e))).flatMap((error): SchemaIssue[] => {
    const path = pointerSegments(error.instancePath);
    const extra = error.keyword === 'additionalProperties' ? String(error.params.additionalProperty) : undefined;
    const issue = extra === undefined ? { path, message: message(error), atKey: false } : { path: [...path, extra], message: unknownKey(error, extra), atKey: true };
    const key = `${pathText(issue.path)}\n${issue.message}`;
    if (seen.has(key)) return [];
    seen.add(key);
    return [issue];
  });
}

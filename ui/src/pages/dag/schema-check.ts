/**
 * The DAG JSON Schema check in the browser: the validator ajv compiled at build time
 * (ui/src/generated, from core/dag's dagJsonSchema) and its errors worded by the server's own
 * wording (generated from core/dag/wording.ts), so that the editor's instant problems read like
 * the ones the validate endpoint sends a moment later.
 *
 * The server first makes key spellings canonical (any case; `key:` with nothing means unset)
 * and only then checks; raw ajv would flag those. The errors they cause are dropped here
 * instead of repeating the rewrite: the server's answer covers anything left.
 */
import { closest } from 'fastest-levenshtein';
import type { SchemaError } from '../../generated/dag-validate.js';
import { nearKey, SHAPE_MESSAGES } from '../../generated/dag-wording.ts';
import { pathText, pointerSegments, type Segment } from './yaml-paths.ts';

export interface SchemaIssue {
  readonly path: Segment[];
  readonly message: string;
  /** The issue is about a key rather than its value (an unknown key). */
  readonly atKey: boolean;
}

function propertiesOf(error: SchemaError): string[] {
  const properties = error.parentSchema?.properties;
  return properties !== null && typeof properties === 'object' ? Object.keys(properties) : [];
}

function unknownKey(error: SchemaError, key: string): string {
  const known = propertiesOf(error);
  const best =
    known.length === 0
      ? undefined
      : known[
          closestIndex(
            key.toLowerCase(),
            known.map((k) => k.toLowerCase()),
          )
        ];
  return SHAPE_MESSAGES.unknownKey(best !== undefined && nearKey(key, best) ? best : undefined);
}

function closestIndex(key: string, candidates: readonly string[]): number {
  return candidates.indexOf(closest(key, [...candidates]));
}

function message(error: SchemaError): string {
  const params = error.params;
  switch (error.keyword) {
    case 'required':
      return SHAPE_MESSAGES.required(String(params.missingProperty));
    case 'type':
      return SHAPE_MESSAGES.type(String(params.type).split(','), error.data);
    case 'enum':
      return SHAPE_MESSAGES.enum(params.allowedValues as unknown[], error.data);
    case 'minimum':
      return SHAPE_MESSAGES.minimum(params.limit);
    case 'maximum':
      return SHAPE_MESSAGES.maximum(params.limit);
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
    const issue =
      extra === undefined
        ? { path, message: message(error), atKey: false }
        : { path: [...path, extra], message: unknownKey(error, extra), atKey: true };
    const key = `${pathText(issue.path)}\n${issue.message}`;
    if (seen.has(key)) return [];
    seen.add(key);
    return [issue];
  });
}

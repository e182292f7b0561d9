/**
 * The DAG resource's spec holds a file as written, in either of Dagu's dialects. Its CRD
 * schema types the fields that have one shape (core/resources/schemas.ts), in both dialects'
 * spellings, and a mapping the two dialects share by name but not by keys (`container`, `ssh`)
 * keeps the keys of both. Merged here from the two structural schemas. Pure.
 */
import { isDeepStrictEqual } from 'node:util';

type Json = Record<string, unknown>;

const PRESERVE = 'x-kubernetes-preserve-unknown-fields';
const isJson = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * One structural schema that accepts what either does: the properties of both, those in both
 * merged when both are mappings, and a field typed differently left out (and so kept as written,
 * for core/dag to check).
 */
export function mergeStructural(a: Json, b: Json): Json {
  if (!isJson(a.properties) || !isJson(b.properties)) return a;
  const ours = a.properties;
  const theirs = b.properties;
  const merged = [...new Set([...Object.keys(ours), ...Object.keys(theirs)])].map(
    (name) => [name, mergedField(ours[name], theirs[name])] as const,
  );
  const properties = Object.fromEntries(merged.filter(([, field]) => field !== undefined));
  const preserve = merged.length > Object.keys(properties).length || a[PRESERVE] === true || b[PRESERVE] === true;
  // No `properties: {}`: the API server drops an empty map, so the CRD it stores would differ
  // from the chart's file and Helm's server-side apply would conflict with the field's owner.
  const rest: Json = { ...a };
  delete rest.properties;
  if (Object.keys(properties).length > 0) rest.properties = properties;
  return { ...rest, ...(preserve ? { [PRESERVE]: true } : {}) };
}

/** A field of both (undefined: typed differently, so left out), or of the one that has it. */
function mergedField(ours: unknown, theirs: unknown): unknown {
  if (ours === undefined || isDeepStrictEqual(ours, theirs)) return theirs;
  if (theirs === undefined) return ours;
  if (isJson(ours) && isJson(theirs) && isJson(ours.properties) && isJson(theirs.properties))
    return mergeStructural(ours, theirs);
  return undefined;
}

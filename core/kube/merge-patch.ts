/**
 * A JSON merge patch (RFC 7386) merges objects key by key: writing a new value over an old
 * object keeps every old key the new one leaves out. Where a value must be replaced whole (a
 * person's answer replacing an earlier answer to the same step, whose inputs must not carry
 * over), the patch has to name each such key with null. Pure.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The merge patch that turns `old` into exactly `next`. */
export function replacingMergePatch(old: unknown, next: unknown): unknown {
  if (!isObject(old) || !isObject(next)) return next;
  const patch: Json = {};
  for (const key of Object.keys(old)) if (!Object.hasOwn(next, key)) patch[key] = null;
  for (const [key, value] of Object.entries(next)) patch[key] = replacingMergePatch(old[key], value);
  return patch;
}

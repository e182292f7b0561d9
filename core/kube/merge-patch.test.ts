import { describe, expect, it } from 'vitest';
import { replacingMergePatch } from './merge-patch.ts';

/** RFC 7386's MergePatch, to check that applying the patch gives exactly the new value. */
function apply(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) Reflect.deleteProperty(out, key);
    else out[key] = apply(out[key], value);
  }
  return out;
}

describe('replacingMergePatch', () => {
  const cases: { name: string; old: unknown; next: unknown }[] = [
    {
      name: "drops an earlier answer's inputs the new answer does not give",
      old: { iteration: 0, action: 'pushBack', inputs: { TICKET: 'T-2', NOTE: 'again' } },
      next: { iteration: 1, action: 'approve', inputs: { TICKET: 'T-3' } },
    },
    {
      name: "drops an earlier answer's inputs when the new one has none",
      old: { iteration: 0, action: 'pushBack', inputs: { NOTE: 'x' } },
      next: { iteration: 1, action: 'reject', reason: 'no' },
    },
    { name: 'writes a value where there was none', old: undefined, next: { iteration: 0, action: 'approve' } },
    { name: 'replaces a list whole', old: { a: [1, 2] }, next: { a: [3] } },
  ];
  it.each(cases)('$name', ({ old, next }) => {
    expect(apply(old, replacingMergePatch(old, next))).toEqual(next);
  });

  it('names each key left out with null', () => {
    expect(replacingMergePatch({ a: 1, b: { c: 1, d: 2 } }, { b: { c: 2 } })).toEqual({
      a: null,
      b: { c: 2, d: null },
    });
  });
});

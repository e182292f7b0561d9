import { describe, expect, it } from 'vitest';
import { sameContent } from './equal.ts';

describe('sameContent', () => {
  const cases: { name: string; a: unknown; b: unknown; want: boolean }[] = [
    {
      name: 'objects with the same fields in another key order are the same',
      a: { status: 1, nodes: [{ name: 'a', x: 1 }] },
      b: { nodes: [{ x: 1, name: 'a' }], status: 1 },
      want: true,
    },
    {
      name: 'an undefined field equals a missing one, as on the wire',
      a: { a: 1, b: undefined },
      b: { a: 1 },
      want: true,
    },
    { name: 'a changed value differs', a: { a: 1 }, b: { a: 2 }, want: false },
    { name: 'list order matters', a: { l: [1, 2] }, b: { l: [2, 1] }, want: false },
    { name: 'an added field differs', a: { a: 1, c: 'x' }, b: { a: 1 }, want: false },
  ];
  it.each(cases)('$name', ({ a, b, want }) => {
    expect(sameContent(a, b)).toBe(want);
  });
});

import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import type { RunSummary } from '../views/runs.ts';
import { decodeCursor, encodeCursor, pageOf, statusFilter } from './paging.ts';

describe("v1's paging of run lists", () => {
  it('reads back the cursors it makes, and refuses any other with a 400', () => {
    expect([0, 1, 250].map((n) => decodeCursor(encodeCursor(n)))).toEqual([0, 1, 250]);
    expect(decodeCursor(undefined)).toBe(0);
    for (const bad of [
      'nonsense',
      encodeCursor(3).slice(1),
      Buffer.from('o:-1').toString('base64url'),
      Buffer.from('o:1.5').toString('base64url'),
    ]) {
      expect(() => decodeCursor(bad)).toThrow(ApiError);
    }
  });

  it('pages forward with a cursor while more follow, and reads one item past the page at most', async () => {
    let read = 0;
    function* numbers(): Generator<number> {
      for (let i = 1; i <= 100; i++) {
        read += 1;
        yield i;
      }
    }
    const first = await pageOf(numbers(), { offset: 0, limit: 3, keep: (n) => n % 2 === 0 });
    expect([first.items, read]).toEqual([[2, 4, 6], 8]);
    const next = await pageOf(numbers(), {
      offset: decodeCursor(first.nextCursor),
      limit: 3,
      keep: (n) => n % 2 === 0,
    });
    expect(next.items).toEqual([8, 10, 12]);
    expect(await pageOf([1, 2], { offset: 0, limit: 2 })).toEqual({ items: [1, 2] });
  });

  it('takes one status or several', () => {
    const of = (status: number): RunSummary => ({ status }) as RunSummary;
    expect(statusFilter(undefined)).toBeUndefined();
    expect(statusFilter([])).toBeUndefined();
    const keep = statusFilter([4, 2]);
    expect([of(4), of(2), of(1)].map((s) => keep?.(s))).toEqual([true, true, false]);
    expect(statusFilter(1)?.(of(1))).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { beyondCutoff, countCutoff, type RunAge } from './count.ts';

const run = (id: string, createdMs: number, finishedMs?: number): RunAge => ({
  id,
  createdMs,
  ...(finishedMs === undefined ? {} : { finishedMs }),
});

describe('retention by count', () => {
  it.each([
    {
      name: 'keeps everything while there are no more runs than the count',
      runs: [run('a', 1, 2), run('b', 3, 4)],
      keep: 2,
      want: [],
    },
    {
      name: 'deletes the finished runs beyond the newest',
      runs: [run('a', 1, 2), run('b', 3, 4), run('c', 5, 6), run('d', 7, 8)],
      keep: 2,
      want: ['a', 'b'],
    },
    {
      name: 'keeps an older run that finished after one of the newest',
      runs: [run('long', 1, 20), run('b', 3, 4), run('c', 5, 6)],
      keep: 2,
      want: [],
    },
    {
      name: 'counts an active run among the newest by its creation',
      runs: [run('a', 1, 2), run('b', 3, 4), run('active', 5)],
      keep: 2,
      want: ['a'],
    },
    {
      name: 'never deletes an active run',
      runs: [run('old-active', 1), run('b', 3, 4), run('c', 5, 6)],
      keep: 1,
      want: ['b'],
    },
    {
      name: 'counts a run found in both etcd and the store once',
      runs: [run('a', 1, 2), run('b', 3, 4), run('b', 3, 4)],
      keep: 2,
      want: [],
    },
  ])('$name', ({ runs, keep, want }) => {
    expect(beyondCutoff(runs, countCutoff(runs, keep)).map((r) => r.id)).toEqual(want);
  });

  it('keeps at least the newest runs, whatever their finishes', () => {
    for (let seed = 1; seed < 200; seed += 1) {
      const runs = Array.from({ length: 8 }, (_, i) => run(`r${String(i)}`, i * 10, i * 10 + ((seed * (i + 3)) % 37)));
      const gone = new Set(beyondCutoff(runs, countCutoff(runs, 3)).map((r) => r.id));
      for (const kept of runs.slice(-3)) expect(gone.has(kept.id)).toBe(false);
    }
  });
});

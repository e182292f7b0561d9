import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { housekeeping, PodDirs } from './pod-dirs.ts';

describe('housekeeping, which Pod directories go', () => {
  const cases: {
    name: string;
    dirs: string[];
    pods: { uid: string; terminal: boolean }[];
    active: string[];
    want: { remove: string[]; trim: string[] };
  }[] = [
    {
      name: 'removes the directory of a Pod that is gone',
      dirs: ['a'],
      pods: [],
      active: [],
      want: { remove: ['a'], trim: [] },
    },
    {
      name: 'trims a finished Pod, whose logs must stay while it exists',
      dirs: ['a'],
      pods: [{ uid: 'a', terminal: true }],
      active: [],
      want: { remove: [], trim: ['a'] },
    },
    {
      name: 'leaves a Pod that has not finished',
      dirs: ['a'],
      pods: [{ uid: 'a', terminal: false }],
      active: [],
      want: { remove: [], trim: [] },
    },
    {
      name: 'never touches a Pod whose run has not ended, whatever the cache says',
      dirs: ['a', 'b'],
      pods: [{ uid: 'b', terminal: true }],
      active: ['a', 'b'],
      want: { remove: [], trim: [] },
    },
  ];
  it.each(cases)('$name', ({ dirs, pods, active, want }) => {
    expect(housekeeping(dirs, pods, new Set(active))).toEqual(want);
  });
});

describe('PodDirs', () => {
  it("lists a container's log attempts in order and trims all but logs and markers", async () => {
    const state = mkdtempSync(join(tmpdir(), 'kubedag-dirs-'));
    try {
      const dirs = new PodDirs(state);
      mkdirSync(dirs.volume('u1', 'data'), { recursive: true });
      mkdirSync(dirs.layer('u1', 'main', 0), { recursive: true });
      for (const name of ['main-0.log', 'main-10.log', 'main-2.log', 'main-x.log', 'sidecar-0.log', 'started'])
        writeFileSync(dirs.of('u1', name), '');
      expect(dirs.attempts('u1', 'main')).toEqual([0, 2, 10]);
      await dirs.trim('u1');
      expect(dirs.attempts('u1', 'main')).toEqual([0, 2, 10]);
      expect((await import('node:fs')).readdirSync(dirs.of('u1')).sort()).toEqual([
        'main-0.log',
        'main-10.log',
        'main-2.log',
        'main-x.log',
        'sidecar-0.log',
        'started',
      ]);
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
  });
});

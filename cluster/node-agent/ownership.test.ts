import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyOwnership, ownedMode, rootNeedsChange } from './ownership.ts';

describe("ownedMode, the kubelet's fsGroup permissions", () => {
  const cases: { name: string; mode: number; isDir: boolean; readOnly: boolean; want: number }[] = [
    { name: 'gives a file group read and write', mode: 0o644, isDir: false, readOnly: false, want: 0o664 },
    {
      name: 'gives a file of a read-only volume group read only',
      mode: 0o600,
      isDir: false,
      readOnly: true,
      want: 0o640,
    },
    { name: 'gives a directory group rwx and the setgid bit', mode: 0o755, isDir: true, readOnly: false, want: 0o2775 },
    { name: 'keeps what the entry already allows others', mode: 0o777, isDir: true, readOnly: false, want: 0o2777 },
  ];
  it.each(cases)('$name', ({ mode, isDir, readOnly, want }) => {
    expect(ownedMode(mode, isDir, readOnly).toString(8)).toBe(want.toString(8));
  });
});

describe('rootNeedsChange, for fsGroupChangePolicy OnRootMismatch', () => {
  const cases: { name: string; gid: number; mode: number; want: boolean }[] = [
    {
      name: 'skips a root that already has the group, its permissions and setgid',
      gid: 2000,
      mode: 0o2775,
      want: false,
    },
    { name: 'changes a root of another group', gid: 0, mode: 0o2775, want: true },
    { name: 'changes a root without setgid', gid: 2000, mode: 0o775, want: true },
    { name: 'changes a root the group cannot write', gid: 2000, mode: 0o2755, want: true },
  ];
  it.each(cases)('$name', ({ gid, mode, want }) => {
    expect(rootNeedsChange({ gid, mode, isDir: true }, 2000, false)).toBe(want);
  });
});

describe('applyOwnership on a directory', () => {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kubedag-owner-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it.runIf(process.getuid?.() === 0)('gives every entry the group and the group permissions', () => {
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub/file'), 'x', { mode: 0o600 });
    applyOwnership(dir, 2000, false, 'Always');
    const file = statSync(join(dir, 'sub/file'));
    const sub = statSync(join(dir, 'sub'));
    expect([file.gid, (file.mode & 0o7777).toString(8), sub.gid, (sub.mode & 0o7777).toString(8)]).toEqual([
      2000,
      '660',
      2000,
      '2775',
    ]);
  });
});

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directory, file, normalizeEntries, symlink, writeLayer, type LayerEntry } from './tar.ts';

describe('normalizeEntries', () => {
  const paths = (entries: LayerEntry[]): string[] =>
    normalizeEntries(entries).map((e) => `${e.type[0] ?? ''} ${e.path}`);
  it('adds every missing parent directory and sorts by path bytes, a parent before its children', () => {
    expect(paths([file('usr/bin/x', 'x'), file('usr-x', 'y'), symlink('bin', 'usr/bin')])).toEqual([
      's bin',
      'd usr',
      'f usr-x',
      'd usr/bin',
      'f usr/bin/x',
    ]);
  });
  it('keeps one entry for a directory given twice', () => {
    expect(paths([directory('etc'), directory('etc'), file('etc/a', '')])).toEqual(['d etc', 'f etc/a']);
  });
  const refused = [
    { name: 'two files at one path', entries: [file('a', '1'), file('a', '2')], error: 'two entries for a' },
    { name: 'an absolute path', entries: [file('/etc/passwd', '')], error: 'not a clean relative path' },
    { name: 'a path that climbs out', entries: [file('a/../../b', '')], error: 'not a clean relative path' },
    { name: 'a file under a file', entries: [file('a', ''), file('a/b', '')], error: 'which is no directory' },
  ];
  it.each(refused)('refuses $name', ({ entries, error }) => {
    expect(() => normalizeEntries(entries)).toThrow(error);
  });
});

describe('writeLayer', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kd-tar-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives the same digests for the same entries in any order', async () => {
    const entries = [file('etc/a', 'a'), directory('home/u', 0o755, 1000, 1000), symlink('etc/b', 'a')];
    const one = await writeLayer(entries, 1_700_000_000, dir);
    const two = await writeLayer([...entries].reverse(), 1_700_000_000, dir);
    expect(two).toEqual(one);
    expect(await writeLayer(entries, 1_700_000_001, dir)).not.toEqual(one);
  });

  it('writes every entry with the build time, numeric owners and no owner names', async () => {
    const layer = await writeLayer([file('etc/a', 'a'), directory('home/u', 0o750, 1000, 1000)], 1_700_000_000, dir);
    const headers: tar.Header[] = [];
    const extract = tar.extract();
    extract.end(gunzipSync(await readFile(layer.file)));
    for await (const entry of extract) {
      headers.push(entry.header);
      entry.resume();
    }
    expect(
      headers.map((h) => [h.name, h.type, h.mode, h.uid, h.gid, h.uname, h.gname, h.mtime.getTime() / 1000]),
    ).toEqual([
      ['etc/', 'directory', 0o755, 0, 0, '', '', 1_700_000_000],
      ['etc/a', 'file', 0o644, 0, 0, '', '', 1_700_000_000],
      ['home/', 'directory', 0o755, 0, 0, '', '', 1_700_000_000],
      ['home/u/', 'directory', 0o750, 1000, 1000, '', '', 1_700_000_000],
    ]);
  });
});

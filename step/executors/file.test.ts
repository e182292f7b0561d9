import { mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import { captureIO, temporaryDir } from '../../test/step-io.ts';
import { runFile } from './file.ts';
import { goFileMode, goTime, resultLine } from './file-result.ts';

let dir = { path: '', remove: async () => {} };
beforeEach(async () => {
  dir = await temporaryDir('file');
});
afterEach(async () => {
  await dir.remove();
});

/** Runs one operation in the temporary directory: its JSON line (parsed), or its raw output. */
async function run(command: string, config: Record<string, unknown>, env: Record<string, string> = {}) {
  const io = captureIO({ cwd: dir.path, env });
  const spec: ExecutorSpec = { type: 'file', command, config };
  await runFile(spec, io);
  const out = io.out();
  return { out, json: out.startsWith('{') ? (JSON.parse(out) as Record<string, unknown>) : undefined };
}

describe('file-result writes as Go does', () => {
  it.each([
    [0o100644, '-rw-r--r--'],
    [0o040750, 'drwxr-x---'],
    [0o120777, 'Lrwxrwxrwx'],
    [0o104755, 'urwxr-xr-x'],
    [0o041777, 'dtrwxrwxrwx'],
  ])('mode %o as %s', (mode, want) => {
    expect(goFileMode(mode)).toBe(want);
  });

  it('cuts trailing zeros of the nanoseconds', () => {
    expect(goTime(1_764_410_400_120_000_000n)).toBe('2025-11-29T10:00:00.12Z');
    expect(goTime(1_764_410_400_000_000_000n)).toBe('2025-11-29T10:00:00Z');
  });

  it('leaves out empty fields but keeps a false pointer field', () => {
    expect(resultLine({ operation: 'delete', path: '/a', deleted: false, bytes: 0 })).toBe(
      '{"operation":"delete","path":"/a","deleted":false}\n',
    );
  });
});

describe('runFile', () => {
  it('writes a file with its variables expanded, refuses to overwrite it unasked, then replaces it', async () => {
    const written = await run(
      'write',
      { path: 'out/a.txt', content: 'hi ${WHO}\n', create_dirs: true },
      { WHO: 'you' },
    );
    expect(written.json).toEqual({ operation: 'write', path: join(dir.path, 'out/a.txt'), bytes: 7, created: true });
    expect(await readFile(join(dir.path, 'out/a.txt'), 'utf8')).toBe('hi you\n');
    expect((await stat(join(dir.path, 'out/a.txt'))).mode & 0o777).toBe(0o600);
    await expect(run('write', { path: 'out/a.txt', content: 'x' })).rejects.toThrow(
      `file write ${join(dir.path, 'out/a.txt')}: file exists`,
    );
    await run('write', { path: 'out/a.txt', content: 'new', overwrite: true, mode: '0644' });
    expect(await readFile(join(dir.path, 'out/a.txt'), 'utf8')).toBe('new');
    expect((await stat(join(dir.path, 'out/a.txt'))).mode & 0o777).toBe(0o644);
  });

  it('reads a file raw to stdout, or as JSON with its size, and refuses one past max_bytes', async () => {
    await writeFile(join(dir.path, 'a.txt'), 'hello');
    expect((await run('read', { path: 'a.txt' })).out).toBe('hello');
    const json = (await run('read', { path: 'a.txt', format: 'json' })).json;
    expect([json?.operation, json?.type, json?.size, json?.content, json?.bytes]).toEqual([
      'read',
      'file',
      5,
      'hello',
      5,
    ]);
    await expect(run('read', { path: 'a.txt', max_bytes: 3 })).rejects.toThrow('file size 5 exceeds max_bytes 3');
  });

  it('stats a path, and a missing one only with missing_ok', async () => {
    await mkdir(join(dir.path, 'd'));
    const json = (await run('stat', { path: 'd' })).json;
    expect([json?.type, json?.exists, String(json?.mode).startsWith('d')]).toEqual(['directory', true, true]);
    expect((await run('stat', { path: 'gone', missing_ok: true })).json).toEqual({
      operation: 'stat',
      path: join(dir.path, 'gone'),
      exists: false,
    });
    await expect(run('stat', { path: 'gone' })).rejects.toThrow('no such file or directory');
  });

  it('copies a directory only when recursive, never into itself, and counts what it copied', async () => {
    await mkdir(join(dir.path, 'src/sub'), { recursive: true });
    await writeFile(join(dir.path, 'src/a'), '12');
    await writeFile(join(dir.path, 'src/sub/b'), '345');
    await symlink('a', join(dir.path, 'src/link'));
    await expect(run('copy', { source: 'src', destination: 'dst' })).rejects.toThrow('recursive is required');
    await expect(run('copy', { source: 'src', destination: 'src/in', recursive: true })).rejects.toThrow(
      'destination must not be inside source',
    );
    const json = (await run('copy', { source: 'src', destination: 'dst', recursive: true })).json;
    expect([json?.files, json?.directories, json?.bytes, json?.copied]).toEqual([3, 1, 5, true]);
    expect(await readFile(join(dir.path, 'dst/sub/b'), 'utf8')).toBe('345');
    expect(await readFile(join(dir.path, 'dst/link'), 'utf8')).toBe('12');
  });

  it('moves a file, not over an existing one unless overwrite', async () => {
    await writeFile(join(dir.path, 'a'), 'A');
    await writeFile(join(dir.path, 'b'), 'B');
    await expect(run('move', { source: 'a', destination: 'b' })).rejects.toThrow('destination exists');
    expect((await run('move', { source: 'a', destination: 'b', overwrite: true })).json?.moved).toBe(true);
    expect(await readFile(join(dir.path, 'b'), 'utf8')).toBe('A');
  });

  it('deletes a directory only when recursive, changes nothing on a dry run, and never deletes /', async () => {
    await mkdir(join(dir.path, 'd'));
    await expect(run('delete', { path: 'd' })).rejects.toThrow('recursive is required to delete a directory');
    expect((await run('delete', { path: 'd', recursive: true, dry_run: true })).json?.dryRun).toBe(true);
    expect((await stat(join(dir.path, 'd'))).isDirectory()).toBe(true);
    expect((await run('delete', { path: 'd', recursive: true })).json?.deleted).toBe(true);
    await expect(run('delete', { path: '/', recursive: true })).rejects.toThrow('refusing to delete filesystem root');
  });

  it('lists the files a pattern matches, sorted, directories only with include_dirs', async () => {
    await mkdir(join(dir.path, 'x/y'), { recursive: true });
    for (const name of ['b.txt', 'a.log', 'x/c.txt', 'x/y/d.txt']) await writeFile(join(dir.path, name), '');
    const names = (json?: Record<string, unknown>) => (json?.entries as { path: string }[]).map((e) => e.path);
    expect(names((await run('list', { path: '.', pattern: '**/*.txt', recursive: true })).json)).toEqual([
      'b.txt',
      'x/c.txt',
      'x/y/d.txt',
    ]);
    expect(names((await run('list', { path: '.', include_dirs: true })).json)).toEqual(['a.log', 'b.txt', 'x']);
  });

  it('makes directories with their mode', async () => {
    await run('mkdir', { path: 'p/q', mode: '0700' });
    expect((await stat(join(dir.path, 'p/q'))).mode & 0o777).toBe(0o700);
  });

  it.each([
    ['an unknown operation', 'chmod', { path: 'a' }, 'file: configuration error: unsupported operation "chmod"'],
    ['a missing path', 'read', {}, 'file: configuration error: path is required for read'],
    ['content that is not text', 'write', { path: 'a', content: 5 }, 'content must be a string'],
    ['a bad mode', 'mkdir', { path: 'a', mode: '0999' }, 'invalid mode "0999"'],
    ['a bad format', 'read', { path: 'a', format: 'yaml' }, 'format must be raw or json'],
  ])('refuses %s', async (_name, command, config, message) => {
    await expect(run(command, config)).rejects.toThrow(message);
  });
});

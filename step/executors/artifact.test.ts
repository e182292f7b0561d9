import { mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import { captureIO, temporaryDir } from '../../test/step-io.ts';
import { runArtifact } from './artifact.ts';
import { artifactPath } from './artifact-settings.ts';

let dir = { path: '', remove: async () => {} };
let artifacts = '';
beforeEach(async () => {
  dir = await temporaryDir('artifact');
  artifacts = join(dir.path, 'artifacts');
});
afterEach(async () => {
  await dir.remove();
});

/** Runs one operation over `<tmp>/artifacts` from `<tmp>/work`: its JSON line (parsed), or its raw output. */
async function run(command: string, config: Record<string, unknown>, env: Record<string, string> = {}) {
  const io = captureIO({ cwd: join(dir.path, 'work'), env: { DAG_RUN_ARTIFACTS_DIR: artifacts, ...env } });
  const spec: ExecutorSpec = { type: 'artifact', command, config };
  await runArtifact(spec, io);
  const out = io.out();
  return { out, json: out.startsWith('{') ? (JSON.parse(out) as Record<string, unknown>) : undefined };
}

describe('artifactPath (Dagu cleanArtifactPath)', () => {
  it.each([
    ['report.txt', false, 'report.txt'],
    [' a/./b//c.txt ', false, 'a/b/c.txt'],
    ['a\\b.txt', false, 'a/b.txt'],
    ['', true, '.'],
    ['./', true, '.'],
    ['sub/', true, 'sub'],
  ])('%j (root allowed: %s) is %j', (raw, allowRoot, want) => {
    expect(artifactPath(raw, allowRoot)).toBe(want);
  });

  it.each([
    ['/etc/passwd', 'artifact path must be relative'],
    ['~/x', 'artifact path must be relative'],
    ['C:\\x', 'artifact path must be relative'],
    ['a/../b', 'artifact path must not contain ..'],
    ['.', 'artifact path must name a file'],
    ['', 'path must not be empty'],
  ])('%j is refused: %s', (raw, message) => {
    expect(() => artifactPath(raw, false)).toThrow(`artifact: configuration error: ${message}`);
  });
});

describe('runArtifact', () => {
  it('writes a new file under the artifacts directory (parents made, mode 0600), and refuses to overwrite it unasked', async () => {
    const written = await run('write', { path: 'out/${NAME}.txt', content: 'hi ${WHO}\n' }, { NAME: 'a', WHO: 'you' });
    expect(written.json).toEqual({ operation: 'write', path: 'out/a.txt', bytes: 7, created: true });
    expect(await readFile(join(artifacts, 'out/a.txt'), 'utf8')).toBe('hi you\n');
    expect((await stat(join(artifacts, 'out/a.txt'))).mode & 0o777).toBe(0o600);
    await expect(run('write', { path: 'out/a.txt', content: 'x' })).rejects.toThrow(
      'artifact write out/a.txt: file exists',
    );
    const replaced = await run('write', { path: 'out/a.txt', content: 'x', overwrite: true, mode: '0644' });
    expect(replaced.json).toEqual({ operation: 'write', path: 'out/a.txt', bytes: 1, created: false });
    expect(await readFile(join(artifacts, 'out/a.txt'), 'utf8')).toBe('x');
    expect((await stat(join(artifacts, 'out/a.txt'))).mode & 0o777).toBe(0o644);
  });

  it('reads a file raw, or as JSON with its stat, and keeps to max_bytes', async () => {
    await mkdir(artifacts, { recursive: true });
    await writeFile(join(artifacts, 'r.txt'), 'hello');
    expect((await run('read', { path: 'r.txt' })).out).toBe('hello');
    const json = (await run('read', { path: 'r.txt', format: 'json' })).json;
    expect(json).toMatchObject({
      operation: 'read',
      path: 'r.txt',
      exists: true,
      type: 'file',
      size: 5,
      bytes: 5,
      content: 'hello',
    });
    await expect(run('read', { path: 'r.txt', max_bytes: 4 })).rejects.toThrow(
      'artifact read r.txt: file size 5 exceeds max_bytes 4',
    );
    await expect(run('read', { path: 'missing.txt' })).rejects.toThrow('no such file or directory');
  });

  it('lists the directory from its root: files only unless include_dirs, recursive on request, pattern on the relative path', async () => {
    await mkdir(join(artifacts, 'sub/deep'), { recursive: true });
    await writeFile(join(artifacts, 'a.txt'), 'a');
    await writeFile(join(artifacts, 'sub/b.json'), 'b');
    await writeFile(join(artifacts, 'sub/deep/c.json'), 'c');
    const paths = async (config: Record<string, unknown>): Promise<unknown> =>
      ((await run('list', config)).json?.entries as { path: string }[] | undefined)?.map((e) => e.path);
    expect(await paths({})).toEqual(['a.txt']);
    expect(await paths({ include_dirs: true })).toEqual(['a.txt', 'sub']);
    expect(await paths({ recursive: true })).toEqual(['a.txt', 'sub/b.json', 'sub/deep/c.json']);
    expect(await paths({ path: 'sub', recursive: true, pattern: '**/*.json' })).toEqual([
      'sub/b.json',
      'sub/deep/c.json',
    ]);
    expect((await run('list', { path: 'sub' })).json).toMatchObject({ operation: 'list', path: 'sub', files: 1 });
    await expect(run('list', { path: 'a.txt' })).rejects.toThrow('artifact list a.txt: path must be a directory');
  });

  it('never leaves the directory through a symbolic link', async () => {
    await mkdir(artifacts, { recursive: true });
    await mkdir(join(dir.path, 'outside'));
    await writeFile(join(dir.path, 'outside/secret.txt'), 's');
    await symlink(join(dir.path, 'outside'), join(artifacts, 'link'));
    await expect(run('read', { path: 'link/secret.txt' })).rejects.toThrow('escapes artifact directory');
    await expect(run('write', { path: 'link/new.txt', content: 'x' })).rejects.toThrow('escapes artifact directory');
    await expect(run('list', { path: 'link' })).rejects.toThrow('escapes artifact directory');
  });

  it.each([
    ['write', { path: 'a', content: 'x', overwrite: true, atomic: false }, 'overwrite requires atomic writes'],
    ['write', { path: 'a' }, 'content is required for write'],
    ['read', {}, 'path is required for read'],
    ['read', { path: 'a', format: 'yaml' }, 'format must be raw or json'],
    ['list', { path: '.', max_bytes: -1 }, 'max_bytes must be >= 0'],
    ['list', { dry_run: true }, 'unknown settings: dry_run'],
    ['stat', { path: 'a' }, 'unsupported operation "stat"'],
  ])('%s with %j fails: %s', async (command, config, message) => {
    await expect(run(command, config)).rejects.toThrow(`artifact: configuration error: ${message}`);
  });

  it('fails without DAG_RUN_ARTIFACTS_DIR, naming it', async () => {
    const io = captureIO({ cwd: dir.path, env: {} });
    await expect(runArtifact({ type: 'artifact', command: 'list', config: {} }, io)).rejects.toThrow(
      'DAG_RUN_ARTIFACTS_DIR is not set; enable artifacts for this DAG',
    );
  });
});

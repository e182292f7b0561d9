import { writeFile, mkdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Header } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveSteps } from '../../test/archive-steps.ts';
import { temporaryDir } from '../../test/step-io.ts';

let dir: { path: string; remove: () => Promise<void> };

beforeAll(async () => {
  dir = await temporaryDir('archive');
  await mkdir(join(dir.path, 'site/docs/old'), { recursive: true });
  await writeFile(join(dir.path, 'site/index.html'), '<h1>hi</h1>');
  await writeFile(join(dir.path, 'site/docs/a.txt'), 'alpha');
  await writeFile(join(dir.path, 'site/docs/old/b.txt'), 'beta');
  await writeFile(join(dir.path, 'site/docs/notes.log'), 'log');
});

afterAll(async () => {
  await dir.remove();
});

const { run, read, exists } = archiveSteps(() => dir.path);

/** A tar holding one entry the test names, as a hostile archive would: no library on our side writes it. */
async function hostileTar(file: string, entry: { path: string; type: 'File' | 'SymbolicLink'; linkpath?: string }) {
  const body = Buffer.from(entry.type === 'File' ? 'pwned' : '');
  const header = new Header({ ...entry, size: body.length, mode: 0o644, mtime: new Date(0), uid: 0, gid: 0 });
  header.encode();
  const padding = Buffer.alloc((512 - (body.length % 512)) % 512);
  await writeFile(
    join(dir.path, file),
    Buffer.concat([header.block ?? Buffer.alloc(0), body, padding, Buffer.alloc(1024)]),
  );
}

describe.each(['tar.gz', 'zip', 'tar', 'tar.zst', 'tar.bz2', 'tar.xz'])('archive.* with %s', (format) => {
  it('creates an archive of a directory, lists it and extracts it again with strip_components', async () => {
    const archive = `out/site.${format}`;
    const created = await run('create', { source: 'site', destination: archive });
    expect([created.code, created.err]).toEqual([0, '']);
    expect(created.json()).toMatchObject({ operation: 'create', source: 'site', destination: archive, filesAdded: 7 });

    const listed = await run('list', { source: archive, include: ['**/*.txt'] });
    expect(listed.json()).toMatchObject({ operation: 'list', totalFiles: 2, totalSize: 9 });
    expect((listed.json().files as { path: string }[]).map((f) => f.path)).toEqual([
      'site/docs/a.txt',
      'site/docs/old/b.txt',
    ]);

    const extracted = await run('extract', {
      source: archive,
      destination: `back-${format}`,
      strip_components: 1,
      exclude: ['**/*.log'],
    });
    expect(extracted.json()).toMatchObject({ operation: 'extract', filesExtracted: 3, bytesExtracted: 20 });
    expect([await read(`back-${format}/index.html`), await read(`back-${format}/docs/old/b.txt`)]).toEqual([
      '<h1>hi</h1>',
      'beta',
    ]);
    expect(await exists(`back-${format}/docs/notes.log`)).toBe(false);
  });
});

describe('archive.extract', () => {
  it('refuses to replace a file unless overwrite is set, and writes nothing on a dry run', async () => {
    await run('create', { source: 'site/docs/a.txt', destination: 'one.zip' });
    await mkdir(join(dir.path, 'taken'), { recursive: true });
    await writeFile(join(dir.path, 'taken/a.txt'), 'mine');
    const refused = await run('extract', { source: 'one.zip', destination: 'taken' });
    expect([refused.code, refused.err]).toEqual([4, expect.stringContaining('exists (overwrite disabled)')]);
    expect(await read('taken/a.txt')).toBe('mine');
    const dry = await run('extract', { source: 'one.zip', destination: 'dry', dry_run: true });
    expect(dry.json()).toMatchObject({ filesExtracted: 1, bytesExtracted: 5 });
    expect(await exists('dry')).toBe(false);
    expect((await run('extract', { source: 'one.zip', destination: 'taken', overwrite: 'true' })).code).toBe(0);
    expect(await read('taken/a.txt')).toBe('alpha');
  });

  it.each([
    [
      'a name that climbs out of the destination',
      { path: '../escaped.txt', type: 'File' as const },
      'escapes destination',
    ],
    [
      'a link that points out of it',
      { path: 'link', type: 'SymbolicLink' as const, linkpath: '../../etc' },
      'escapes destination',
    ],
    [
      'a link to an absolute path',
      { path: 'abs', type: 'SymbolicLink' as const, linkpath: '/etc/passwd' },
      'is absolute',
    ],
  ])('fails on %s as a corrupted archive (zip-slip) and writes nothing outside', async (_name, entry, message) => {
    await hostileTar('hostile.tar', entry);
    const result = await run('extract', { source: 'hostile.tar', destination: 'jail/inner' });
    expect([result.code, result.err]).toEqual([12, expect.stringContaining(`archive: corrupted archive: `)]);
    expect(result.err).toContain(message);
    expect([await exists('jail/escaped.txt'), await exists('escaped.txt'), await exists('jail/inner/link')]).toEqual([
      false,
      false,
      false,
    ]);
  });

  it('keeps a link that stays inside the destination, relative to where it is', async () => {
    await hostileTar('inside.tar', { path: 'docs/latest', type: 'SymbolicLink', linkpath: '../index.html' });
    expect((await run('extract', { source: 'inside.tar', destination: 'linked' })).code).toBe(0);
    expect(await readlink(join(dir.path, 'linked/docs/latest'))).toBe('../index.html');
  });
});

describe('archive settings when the step runs', () => {
  it.each([
    [
      'a format Dagu and Kubedag only read',
      'create',
      { source: 'site', destination: 'x.7z', format: '7z' },
      7,
      'archive: creation failed: format 7z cannot create archives',
    ],
    [
      'a compressed file that is not an archive',
      'extract',
      { source: 'site/docs/a.txt', format: 'xz' },
      5,
      'format "xz" is not supported by Kubedag',
    ],
    ['a name that says no format', 'create', { source: 'site', destination: 'site.bin' }, 5, 'could not infer format'],
    ['create without destination', 'create', { source: 'site' }, 2, 'destination is required for create'],
    [
      'a password for create',
      'create',
      { source: 'site', destination: 'a.zip', password: 'x' },
      2,
      'password is only supported',
    ],
    [
      'a missing source',
      'list',
      { source: 'nope.zip' },
      3,
      'archive: source not found: stat nope.zip: no such file or directory',
    ],
    ['an operation Dagu lacks', 'append', { source: 'a' }, 2, 'unsupported archive operation "append"'],
  ])('fail for %s with Dagu exit code', async (_name, command, config, code, message) => {
    const result = await run(command, config);
    expect([result.code, result.err]).toEqual([code, expect.stringContaining(message)]);
  });

  it('read the camelCase keys of Dagu 1.24 archive steps too', async () => {
    const result = await run('list', { source: 'out/site.zip', stripComponents: 0, include: '**/*.html' });
    expect(result.json()).toMatchObject({ totalFiles: 1 });
  });
});

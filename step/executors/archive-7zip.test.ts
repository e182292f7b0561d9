import { copyFile, mkdir, readlink, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveSteps } from '../../test/archive-steps.ts';
import { temporaryDir } from '../../test/step-io.ts';
import { entryOf, parseListing, sevenZip } from './archive-7zip.ts';
import { formatByMagic, formatOf } from './archive-settings.ts';

/**
 * 7z and rar, which Kubedag (as Dagu) reads and does not write. The 7z archives are made here
 * by 7-Zip itself; no program on this machine writes rar, so the rar archives are test
 * fixtures (test/fixtures/archive/README.md says where they come from).
 */
let dir: { path: string; remove: () => Promise<void> };
const fixtures = join(import.meta.dirname, '../../test/fixtures/archive');

/** `7zz a` run in the test folder (mounted at /w), with the options given. */
async function make7z(archive: string, paths: readonly string[], options: readonly string[] = []): Promise<void> {
  const made = await sevenZip(
    ['a', '-t7z', ...options, `/w/${archive}`, ...paths.map((path) => `/w/${path}`)],
    { '/w': dir.path },
    new AbortController().signal,
  );
  expect(made.code).toBe(0);
}

beforeAll(async () => {
  dir = await temporaryDir('archive-7zip');
  await mkdir(join(dir.path, 'site/docs'), { recursive: true });
  await writeFile(join(dir.path, 'site/index.html'), '<h1>hi</h1>');
  await writeFile(join(dir.path, 'site/docs/a.txt'), 'alpha');
  await symlink('../index.html', join(dir.path, 'site/docs/home'));
  await make7z('site.7z', ['site'], ['-snl', '-pSECRET', '-mhe=on']);
  await mkdir(join(dir.path, 'evil'), { recursive: true });
  await writeFile(join(dir.path, 'evil/readme'), 'x');
  await symlink('../../outside', join(dir.path, 'evil/up'));
  await make7z('evil.7z', ['evil/readme', 'evil/up'], ['-snl']);
  for (const name of ['FolderTest.rar', 'HeaderEnc1234.rar'])
    await copyFile(join(fixtures, name), join(dir.path, name));
});

afterAll(async () => {
  await dir.remove();
});

const { run, read, exists } = archiveSteps(() => dir.path);
const paths = (json: Record<string, unknown>): string[] => (json.files as { path: string }[]).map((file) => file.path);

describe('archive.* with 7z (read only)', () => {
  it('lists and extracts an encrypted 7z with its password, keeping the link inside it', async () => {
    const listed = await run('list', { source: 'site.7z', password: 'SECRET' });
    expect([listed.code, listed.err]).toEqual([0, '']);
    expect(paths(listed.json())).toEqual(['site', 'site/docs', 'site/docs/a.txt', 'site/docs/home', 'site/index.html']);
    expect(listed.json()).toMatchObject({ totalFiles: 5, totalSize: 5 + 13 + 11 });

    const extracted = await run('extract', { source: 'site.7z', destination: 'out7z', password: 'SECRET' });
    expect([extracted.code, extracted.err]).toEqual([0, '']);
    expect(extracted.json()).toMatchObject({ filesExtracted: 3, bytesExtracted: 16 });
    expect(await read('out7z/site/docs/a.txt')).toBe('alpha');
    expect(await readlink(join(dir.path, 'out7z/site/docs/home'))).toBe('../index.html');
  });

  it('fails without the password, or with a wrong one, and writes nothing', async () => {
    const listed = await run('list', { source: 'site.7z' });
    expect([listed.code, listed.err]).toEqual([12, expect.stringContaining('Wrong password?')]);
    const extracted = await run('extract', { source: 'site.7z', destination: 'nopass', password: 'wrong' });
    expect([extracted.code, extracted.err]).toEqual([6, expect.stringContaining('Wrong password?')]);
    expect(await exists('nopass/site/docs/a.txt')).toBe(false);
  });

  it('knows a 7z by its bytes when its name says nothing', async () => {
    await copyFile(join(dir.path, 'site.7z'), join(dir.path, 'site.bin'));
    const listed = await run('list', { source: 'site.bin', password: 'SECRET' });
    expect([listed.code, listed.json().totalFiles]).toEqual([0, 5]);
  });

  it('fails on a link out of the destination as a corrupted archive (zip-slip) and writes nothing outside', async () => {
    const result = await run('extract', { source: 'evil.7z', destination: 'jail/inner' });
    expect([result.code, result.err]).toEqual([12, expect.stringContaining('symlink target "../../outside" escapes')]);
    expect([await exists('jail/inner/up'), await exists('outside')]).toEqual([false, false]);
  });

  it.each(['7z', 'rar'])('refuses to create a %s, as Dagu', async (format) => {
    const result = await run('create', { source: 'site', destination: `made.${format}`, format });
    expect([result.code, result.err]).toEqual([7, expect.stringContaining(`format ${format} cannot create archives`)]);
    expect(await exists(`made.${format}`)).toBe(false);
  });
});

describe('archive.* with rar (read only, fixtures)', () => {
  it('lists and extracts a rar made on Windows, names in UTF-8', async () => {
    const listed = await run('list', { source: 'FolderTest.rar', include: ['**/*.txt'] });
    expect(paths(listed.json())).toEqual(['Folder1/Folder Space/long.txt', 'Folder1/Folder 中文/2中文.txt']);
    expect(listed.json()).toMatchObject({ totalFiles: 2, totalSize: 1049076 + 15 });

    const extracted = await run('extract', { source: 'FolderTest.rar', destination: 'outrar', strip_components: 1 });
    expect([extracted.code, extracted.err]).toEqual([0, '']);
    expect(extracted.json()).toMatchObject({ filesExtracted: 2, bytesExtracted: 1049076 + 15 });
    expect(await read('outrar/Folder 中文/2中文.txt')).toBe('\uFEFF中文中文');
  });

  it('opens a rar whose names are encrypted only with its password', async () => {
    expect((await run('list', { source: 'HeaderEnc1234.rar' })).code).toBe(12);
    const extracted = await run('extract', { source: 'HeaderEnc1234.rar', destination: 'outenc', password: '1234' });
    expect([extracted.code, extracted.json().filesExtracted]).toEqual([0, 2]);
    expect(await read('outenc/1File.txt')).toBe('1File');
  });
});

describe('7-Zip listing records', () => {
  it.each([
    [
      'a Unix file',
      { Path: 'a/b.txt', Size: '6', Modified: '2026-11-29 16:37:17.7610000', Attributes: 'A -rw-r-----' },
      { name: 'a/b.txt', kind: 'file', size: 6, mode: 0o640, mtime: new Date('2026-11-29T16:37:17.761Z') },
    ],
    [
      'a Unix link',
      { Path: 'l', Size: '9', Modified: '2026-11-29 16:37:17', Attributes: 'A lrwxrwxrwx' },
      { name: 'l', kind: 'symlink', size: 9, mode: 0o777, mtime: new Date('2026-11-29T16:37:17Z') },
    ],
    [
      'a Windows folder',
      { Path: 'F\\G', Size: '0', Modified: '2017-04-06 12:34:10.7198040', Attributes: 'D' },
      { name: 'F/G', kind: 'dir', size: 0, mode: 0o755, mtime: new Date('2017-04-06T12:34:10.719Z') },
    ],
    [
      'a read-only Windows file without a time',
      { Path: 'r.txt', Size: '', Attributes: 'RA' },
      { name: 'r.txt', kind: 'file', size: 0, mode: 0o444, mtime: new Date(0) },
    ],
  ])('%s', (_name, record, entry) => {
    expect(entryOf(record)).toEqual(entry);
  });

  it('splits 7-Zip output into one record per Path', () => {
    const lines = ['Path = a', 'Size = 1', '', 'Path = b', 'Folder = +', 'Attributes = D', ''];
    expect(parseListing(lines)).toEqual([
      { Path: 'a', Size: '1' },
      { Path: 'b', Folder: '+', Attributes: 'D' },
    ]);
  });
});

describe('archive format names and bytes', () => {
  it.each([
    ['tbz2', 'tar.bz2'],
    ['TAR.BZ2', 'tar.bz2'],
    ['tbz', 'tar.bz2'],
    ['txz', 'tar.xz'],
    ['tar.xz', 'tar.xz'],
    ['7z', '7z'],
    ['rar', 'rar'],
  ])('format %s is %s', (name, format) => {
    expect(formatOf(name)).toBe(format);
  });

  it.each(['gz', 'bz2', 'xz', 'zst', 'lz4'])('a bare compressed file (%s) is refused by name', (name) => {
    expect(() => formatOf(name)).toThrow(`format "${name}" is not supported by Kubedag`);
  });

  it.each([
    ['zip', [0x50, 0x4b, 0x03, 0x04, 0x14]],
    ['7z', [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c, 0x00]],
    ['rar', [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07, 0x01, 0x00]],
    ['tar.xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
    ['tar.bz2', [0x42, 0x5a, 0x68, 0x39]],
    [undefined, [0x1f, 0x8b, 0x08]],
    [undefined, [0x37, 0x7a]],
  ])('bytes say %s', (format, bytes) => {
    expect(formatByMagic(Uint8Array.from(bytes))).toBe(format);
  });
});

/**
 * The archive formats 7-Zip (archive-7zip.ts) does for Kubedag: tar.xz and tar.bz2 (the tar
 * itself is node-tar's, as for every tar; 7-Zip only adds or takes off the compression) and
 * 7z and rar, read only, as Dagu's library reads them and writes neither. The work goes
 * through a scratch folder under the system's temporary folder, removed when the step is done
 * with it: the tar a tar.xz holds, or the files of a 7z or rar (extracted only when an entry's
 * content is asked for, so list and dry runs extract nothing).
 */
import { createReadStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import type { ArchiveEntry, EntryHandler } from './archive-entry.ts';
import { entryOf, mountOf, parseListing, sevenZip, sevenZipError } from './archive-7zip.ts';
import { within } from './archive-settings.ts';

/** Runs `work` with a fresh scratch folder, removed afterwards whatever happens. */
export async function withScratch<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await fs.mkdtemp(join(tmpdir(), 'kubedag-archive-'));
  try {
    return await work(dir);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

async function run(
  args: readonly string[],
  mounts: Readonly<Record<string, string>>,
  signal: AbortSignal,
): Promise<void> {
  const result = await sevenZip(args, mounts, signal);
  if (result.code !== 0) throw new Error(sevenZipError(result));
}

/**
 * 7-Zip creates an archive's links as links, and leaves out (with exit 2) one whose target
 * climbs (`..`) or is absolute. The caller makes links itself from their targets (read with
 * linkTargetOf) and refuses those that leave the destination with Kubedag's zip-slip message,
 * so a link left out here is no failure of the unpacking.
 */
async function unpackAll(
  source: string,
  password: string,
  mounts: Readonly<Record<string, string>>,
  signal: AbortSignal,
): Promise<void> {
  const result = await sevenZip(['x', `-p${password}`, '-o/scratch', source], mounts, signal);
  const errors = result.err.filter((line) => /^ERROR:/.test(line.trim()));
  const onlyLinks =
    errors.length > 0 && errors.every((line) => /Dangerous (symbolic )?link path was ignored/.test(line));
  if (result.code !== 0 && !onlyLinks) throw new Error(sevenZipError(result));
}

/** The target of a link entry, read from the archive (7-Zip writes it out as the entry's content). */
async function linkTargetOf(
  source: string,
  name: string,
  password: string,
  mounts: Readonly<Record<string, string>>,
  signal: AbortSignal,
): Promise<string> {
  const result = await sevenZip(['e', '-so', '-spd', `-p${password}`, source, name], mounts, signal);
  if (result.code !== 0) throw new Error(sevenZipError(result));
  return result.stdout.toString('utf8');
}

/** The tar inside a tar.xz or tar.bz2, written into `scratch`; its path. */
export async function decompressTar(path: string, scratch: string, signal: AbortSignal): Promise<string> {
  const source = mountOf(path, '/source');
  await run(['e', source.inside, '-o/scratch', '-p'], { ...source.mounts, '/scratch': scratch }, signal);
  const [name, ...more] = await fs.readdir(scratch);
  if (name === undefined || more.length > 0) throw new Error(`expected one compressed file in ${basename(path)}`);
  return join(scratch, name);
}

/**
 * Compresses the tar at `tar` into `file` (xz, or bzip2 at `level` 1 to 9 when one is given,
 * as Dagu passes compression_level to bzip2 and not to xz). 7-Zip adds to an archive that
 * exists, so it writes a new file beside `file`, renamed over it.
 */
export async function compressTar(
  tar: string,
  file: string,
  format: 'tar.xz' | 'tar.bz2',
  level: number,
  signal: AbortSignal,
): Promise<void> {
  const partial = join(dirname(file), `.${basename(file)}.kubedag-partial`);
  await fs.rm(partial, { force: true });
  const input = mountOf(tar, '/input');
  const output = mountOf(partial, '/output');
  const method = format === 'tar.xz' ? ['-txz'] : ['-tbzip2', ...(level > 0 ? [`-mx=${Math.min(level, 9)}`] : [])];
  try {
    await run(['a', ...method, output.inside, input.inside], { ...input.mounts, ...output.mounts }, signal);
    await fs.rename(partial, file);
  } finally {
    await fs.rm(partial, { force: true });
  }
}

/** A path 7-Zip extracted, checked to be inside the scratch folder even through links on the way. */
async function extracted(scratch: string, name: string): Promise<string> {
  const path = join(scratch, name);
  const real = await fs.realpath(path);
  if (!within(await fs.realpath(scratch), real)) throw new Error(`entry "${name}" was not extracted inside its folder`);
  return path;
}

/**
 * A 7z or rar, entry by entry in the archive's order. `password` goes to 7-Zip as written
 * (empty: none; an encrypted archive then fails with 7-Zip's "Wrong password?").
 */
export async function walkSevenZip(
  path: string,
  password: string,
  handle: EntryHandler,
  signal: AbortSignal,
): Promise<void> {
  const source = mountOf(path, '/source');
  const listing = await sevenZip(['l', '-slt', '-ba', `-p${password}`, source.inside], source.mounts, signal);
  if (listing.code !== 0) throw new Error(sevenZipError(listing));
  const entries = parseListing(listing.out).map(entryOf);
  await withScratch(async (scratch) => {
    let unpacked: Promise<void> | undefined;
    const unpack = (): Promise<void> =>
      (unpacked ??= unpackAll(source.inside, password, { ...source.mounts, '/scratch': scratch }, signal));
    for (const entry of entries) {
      signal.throwIfAborted();
      const content = async (): Promise<Readable> => {
        await unpack();
        return createReadStream(await extracted(scratch, entry.name));
      };
      const item: ArchiveEntry = {
        ...entry,
        ...(entry.kind === 'symlink'
          ? { linkTarget: await linkTargetOf(source.inside, entry.name, password, source.mounts, signal) }
          : {}),
        content,
        skip: () => undefined,
      };
      await handle(item);
    }
  });
}

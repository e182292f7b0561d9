/**
 * archive.create: a file, or a directory with everything below it, into a new archive. Names
 * in the archive are Dagu's (mholt/archives' FilesFromDisk): a file by its own name, a
 * directory's entries under the directory's name. include/exclude are matched against those
 * names entry by entry, so `**\/*.txt` keeps the text files of every folder without the
 * folders themselves.
 */
import * as fs from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { goError } from './file-result.ts';
import { goJson } from './s3-result.ts';
import { ArchiveFailure, formatByName, formatOf, matchesFilters, READ_ONLY_FORMATS } from './archive-settings.ts';
import { writeArchive, type DiskEntry } from './archive-formats.ts';
import { ensureDir, errno, took, verify, type Context } from './archive-read.ts';

/** One path on disk as an entry: links followed (their target's kind) or kept as links. */
async function diskEntry(path: string, name: string, follow: boolean): Promise<DiskEntry | undefined> {
  const stats = await (follow ? fs.stat : fs.lstat)(path);
  const kind = stats.isDirectory() ? 'dir' : stats.isSymbolicLink() ? 'symlink' : stats.isFile() ? 'file' : undefined;
  if (kind === undefined) return undefined;
  return {
    path,
    name,
    kind,
    mode: stats.mode & 0o7777,
    mtime: stats.mtime,
    ...(kind === 'symlink' ? { linkTarget: await fs.readlink(path) } : {}),
  };
}

/** The source and, for a directory, everything below it, sorted by name. */
async function entriesOf(source: string, follow: boolean): Promise<{ entries: DiskEntry[]; sizes: number[] }> {
  const root = await diskEntry(source, basename(source), true);
  if (root === undefined) return { entries: [], sizes: [] };
  if (root.kind !== 'dir') {
    const stats = await fs.stat(source);
    return { entries: [root], sizes: [stats.size] };
  }
  const names = (await fs.readdir(source, { recursive: true })).sort();
  const below = await Promise.all(names.map((name) => diskEntry(join(source, name), join(root.name, name), follow)));
  const entries = [root, ...below.filter((entry): entry is DiskEntry => entry !== undefined)];
  const sizes = await Promise.all(
    entries.map(async (entry) => (entry.kind === 'file' ? (await fs.stat(entry.path)).size : 0)),
  );
  return { entries, sizes };
}

export async function create(context: Context): Promise<void> {
  const { settings, io } = context;
  const source = context.at(settings.source);
  await fs.stat(source).catch((error: unknown) => {
    throw new ArchiveFailure('sourceNotFound', `stat ${settings.source}: ${goError(error)}`);
  });
  const destination = settings.destination === '' ? '' : context.at(settings.destination);
  if (!settings.dryRun) await ensureDir(context, dirname(destination));
  const formatName = settings.format.trim() === '' ? formatByName(destination) : settings.format;
  if (formatName === '') throw new ArchiveFailure('format', 'could not infer format; specify config.format');
  const format = formatOf(formatName);
  if (READ_ONLY_FORMATS.includes(format))
    throw new ArchiveFailure('create', `format ${format} cannot create archives (it is read only, as in Dagu)`);
  const all = await entriesOf(source, settings.followSymlinks).catch((error: unknown) => {
    throw new ArchiveFailure('create', goError(error));
  });
  const kept = all.entries
    .map((entry, i) => ({ entry, size: all.sizes[i] ?? 0 }))
    .filter(({ entry }) => matchesFilters(entry.name, settings.include, settings.exclude));
  if (!settings.dryRun) {
    await writeArchive(
      destination,
      format,
      dirname(source),
      kept.map(({ entry }) => entry),
      {
        level: settings.compressionLevel,
        follow: settings.followSymlinks,
        signal: io.signal,
      },
    ).catch((error: unknown) => {
      throw new ArchiveFailure(errno(error) === 'EACCES' ? 'permission' : 'create', goError(error));
    });
    if (settings.verifyIntegrity) await verify(destination, format, io.signal);
  }
  io.stdout.write(
    goJson({
      operation: 'create',
      source: settings.source,
      destination: settings.destination,
      filesAdded: kept.length,
      bytesArchived: kept.reduce((sum, { size }) => sum + size, 0),
      duration: took(context),
      verifyPerformed: settings.verifyIntegrity && !settings.dryRun,
    }),
  );
}

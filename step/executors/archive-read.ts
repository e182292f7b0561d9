/**
 * What archive.extract and archive.list share: the archive a step names and its format, the
 * integrity check that reads every entry, and archive.list itself (Dagu's listResult: the
 * entries sorted by path, as Go's fs.WalkDir visits them, with Go's mode and time strings).
 */
import * as fs from 'node:fs/promises';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { StepIO } from '../io.ts';
import { goError, goFileMode } from './file-result.ts';
import { goJson } from './s3-result.ts';
import { goDurationNs } from './archive-result.ts';
import {
  ArchiveFailure,
  formatByMagic,
  formatByName,
  formatOf,
  matchesFilters,
  type ArchiveFormat,
  type ArchiveSettings,
} from './archive-settings.ts';
import { walkArchive } from './archive-formats.ts';

export interface Context {
  readonly settings: ArchiveSettings;
  readonly io: StepIO;
  /** A path of the settings resolved against the step's working directory. */
  readonly at: (raw: string) => string;
  readonly started: bigint;
}

export const took = (context: Context): string => goDurationNs(process.hrtime.bigint() - context.started);
export const errno = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

/** The format written, else the one the archive's name says (extract and list read tar's compression from its bytes). */
function formatFor(settings: ArchiveSettings, path: string): ArchiveFormat {
  if (settings.format.trim() !== '') return formatOf(settings.format);
  const named = formatByName(path);
  if (named === '') {
    if (settings.operation === 'create')
      throw new ArchiveFailure('format', 'could not infer format; specify config.format');
    // Without a name to go by, the first bytes tell (sourceArchive) and anything else is read as a tar.
    return 'tar';
  }
  return formatOf(named);
}

async function sniff(path: string): Promise<ArchiveFormat | undefined> {
  const handle = await fs.open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(8), 0, 8, 0);
    return formatByMagic(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

export async function sourceArchive(context: Context): Promise<{ path: string; format: ArchiveFormat }> {
  const path = context.at(context.settings.source);
  const stats = await fs.stat(path).catch((error: unknown) => {
    throw new ArchiveFailure('sourceNotFound', `stat ${context.settings.source}: ${goError(error)}`);
  });
  if (stats.isDirectory()) throw new ArchiveFailure('config', 'source must be a file');
  const format = formatFor(context.settings, path);
  // Without with.format the bytes decide when they are clear (Dagu's Identify reads them too).
  return { path, format: (context.settings.format.trim() === '' ? await sniff(path) : undefined) ?? format };
}

export async function ensureDir(context: Context, path: string): Promise<void> {
  if (context.settings.dryRun) return;
  await fs.mkdir(path, { recursive: true, mode: 0o755 }).catch((error: unknown) => {
    throw new ArchiveFailure(errno(error) === 'EACCES' ? 'permission' : 'destination', goError(error));
  });
}

/** Reads every entry to its end: a damaged archive fails here, before anything is written. */
export async function verify(path: string, format: ArchiveFormat, signal: AbortSignal, password = ''): Promise<void> {
  await walkArchive(
    path,
    format,
    async (entry) => {
      if (entry.kind !== 'file') {
        entry.skip();
        return;
      }
      // Reading to the end is the check: a bad checksum or a short entry fails the stream.
      await pipeline(
        await entry.content(),
        new Writable({
          write: (_chunk, _encoding, next) => {
            next();
          },
        }),
      );
    },
    signal,
    password,
  ).catch((error: unknown) => {
    throw new ArchiveFailure('corrupted', goError(error));
  });
}

const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;

export async function list(context: Context): Promise<void> {
  const { settings, io } = context;
  const { path, format } = await sourceArchive(context);
  if (settings.verifyIntegrity) await verify(path, format, io.signal, settings.password);
  const entries: { path: string; size: number; mode: string; modTime: string; isDir: boolean }[] = [];
  await walkArchive(
    path,
    format,
    (entry) => {
      entry.skip();
      const name = entry.name.replace(/^\.\//, '').replace(/\/+$/, '');
      if (name === '' || name === '.') return Promise.resolve();
      const type = entry.kind === 'dir' ? S_IFDIR : entry.kind === 'symlink' ? S_IFLNK : S_IFREG;
      entries.push({
        path: name,
        size: entry.size,
        mode: goFileMode(type | entry.mode),
        modTime: entry.mtime.toISOString().replace(/\.000Z$/, 'Z'),
        isDir: entry.kind === 'dir',
      });
      return Promise.resolve();
    },
    io.signal,
    settings.password,
  ).catch((error: unknown) => {
    throw new ArchiveFailure('corrupted', goError(error));
  });
  const kept = entries
    .filter((entry) => matchesFilters(entry.path, settings.include, settings.exclude))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  io.stdout.write(
    goJson({
      operation: 'list',
      source: settings.source,
      totalFiles: kept.length,
      totalSize: kept.filter((entry) => !entry.isDir).reduce((sum, entry) => sum + entry.size, 0),
      files: kept,
      verified: settings.verifyIntegrity,
      duration: took(context),
    }),
  );
}

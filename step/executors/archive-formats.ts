/**
 * Reading and writing the archive formats Kubedag's archive executor takes: zip with yauzl
 * (reading) and yazl (writing), tar plain, gzip- or zstd-compressed with node-tar, and with
 * 7-Zip's WebAssembly (archive-7zip-formats.ts) the xz and bzip2 around a tar, and 7z and rar
 * (read only). Each entry is handed to the caller one at a time, in archive order, with its
 * content as a stream; the caller decides where it goes (archive.ts checks every path first).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Pack, Parser, type ReadEntry } from 'tar';
import yauzl from 'yauzl';
import yazl from 'yazl';
import type { ArchiveEntry, EntryHandler } from './archive-entry.ts';
import type { ArchiveFormat } from './archive-settings.ts';
import { compressTar, decompressTar, walkSevenZip, withScratch } from './archive-7zip-formats.ts';

const S_IFMT = 0o170000;

function tarKind(type: string): ArchiveEntry['kind'] {
  if (type === 'File' || type === 'OldFile' || type === 'ContiguousFile') return 'file';
  if (type === 'Directory') return 'dir';
  if (type === 'SymbolicLink') return 'symlink';
  return 'other';
}

/** A tar, compressed or not: node-tar's parser recognises gzip and zstd by their magic bytes. */
async function walkTar(path: string, handle: EntryHandler, signal: AbortSignal): Promise<void> {
  let chain = Promise.resolve();
  let failure: Error | undefined;
  const parser = new Parser({
    noResume: true,
    onReadEntry: (entry: ReadEntry) => {
      chain = chain.then(async () => {
        if (failure !== undefined) {
          entry.resume();
          return;
        }
        await handle({
          name: entry.path,
          kind: tarKind(entry.type),
          size: entry.size,
          mode: (entry.mode ?? 0) & 0o7777,
          mtime: entry.mtime ?? new Date(0),
          ...(entry.linkpath === undefined ? {} : { linkTarget: entry.linkpath }),
          content: () => Promise.resolve(Readable.from(entry)),
          skip: () => {
            entry.resume();
          },
        }).catch((error: unknown) => {
          failure = error instanceof Error ? error : new Error(String(error));
          entry.resume();
        });
      });
    },
  });
  await pipeline(createReadStream(path), parser, { signal });
  await chain;
  if (failure !== undefined) throw failure;
}

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: true, validateEntrySizes: true }, (error, zip) => {
      if (error !== null) reject(error);
      else resolve(zip);
    });
  });
}

function zipKind(entry: yauzl.Entry): ArchiveEntry['kind'] {
  const type = (entry.externalFileAttributes >>> 16) & S_IFMT;
  if (entry.fileName.endsWith('/') || type === 0o040000) return 'dir';
  if (type === 0o120000) return 'symlink';
  return 'file';
}

async function zipContent(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error !== null) reject(error);
      else resolve(stream);
    });
  });
}

async function textOf(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A zip: yauzl refuses absolute names and `..` in them itself, a second guard beside archive.ts's. */
async function walkZip(path: string, handle: EntryHandler, signal: AbortSignal): Promise<void> {
  const zip = await openZip(path);
  await new Promise<void>((resolve, reject) => {
    const stop = (error: unknown): void => {
      zip.close();
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    signal.addEventListener(
      'abort',
      () => {
        stop(signal.reason);
      },
      { once: true },
    );
    zip.on('error', stop);
    zip.on('end', resolve);
    zip.on('entry', (entry: yauzl.Entry) => {
      const kind = zipKind(entry);
      const mode = (entry.externalFileAttributes >>> 16) & 0o7777;
      const read = async (): Promise<ArchiveEntry> => ({
        name: entry.fileName,
        kind,
        size: entry.uncompressedSize,
        mode,
        mtime: entry.getLastModDate(),
        ...(kind === 'symlink' ? { linkTarget: await textOf(await zipContent(zip, entry)) } : {}),
        content: () => zipContent(zip, entry),
        skip: () => undefined,
      });
      read()
        .then(handle)
        .then(() => {
          zip.readEntry();
        }, stop);
    });
    zip.readEntry();
  });
}

/** `password` opens an encrypted 7z or rar; the other formats do not use it, as in Dagu. */
export async function walkArchive(
  path: string,
  format: ArchiveFormat,
  handle: EntryHandler,
  signal: AbortSignal,
  password = '',
): Promise<void> {
  if (format === 'zip') return walkZip(path, handle, signal);
  if (format === '7z' || format === 'rar') return walkSevenZip(path, password, handle, signal);
  if (format === 'tar.xz' || format === 'tar.bz2')
    return withScratch(async (scratch) => walkTar(await decompressTar(path, scratch, signal), handle, signal));
  return walkTar(path, handle, signal);
}

/** What goes into a new archive: a path on disk and its name inside. */
export interface DiskEntry {
  readonly path: string;
  readonly name: string;
  readonly kind: 'file' | 'dir' | 'symlink';
  readonly mode: number;
  readonly mtime: Date;
  readonly linkTarget?: string;
}

async function writeZip(file: string, entries: readonly DiskEntry[], level: number): Promise<void> {
  const zip = new yazl.ZipFile();
  const done = pipeline(zip.outputStream, createWriteStream(file));
  const compress = level < 0 ? {} : { compressionLevel: Math.min(level, 9) };
  for (const entry of entries) {
    const options = { mtime: entry.mtime, mode: entry.mode };
    if (entry.kind === 'dir') zip.addEmptyDirectory(entry.name, options);
    else if (entry.kind === 'symlink')
      zip.addBuffer(Buffer.from(entry.linkTarget ?? ''), entry.name, { ...options, mode: 0o120000 | entry.mode });
    else zip.addFile(entry.path, entry.name, { ...options, ...compress });
  }
  zip.end();
  await done;
}

/** The entries are named relative to `cwd` (the source's parent), as node-tar packs them. */
async function writeTar(
  file: string,
  cwd: string,
  entries: readonly DiskEntry[],
  format: ArchiveFormat,
  options: { readonly level: number; readonly follow: boolean },
): Promise<void> {
  const { level, follow } = options;
  const compression =
    format === 'tar.gz'
      ? { gzip: level < 0 ? true : { level: Math.min(level, 9) } }
      : format === 'tar.zst'
        ? { zstd: true }
        : {};
  const pack = new Pack({ cwd, noDirRecurse: true, follow, ...compression });
  const done = pipeline(pack, createWriteStream(file));
  for (const entry of entries) pack.add(entry.name);
  pack.end();
  await done;
}

export async function writeArchive(
  file: string,
  format: ArchiveFormat,
  cwd: string,
  entries: readonly DiskEntry[],
  options: { readonly level: number; readonly follow: boolean; readonly signal: AbortSignal },
): Promise<void> {
  if (format === 'zip') await writeZip(file, entries, options.level);
  else if (format === '7z' || format === 'rar')
    // Dagu's library writes neither (archive.create checks this before anything is read).
    throw new Error(`format ${format} cannot create archives`);
  else if (format === 'tar.xz' || format === 'tar.bz2') {
    const compression = format;
    await withScratch(async (scratch) => {
      const tar = join(scratch, 'archive.tar');
      await writeTar(tar, cwd, entries, 'tar', options);
      await compressTar(tar, file, compression, options.level, options.signal);
    });
  } else await writeTar(file, cwd, entries, format, options);
}

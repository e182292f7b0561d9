/**
 * file.copy and file.move, as Dagu v2.15.1 does them: a directory only with `recursive` and
 * never into itself; symlinks copied as links (the top-level source followed with
 * `follow_symlinks`); an existing destination file kept unless `overwrite`, and then replaced
 * atomically (a temporary file renamed over it); `create_dirs` makes missing parents. A move is
 * a rename, or across file systems a copy and a delete.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { goError } from './file-result.ts';
import type { FileSettings } from './file-settings.ts';

export interface CopyStats {
  readonly files: number;
  readonly directories: number;
  readonly bytes: number;
}

type Flags = Pick<FileSettings, 'overwrite' | 'createDirs' | 'followSymlinks' | 'recursive'>;

const errno = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

/** Whether `child` is `parent` or inside it (symlinks of the existing part resolved). */
export async function insideOrSame(parent: string, child: string): Promise<boolean> {
  const real = async (path: string): Promise<string> => {
    const missing: string[] = [];
    let current = resolve(path);
    for (;;) {
      try {
        return join(await fs.realpath(current), ...missing.reverse());
      } catch (error) {
        if (errno(error) !== 'ENOENT' || dirname(current) === current) return resolve(path);
        missing.push(current.slice(dirname(current).length).replace(/^\//, ''));
        current = dirname(current);
      }
    }
  };
  const rel = relative(await real(parent), await real(child));
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !rel.startsWith(sep));
}

export async function copyPath(
  source: string,
  destination: string,
  recursive: boolean,
  flags: Flags,
): Promise<CopyStats> {
  const what = `file copy ${source} to ${destination}`;
  const info = await (flags.followSymlinks ? fs.stat : fs.lstat)(source).catch((error: unknown) => {
    throw new Error(`${what}: ${goError(error)}`);
  });
  const from = flags.followSymlinks ? await fs.realpath(source) : source;
  if (from === destination) throw new Error(`${what}: source and destination must differ`);
  if (info.isDirectory()) {
    if (!recursive) throw new Error(`${what}: recursive is required to copy a directory`);
    if (await insideOrSame(from, destination)) throw new Error(`${what}: destination must not be inside source`);
    return copyDir(from, destination, flags);
  }
  return { files: 1, directories: 0, bytes: await copyLeaf(from, destination, info, flags) };
}

async function ensureDir(path: string, mode: number): Promise<void> {
  try {
    if (!(await fs.stat(path)).isDirectory())
      throw new Error(`file copy: destination ${path} exists and is not a directory`);
  } catch (error) {
    if (errno(error) !== 'ENOENT') throw error;
    await fs.mkdir(path, { recursive: true, mode });
  }
}

async function copyDir(source: string, destination: string, flags: Flags): Promise<CopyStats> {
  await ensureDir(destination, (await fs.stat(source)).mode & 0o777);
  let files = 0;
  let directories = 0;
  let bytes = 0;
  // Sorted, so that a directory comes before what it holds, as a walk visits them.
  for (const name of (await fs.readdir(source, { recursive: true })).sort()) {
    const info = await fs.lstat(join(source, name));
    if (info.isDirectory()) {
      await ensureDir(join(destination, name), info.mode & 0o777);
      directories++;
    } else {
      bytes += await copyLeaf(join(source, name), join(destination, name), info, flags);
      files++;
    }
  }
  return { files, directories, bytes };
}

async function copyLeaf(
  source: string,
  destination: string,
  info: Awaited<ReturnType<typeof fs.lstat>>,
  flags: Flags,
): Promise<number> {
  const what = `file copy ${source} to ${destination}`;
  if (flags.createDirs) await fs.mkdir(dirname(destination), { recursive: true, mode: 0o750 });
  if (info.isSymbolicLink()) {
    const target = await fs.readlink(source);
    const exists = await fs.lstat(destination).then(
      () => true,
      () => false,
    );
    if (exists && !flags.overwrite) throw new Error(`${what}: destination exists`);
    if (exists) await fs.rm(destination, { recursive: true, force: true });
    await fs.symlink(target, destination);
    return 0;
  }
  if (!info.isFile()) throw new Error(`${what}: source must be a regular file or directory`);
  const mode = Number(info.mode) & 0o777;
  const target = flags.overwrite ? join(dirname(destination), `.${process.pid}.${Date.now()}.tmp`) : destination;
  try {
    await pipeline(createReadStream(source), createWriteStream(target, { flags: 'wx', mode }));
    if (flags.overwrite) {
      await fs.chmod(target, mode);
      await fs.rename(target, destination);
    }
  } catch (error) {
    if (flags.overwrite) await fs.rm(target, { force: true });
    throw new Error(`${what}: ${flags.overwrite ? 'replace destination' : 'open destination'}: ${goError(error)}`, {
      cause: error,
    });
  }
  return Number(info.size);
}

export async function movePath(source: string, destination: string, flags: Flags): Promise<void> {
  const what = `file move ${source} to ${destination}`;
  if (flags.createDirs) await fs.mkdir(dirname(destination), { recursive: true, mode: 0o750 });
  const info = await fs.lstat(source).catch((error: unknown) => {
    throw new Error(`${what}: stat source: ${goError(error)}`);
  });
  if (!flags.overwrite) {
    const exists = await fs.lstat(destination).then(
      () => true,
      (error: unknown) => {
        if (errno(error) === 'ENOENT') return false;
        throw new Error(`${what}: stat destination: ${goError(error)}`);
      },
    );
    if (exists) throw new Error(`${what}: destination exists`);
  }
  try {
    await fs.rename(source, destination);
  } catch (error) {
    if (errno(error) !== 'EXDEV') throw new Error(`${what}: ${goError(error)}`, { cause: error });
    await moveAcross(source, destination, info.isDirectory(), flags);
  }
}

/** A rename across file systems: a copy, then the source deleted. */
async function moveAcross(source: string, destination: string, isDir: boolean, flags: Flags): Promise<void> {
  if (isDir && !flags.recursive)
    throw new Error(
      `file move ${source} to ${destination}: recursive is required to move a directory across filesystems`,
    );
  await copyPath(source, destination, isDir, { ...flags, followSymlinks: false });
  await fs.rm(source, { recursive: true });
}

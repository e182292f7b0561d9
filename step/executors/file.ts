/**
 * Dagu 2.x's file executor, as v2.15.1 runs it (internal/runtime/builtin/file): the command is
 * the operation, the settings (file-settings.ts) say on what; each operation but a raw read
 * writes one JSON line (file-result.ts). It works in the step Pod's file system: the run's
 * workspace volume is where steps share files. Errors fail the step with Dagu's wording
 * (`file copy a to b: destination exists`).
 */
import { createReadStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import { dirname, join, matchesGlob, relative } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import type { StepIO } from '../io.ts';
import { goError, infoResult, pathInfo, resultLine, type FileResult, type PathInfo } from './file-result.ts';
import { fileSettings, resolvePath, type FileSettings } from './file-settings.ts';
import { copyPath, movePath } from './file-copy.ts';

type Operation = (settings: FileSettings, at: (raw: string) => string, io: StepIO) => Promise<FileResult | undefined>;

const errno = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

const failed = (what: string, error: unknown): Error => new Error(`${what}: ${goError(error)}`, { cause: error });

const stat: Operation = async (settings, at) => {
  const path = at(settings.path);
  try {
    const stats = await (settings.followSymlinks ? fs.stat : fs.lstat)(path, { bigint: true });
    return { ...infoResult('stat', path, stats), exists: true };
  } catch (error) {
    if (errno(error) === 'ENOENT' && settings.missingOk) return { operation: 'stat', path, exists: false };
    throw failed(`file stat ${path}`, error);
  }
};

const read: Operation = async (settings, at, io) => {
  const path = at(settings.path);
  const stats = await fs.stat(path, { bigint: true }).catch((error: unknown) => {
    throw failed(`file read ${path}`, error);
  });
  if (stats.isDirectory()) throw new Error(`file read ${path}: cannot read a directory`);
  if (settings.maxBytes > 0 && stats.size > BigInt(settings.maxBytes))
    throw new Error(`file read ${path}: file size ${stats.size} exceeds max_bytes ${settings.maxBytes}`);
  if (settings.format === 'json') {
    const data = await fs.readFile(path, 'utf8');
    return { ...infoResult('read', path, stats), content: data, bytes: Buffer.byteLength(data) };
  }
  await pipeline(createReadStream(path), io.stdout, { end: false });
  return undefined;
};

const write: Operation = async (settings, at) => {
  const path = at(settings.path);
  const data = Buffer.from(settings.content ?? '');
  const mode = settings.mode ?? 0o600;
  if (settings.dryRun) return { operation: 'write', path, bytes: data.length, dryRun: true, created: false };
  if (settings.createDirs)
    await fs.mkdir(dirname(path), { recursive: true, mode: 0o750 }).catch((error: unknown) => {
      throw failed(`file write ${path}: create parent directories`, error);
    });
  try {
    if (!settings.overwrite) await fs.writeFile(path, data, { flag: 'wx', mode });
    else if (settings.atomic) await writeAtomic(path, data, mode);
    else await fs.writeFile(path, data, { mode });
  } catch (error) {
    throw failed(`file write ${path}`, error);
  }
  return { operation: 'write', path, bytes: data.length, created: true };
};

/** A temporary file beside the destination, renamed over it: readers see the old file or the new one. */
async function writeAtomic(path: string, data: Buffer, mode: number): Promise<void> {
  const temporary = join(dirname(path), `.${path.split('/').pop() ?? 'file'}.tmp.${process.pid}.${Date.now()}`);
  try {
    await fs.writeFile(temporary, data, { flag: 'wx', mode });
    await fs.chmod(temporary, mode);
    await fs.rename(temporary, path);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw error;
  }
}

const copy: Operation = async (settings, at) => {
  const source = at(settings.source);
  const destination = at(settings.destination);
  if (source === destination)
    throw new Error(`file copy ${source} to ${destination}: source and destination must differ`);
  if (settings.dryRun) return { operation: 'copy', source, destination, dryRun: true, copied: false };
  const stats = await copyPath(source, destination, settings.recursive, settings);
  return { operation: 'copy', source, destination, ...stats, copied: true };
};

const move: Operation = async (settings, at) => {
  const source = at(settings.source);
  const destination = at(settings.destination);
  if (source === destination)
    throw new Error(`file move ${source} to ${destination}: source and destination must differ`);
  if (settings.dryRun) return { operation: 'move', source, destination, dryRun: true, moved: false };
  await movePath(source, destination, settings);
  return { operation: 'move', source, destination, moved: true };
};

const remove: Operation = async (settings, at) => {
  const path = at(settings.path);
  if (path === '/') throw new Error(`file delete ${path}: refusing to delete filesystem root`);
  let isDir: boolean;
  try {
    isDir = (await fs.lstat(path)).isDirectory();
  } catch (error) {
    if (errno(error) === 'ENOENT' && settings.missingOk) return { operation: 'delete', path, deleted: false };
    throw failed(`file delete ${path}`, error);
  }
  if (isDir && !settings.recursive) throw new Error(`file delete ${path}: recursive is required to delete a directory`);
  if (settings.dryRun) return { operation: 'delete', path, dryRun: true, deleted: false };
  await (isDir ? fs.rm(path, { recursive: true }) : fs.unlink(path)).catch((error: unknown) => {
    throw failed(`file delete ${path}`, error);
  });
  return { operation: 'delete', path, deleted: true };
};

const mkdir: Operation = async (settings, at) => {
  const path = at(settings.path);
  if (settings.dryRun) return { operation: 'mkdir', path, dryRun: true, created: false };
  await fs.mkdir(path, { recursive: true, mode: settings.mode ?? 0o750 }).catch((error: unknown) => {
    throw failed(`file mkdir ${path}`, error);
  });
  return { operation: 'mkdir', path, created: true };
};

/** Whether a listed entry is kept: directories only with include_dirs, and only those the pattern matches. */
export function listed(entry: PathInfo, settings: Pick<FileSettings, 'includeDirs' | 'pattern'>): boolean {
  if (entry.isDir && !settings.includeDirs) return false;
  return settings.pattern.trim() === '' || matchesGlob(entry.path, settings.pattern.trim());
}

const list: Operation = async (settings, at) => {
  const root = at(settings.path);
  const stats = await fs.stat(root).catch((error: unknown) => {
    throw failed(`file list ${root}`, error);
  });
  if (!stats.isDirectory()) throw new Error(`file list ${root}: path must be a directory`);
  const names = await fs.readdir(root, { recursive: settings.recursive });
  const entries = await Promise.all(
    names.map(async (name) =>
      pathInfo(relative(root, join(root, name)), await fs.lstat(join(root, name), { bigint: true })),
    ),
  );
  const kept = entries
    .filter((entry) => listed(entry, settings))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { operation: 'list', path: root, entries: kept, files: kept.filter((entry) => entry.type === 'file').length };
};

const OPERATIONS: Readonly<Record<string, Operation>> = {
  stat,
  read,
  write,
  copy,
  move,
  delete: remove,
  mkdir,
  list,
};

export async function runFile(spec: ExecutorSpec, io: StepIO): Promise<number> {
  const settings = fileSettings(spec, io.env);
  const operation = OPERATIONS[settings.operation];
  if (operation === undefined) throw new Error(`file: unsupported operation "${settings.operation}"`);
  io.signal.throwIfAborted();
  const result = await operation(settings, (raw) => resolvePath(raw, io.cwd, io.env.HOME), io);
  if (result !== undefined) io.stdout.write(resultLine(result));
  return 0;
}

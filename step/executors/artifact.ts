/**
 * Dagu 2.x's artifact executor, as v2.15.1 runs it (internal/runtime/builtin/artifact): `list`,
 * `read` and `write` over the run's artifacts directory, DAG_RUN_ARTIFACTS_DIR, which the
 * operator gives every step of a run that keeps artifacts. Paths are relative to that
 * directory and never leave it, through `..` or through a symbolic link. A file this step
 * writes is new in the directory, so the Pod's shell runner sends it to the log store like any
 * file a command leaves there (docs/decisions/2026-11-29-run-artifacts.md). Results are Dagu's
 * JSON lines, paths relative to the directory; errors fail the step with Dagu's wording.
 */
import { createReadStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import type { StepIO } from '../io.ts';
import { goError, infoResult, pathInfo, resultLine, type FileResult } from './file-result.ts';
import { artifactSettings, configError, type ArtifactSettings } from './artifact-settings.ts';
import { listed } from './file.ts';

const errno = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

const inside = (root: string, path: string): boolean => path === root || path.startsWith(`${root}${sep}`);

/** The directory, created if missing, with its symbolic links resolved. */
async function prepareRoot(env: Readonly<Record<string, string>>): Promise<string> {
  const raw = (env.DAG_RUN_ARTIFACTS_DIR ?? '').trim();
  if (raw === '') throw configError('DAG_RUN_ARTIFACTS_DIR is not set; enable artifacts for this DAG');
  await fs.mkdir(raw, { recursive: true, mode: 0o750 });
  return fs.realpath(raw);
}

/** The nearest part of a path that exists, resolved: what a write below it would really reach. */
async function nearestExisting(path: string): Promise<string> {
  for (let at = path; ; at = dirname(at)) {
    try {
      return await fs.realpath(at);
    } catch (error) {
      if (errno(error) !== 'ENOENT' || dirname(at) === at) throw error;
    }
  }
}

async function existingInside(root: string, rel: string): Promise<string> {
  const resolved = await fs.realpath(rel === '.' ? root : join(root, rel)).catch((error: unknown) => {
    throw new Error(`artifact: ${rel}: ${goError(error)}`, { cause: error });
  });
  if (!inside(root, resolved)) throw configError(`path "${rel}" escapes artifact directory`);
  return resolved;
}

type Operation = (settings: ArtifactSettings, root: string, io: StepIO) => Promise<FileResult | undefined>;

const write: Operation = async (settings, root) => {
  const rel = settings.path;
  const target = join(root, rel);
  if (!inside(root, await nearestExisting(target))) throw configError(`path "${rel}" escapes artifact directory`);
  const existed = await fs.lstat(target).then(
    () => true,
    () => false,
  );
  await fs.mkdir(dirname(target), { recursive: true, mode: 0o750 }).catch((error: unknown) => {
    throw new Error(`artifact write ${rel}: create parent directories: ${goError(error)}`, { cause: error });
  });
  if (!inside(root, await nearestExisting(target))) throw configError(`path "${rel}" escapes artifact directory`);
  const data = Buffer.from(settings.content);
  try {
    if (!settings.overwrite) await fs.writeFile(target, data, { flag: 'wx', mode: settings.mode });
    else {
      // Atomic (Dagu's only way to overwrite): a temporary file beside it, renamed over it.
      const temporary = join(dirname(target), `.${rel.split('/').pop() ?? 'artifact'}.tmp.${String(process.pid)}`);
      await fs.writeFile(temporary, data, { mode: settings.mode });
      await fs.chmod(temporary, settings.mode);
      await fs.rename(temporary, target);
    }
  } catch (error) {
    throw new Error(`artifact write ${rel}: ${goError(error)}`, { cause: error });
  }
  return { operation: 'write', path: rel, bytes: data.length, created: !existed };
};

const read: Operation = async (settings, root, io) => {
  const rel = settings.path;
  const target = await existingInside(root, rel);
  const stats = await fs.stat(target, { bigint: true });
  if (stats.isDirectory()) throw new Error(`artifact read ${rel}: cannot read a directory`);
  if (settings.maxBytes > 0 && stats.size > BigInt(settings.maxBytes))
    throw new Error(
      `artifact read ${rel}: file size ${String(stats.size)} exceeds max_bytes ${String(settings.maxBytes)}`,
    );
  if (settings.format === 'raw') {
    await pipeline(createReadStream(target), io.stdout, { end: false });
    return undefined;
  }
  const data = await fs.readFile(target, 'utf8');
  return { ...infoResult('read', rel, stats), exists: true, content: data, bytes: Buffer.byteLength(data) };
};

const list: Operation = async (settings, root) => {
  const rel = settings.path;
  const target = await existingInside(root, rel);
  if (!(await fs.stat(target)).isDirectory()) throw new Error(`artifact list ${rel}: path must be a directory`);
  const names = await fs.readdir(target, { recursive: settings.recursive });
  // Entries are named from the directory's root, whatever part of it is listed (as in Dagu).
  const entries = await Promise.all(
    names.map(async (name) =>
      pathInfo(
        relative(root, join(target, name)).split(sep).join('/'),
        await fs.lstat(join(target, name), { bigint: true }),
      ),
    ),
  );
  const kept = entries
    .filter((entry) => listed(entry, settings))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { operation: 'list', path: rel, entries: kept, files: kept.filter((entry) => entry.type === 'file').length };
};

const OPERATIONS: Readonly<Record<ArtifactSettings['operation'], Operation>> = { list, read, write };

export async function runArtifact(spec: ExecutorSpec, io: StepIO): Promise<number> {
  const settings = artifactSettings(spec, io.env);
  io.signal.throwIfAborted();
  const root = await prepareRoot(io.env);
  const result = await OPERATIONS[settings.operation](settings, root, io);
  if (result !== undefined) io.stdout.write(resultLine(result));
  return 0;
}

/**
 * Dagu 2.x's archive executor, as v2.15.1 runs it (internal/runtime/builtin/archive/): create
 * an archive of a file or directory, extract one, list one, and write what was done as JSON.
 * Formats: zip, tar, tar.gz, tar.zst, tar.bz2 and tar.xz both ways, 7z and rar read only
 * (archive-formats.ts); a bare compressed file is refused by name. Every entry's path is checked before anything is written: a name or a
 * symbolic link that would land outside the destination fails the step as a corrupted archive
 * (zip-slip). Paths resolve against the step's working directory, the run's workspace.
 */
import { createWriteStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import type { StepIO } from '../io.ts';
import { goError } from './file-result.ts';
import { resolvePath } from './file-settings.ts';
import { goJson } from './s3-result.ts';
import { ArchiveFailure, archivePath, archiveSettings, matchesFilters, targetOf, within } from './archive-settings.ts';
import type { ArchiveEntry } from './archive-entry.ts';
import { walkArchive } from './archive-formats.ts';
import { ensureDir, errno, list, sourceArchive, took, verify, type Context } from './archive-read.ts';
import { create } from './archive-create.ts';

interface Tally {
  files: number;
  bytes: number;
  skipped: number;
}

/** One entry of an extraction: where it goes is checked first, then it is written (or counted, on a dry run). */
async function extractEntry(context: Context, root: string, entry: ArchiveEntry, tally: Tally): Promise<void> {
  const { settings } = context;
  const rel = archivePath(entry.name, settings.stripComponents, settings.preservePaths);
  if (rel === '' || !matchesFilters(rel, settings.include, settings.exclude)) {
    if (rel === '' && entry.kind !== 'dir')
      context.io.stderr.write('archive step warning: skipping unnamed file in archive\n');
    if (entry.kind !== 'dir' || rel !== '') tally.skipped++;
    entry.skip();
    return;
  }
  const target = targetOf(root, rel);
  if (entry.kind === 'dir') {
    entry.skip();
    return ensureDir(context, target);
  }
  await ensureDir(context, dirname(target));
  if (settings.dryRun) {
    tally.files++;
    tally.bytes += entry.size;
    entry.skip();
    return;
  }
  if (
    !settings.overwrite &&
    (await fs.lstat(target).then(
      () => true,
      () => false,
    ))
  )
    throw new ArchiveFailure('destination', `destination "${target}" exists (overwrite disabled)`);
  if (entry.kind === 'symlink') return extractLink(root, target, entry, tally);
  if (entry.kind !== 'file') {
    entry.skip();
    return;
  }
  const written = await pipeline(await entry.content(), createWriteStream(target, { mode: entry.mode || 0o644 })).then(
    () => fs.stat(target),
    (error: unknown) => {
      throw new ArchiveFailure(errno(error) === 'EACCES' ? 'permission' : 'extract', goError(error));
    },
  );
  tally.files++;
  tally.bytes += written.size;
}

/** A link inside the destination is made relative to where it is; one pointing out of it, or absolute, fails. */
async function extractLink(root: string, target: string, entry: ArchiveEntry, tally: Tally): Promise<void> {
  entry.skip();
  const link = entry.linkTarget ?? '';
  if (link === '') throw new ArchiveFailure('corrupted', 'empty symlink target');
  if (link.startsWith('/')) throw new ArchiveFailure('corrupted', `symlink target "${link}" is absolute`);
  const resolved = resolve(dirname(target), link);
  if (!within(root, resolved)) throw new ArchiveFailure('corrupted', `symlink target "${link}" escapes destination`);
  await fs.rm(target, { force: true });
  await fs.symlink(relative(dirname(target), resolved), target).catch((error: unknown) => {
    throw new ArchiveFailure(errno(error) === 'EACCES' ? 'permission' : 'destination', goError(error));
  });
  tally.files++;
}

async function extract(context: Context): Promise<void> {
  const { settings, io } = context;
  const { path, format } = await sourceArchive(context);
  if (settings.verifyIntegrity) await verify(path, format, io.signal, settings.password);
  const root = context.at(settings.destination === '' ? '.' : settings.destination);
  await ensureDir(context, root);
  const tally: Tally = { files: 0, bytes: 0, skipped: 0 };
  const errors: string[] = [];
  await walkArchive(
    path,
    format,
    (entry) =>
      extractEntry(context, root, entry, tally).catch((error: unknown) => {
        if (!settings.continueOnError) throw error;
        entry.skip();
        errors.push((error as Error).message);
        io.stderr.write(`archive step warning: continuing after error: ${(error as Error).message}\n`);
      }),
    io.signal,
    settings.password,
  ).catch((error: unknown) => {
    if (error instanceof ArchiveFailure) throw error;
    throw new ArchiveFailure('extract', goError(error));
  });
  io.stdout.write(
    goJson({
      operation: 'extract',
      source: settings.source,
      destination: settings.destination,
      filesExtracted: tally.files,
      bytesExtracted: tally.bytes,
      filesSkipped: tally.skipped,
      duration: took(context),
      ...(errors.length === 0 ? {} : { errors }),
      verifyPerformed: settings.verifyIntegrity,
    }),
  );
}

/** The step: Dagu's exit code of the failure's kind (2 configuration, 3 source, 4 destination, 5 format, 6 extract, 7 create, 12 corrupted). */
export async function runArchive(spec: ExecutorSpec, io: StepIO): Promise<number> {
  const started = process.hrtime.bigint();
  try {
    const settings = archiveSettings(spec, io.env);
    const context: Context = { settings, io, started, at: (raw) => resolvePath(raw, io.cwd, io.env.HOME) };
    io.signal.throwIfAborted();
    await (settings.operation === 'extract' ? extract : settings.operation === 'create' ? create : list)(context);
    return 0;
  } catch (error) {
    if (io.signal.aborted || !(error instanceof ArchiveFailure)) throw error;
    io.stderr.write(`kubedag-step: ${error.message.replace(/\s*\n\s*/g, ' ')}\n`);
    return error.exitCode;
  }
}

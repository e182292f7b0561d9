/**
 * Running `archive.*` steps in a test's directory, as the step runner would, and reading what
 * they left there: what the archive tests (zip/tar and 7-Zip's formats) share.
 */
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExecutorSpec } from '../core/runner/spec.ts';
import { runArchive } from '../step/executors/archive.ts';
import { captureIO } from './step-io.ts';

export interface ArchiveRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
  readonly json: () => Record<string, unknown>;
}

export interface ArchiveSteps {
  /** Runs `archive.<command>` with `config` (the step's `with`) in the directory. */
  readonly run: (command: string, config: Record<string, unknown>) => Promise<ArchiveRun>;
  readonly read: (path: string) => Promise<string>;
  readonly exists: (path: string) => Promise<boolean>;
}

/** `cwd` is asked at each call: the directory is usually made in a beforeAll. */
export function archiveSteps(cwd: () => string): ArchiveSteps {
  return {
    run: async (command, config) => {
      const io = captureIO({ cwd: cwd() });
      const spec: ExecutorSpec = { type: 'archive', command, config };
      const code = await runArchive(spec, io);
      return { code, out: io.out(), err: io.err(), json: () => JSON.parse(io.out()) as Record<string, unknown> };
    },
    read: (path) => readFile(join(cwd(), path), 'utf8'),
    exists: (path) =>
      lstat(join(cwd(), path)).then(
        () => true,
        () => false,
      ),
  };
}

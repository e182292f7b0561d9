/**
 * What executor tests share: a StepIO that keeps stdout and stderr apart as text, and a
 * temporary directory that is removed afterwards.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { StepIO } from '../step/io.ts';

export interface CapturedIO extends StepIO {
  readonly out: () => string;
  readonly err: () => string;
  readonly stop: () => void;
}

/** `signal`: a stop the test controls itself; else `stop()` aborts. */
export function captureIO(
  options: { readonly env?: Record<string, string>; readonly cwd?: string; readonly signal?: AbortSignal } = {},
): CapturedIO {
  const chunks = { out: [] as Buffer[], err: [] as Buffer[] };
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (chunk: Buffer) => chunks.out.push(chunk));
  stderr.on('data', (chunk: Buffer) => chunks.err.push(chunk));
  const controller = new AbortController();
  return {
    stdout,
    stderr,
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    signal: options.signal ?? controller.signal,
    out: () => Buffer.concat(chunks.out).toString('utf8'),
    err: () => Buffer.concat(chunks.err).toString('utf8'),
    stop: () => {
      controller.abort();
    },
  };
}

export async function temporaryDir(
  prefix: string,
): Promise<{ readonly path: string; readonly remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), `kubedag-${prefix}-`));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

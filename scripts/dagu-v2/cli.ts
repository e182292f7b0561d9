/**
 * Dagu v2.15.1's own CLI against Kubedag: `dagu validate` over Kubedag's 2.x fixtures (a file
 * Kubedag reads as 2.x must pass Dagu's validate too), and the CLI's remote context (`dagu
 * context add --server .../api/v1`), through which `start`, `enqueue`, `status`, `history` and `stop` talk to a
 * server's /api/v1 instead of running anything locally. DAGU_HOME is a directory of its own, so
 * the user's Dagu configuration is neither read nor changed.
 */
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Check } from './drive.ts';

const run = promisify(execFile);

interface Outcome {
  code: number;
  output: string;
}

async function dagu(bin: string, home: string, args: string[]): Promise<Outcome> {
  const env = { ...process.env, DAGU_HOME: home };
  try {
    const { stdout, stderr } = await run(bin, args, { env, timeout: 120_000 });
    // Dagu logs warnings on stderr (no auth.mode in its own empty home): the answer is stdout's.
    return { code: 0, output: (stdout.trim() === '' ? stderr : stdout).trim() };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}`.trim() };
  }
}

function lastLine(text: string): string {
  return (
    text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .pop() ?? ''
  );
}

/** One check per file: Dagu's `validate` exit status and its last line when it refused. */
export async function validateFixtures(bin: string, files: readonly string[]): Promise<Check[]> {
  const home = await mkdtemp(join(tmpdir(), 'dagu-home-'));
  const checks: Check[] = [];
  for (const file of files) {
    const outcome = await dagu(bin, home, ['validate', file]);
    const detail = outcome.code === 0 ? 'valid' : lastLine(outcome.output);
    checks.push({ name: `dagu validate ${file}`, ok: outcome.code === 0, detail });
  }
  return checks;
}

export interface RemoteOptions {
  bin: string;
  /** Kubedag's API server origin; the context points at its /api/v1. */
  api: string;
  /** Sent as the bearer token; any text when Kubedag's authentication is off. */
  token: string;
  dag: string;
}

/** `context add`, then `start`, `status`, `enqueue`, `history` and `stop` of a DAG through the remote context. */
export async function remoteContext(options: RemoteOptions): Promise<Check[]> {
  const home = await mkdtemp(join(tmpdir(), 'dagu-home-'));
  const ctx = ['--context', 'kubedag'];
  const steps: [string, string[]][] = [
    ['context add', ['context', 'add', 'kubedag', '--server', `${options.api}/api/v1`, '--api-key', options.token]],
    ['context test (GET /auth/me)', ['context', 'test', 'kubedag']],
    ['start', ['start', ...ctx, options.dag]],
    ['status', ['status', ...ctx, options.dag]],
    ['enqueue', ['enqueue', ...ctx, options.dag]],
    ['history', ['history', ...ctx, options.dag]],
    // Stops every active run of the DAG: start's (its middle step sleeps) and enqueue's.
    ['stop', ['stop', ...ctx, options.dag]],
  ];
  const checks: Check[] = [];
  for (const [name, args] of steps) {
    const outcome = await dagu(options.bin, home, args);
    checks.push({ name: `dagu ${name}`, ok: outcome.code === 0, detail: lastLine(outcome.output) });
  }
  return checks;
}

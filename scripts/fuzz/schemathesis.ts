/**
 * One schemathesis run against a fuzz stack (stack.ts): every check, the phases asked for, a
 * fixed seed, the served document; scripts/fuzz/schemathesis.toml holds what is configured per
 * operation and why. The `st` comes from scripts/ensure-schemathesis.sh.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { seedConfig } from './seed-config.ts';
import type { SeededRun } from './seeded-run.ts';

const root = join(import.meta.dirname, '../..');

export const PHASES = ['examples', 'coverage', 'fuzzing', 'stateful'] as const;
export type Phase = (typeof PHASES)[number];

export interface FuzzRun {
  readonly origin: string;
  /** Which API's served document is run: Dagu 1.24's /api/v2 (the default) or Dagu 2.x's /api/v1. */
  readonly api?: 'v1' | 'v2';
  /** Sent as a Bearer token when given. */
  readonly token?: string;
  readonly seed: number;
  /** Test cases per operation and phase at most (schemathesis's --max-examples). */
  readonly maxExamples: number;
  readonly phases?: readonly Phase[];
  /** Only the operations whose `METHOD /path` matches (schemathesis's --include-name-regex). */
  readonly operations?: string;
  /** The stack's seeded run: its ids are bound to the parameters of the operations that read it. */
  readonly seeded?: SeededRun;
  /** Where the JUnit report and the log go; a fresh temporary directory by default. */
  readonly reportDir?: string;
  /** Each line schemathesis prints, as it prints it. */
  readonly onLine?: (line: string) => void;
}

export interface FuzzResult {
  readonly exitCode: number;
  readonly output: string;
  readonly reportDir: string;
  readonly junit: string;
  readonly seconds: number;
}

/** The `st` of the pinned schemathesis, installed when missing. */
export async function schemathesisBinary(): Promise<string> {
  const { stdout } = await promisify(execFile)(join(root, 'scripts/ensure-schemathesis.sh'), { maxBuffer: 1 << 20 });
  return stdout.trim();
}

/** The checked-in configuration, plus the seeded run's bindings when there is one. */
async function configFile(run: FuzzRun, reportDir: string): Promise<string> {
  const checkedIn = join(root, 'scripts/fuzz/schemathesis.toml');
  if (run.seeded === undefined) return checkedIn;
  const path = join(reportDir, 'schemathesis.toml');
  await writeFile(path, (await readFile(checkedIn, 'utf8')) + seedConfig(run.seeded));
  return path;
}

export function schemathesisArgs(run: FuzzRun, reportDir: string, config: string): string[] {
  return [
    '--config-file',
    config,
    'run',
    `${run.origin}/api/${run.api ?? 'v2'}/openapi.json`,
    '--checks',
    'all',
    '--phases',
    (run.phases ?? PHASES).join(','),
    '--max-examples',
    String(run.maxExamples),
    '--seed',
    String(run.seed),
    ...(run.token === undefined ? [] : ['--header', `Authorization: Bearer ${run.token}`]),
    ...(run.operations === undefined ? [] : ['--include-name-regex', run.operations]),
    // One worker: the machine is small, and the cluster's state then follows one order.
    '--workers',
    '1',
    '--report',
    'junit,json,ndjson',
    '--report-dir',
    reportDir,
    '--report-junit-path',
    join(reportDir, 'junit.xml'),
    '--report-json-path',
    join(reportDir, 'report.json'),
    '--report-ndjson-path',
    join(reportDir, 'events.ndjson'),
    '--no-color',
  ];
}

export async function runSchemathesis(run: FuzzRun): Promise<FuzzResult> {
  const st = await schemathesisBinary();
  const reportDir = run.reportDir ?? (await mkdtemp(join(tmpdir(), 'kubedag-fuzz-report-')));
  // It is schemathesis's working directory too, so it must exist before the spawn.
  await mkdir(reportDir, { recursive: true });
  const started = Date.now();
  // Run from the report directory: anything schemathesis or Hypothesis keeps on disk lands there, not in the work tree.
  const child = spawn(st, schemathesisArgs(run, reportDir, await configFile(run, reportDir)), {
    cwd: reportDir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', COLUMNS: '160' },
  });
  let output = '';
  let partial = '';
  const take = (chunk: Buffer): void => {
    const text = chunk.toString();
    output += text;
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) run.onLine?.(line);
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  const exitCode = await new Promise<number>((resolve) =>
    child.once('close', (code) => {
      resolve(code ?? 1);
    }),
  );
  if (partial !== '') run.onLine?.(partial);
  const junit = await readFile(join(reportDir, 'junit.xml'), 'utf8').catch(() => '');
  return { exitCode, output, reportDir, junit, seconds: (Date.now() - started) / 1000 };
}

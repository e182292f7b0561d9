/**
 * What the scale benchmark's phases share (bench/scale.bench.ts): process memory from /proc,
 * the operator's and etcd's Prometheus figures, request timings, and the operator bundled and
 * started as the chart runs it. Figures, not assertions: nothing here decides pass or fail.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { signalAndWait, waitFor } from '../cluster/processes.ts';
import { chartOperatorLaunch } from '../build/bundles.ts';

export const namespace = 'default';

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** The sum of a metric's samples (all label sets) from a Prometheus text endpoint. */
export async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

/** A process's resident set (VmRSS) in bytes, or 0 once it has gone. Linux only, as the cluster is. */
export function rssOf(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    return Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/**
 * A settled RSS: what a process holds once startup garbage has been collected, as
 * bench-operator measures idle memory (wait, then the median of samples over a few seconds).
 */
export async function settledRss(pid: number | undefined, settleMs = 10_000): Promise<number> {
  await sleep(settleMs);
  const samples: number[] = [];
  for (let i = 0; i < 25; i += 1) {
    samples.push(rssOf(pid));
    await sleep(200);
  }
  return percentile(samples, 50);
}

export const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
export const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

export interface Timed {
  readonly p50: number;
  readonly bytes: number;
  readonly status: number;
}

/**
 * p50 of `repeat` sequential GETs (milliseconds) and the answer's size. Sequential on purpose:
 * the targets are one user's wait, not throughput, and the machine is shared.
 */
export async function timeGet(url: string, repeat: number): Promise<Timed> {
  const times: number[] = [];
  let bytes = 0;
  let status = 0;
  for (let i = 0; i < repeat; i += 1) {
    const start = performance.now();
    const response = await fetch(url);
    bytes = (await response.arrayBuffer()).byteLength;
    times.push(performance.now() - start);
    status = response.status;
  }
  return { p50: percentile(times, 50), bytes, status };
}

export interface BenchOperator {
  readonly url: string;
  readonly process: ChildProcess;
  /** From spawn to the log line that says the runs informer has synced, and to /readyz. */
  readonly syncedMs: number;
  readonly readyMs: number;
  /** Error lines it logged (the last 50), to tell why a run stuck. */
  readonly errors: () => readonly string[];
  stop(): Promise<void>;
}

export interface OperatorSettings {
  readonly bundle: string;
  readonly kubeconfig: string;
  readonly logDir: string;
  readonly port: number;
  /** More flags (the history store's). */
  readonly extraArgs?: readonly string[];
}

/**
 * The bundled operator with the chart's flags, malloc cap and Lease duration (bench-operator
 * shortens the Lease to 5 s; under a big run's load that one exited with code 1, so this
 * benchmark keeps the chart's 10 s).
 */
export async function startBenchOperator(settings: OperatorSettings, syncTimeoutMs = 600_000): Promise<BenchOperator> {
  const launch = chartOperatorLaunch();
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...launch.flags,
      settings.bundle,
      `--kubeconfig=${settings.kubeconfig}`,
      `--log-dir=${settings.logDir}`,
      `--http-port=${String(settings.port)}`,
      ...(settings.extraArgs ?? []),
    ],
    { env: { ...process.env, ...launch.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // An operator that dies mid-run (out of memory, a crash) says so on stderr: pass it on.
  child.stderr.on('data', (chunk: Buffer) => void process.stderr.write(`[operator] ${chunk.toString()}`));
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (!stopping)
      process.stderr.write(
        `[bench-scale] the operator exited (${String(code ?? signal)}); its last lines:\n${last.join('\n')}\n`,
      );
  });
  // Only the tail of its log is kept: a stuck run makes it log a refused write per reconcile.
  let tail = '';
  let synced = false;
  const errors: string[] = [];
  // Its last lines of any level: why it exited, when it exits on its own.
  const last: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = `${tail}${chunk.toString()}`.split('\n');
    tail = lines.pop() ?? '';
    for (const line of lines) {
      last.push(line.slice(0, 600));
      if (line.includes('informer runs synced')) synced = true;
      if (line.includes('"level":50') || line.includes('"level":40')) errors.push(line.slice(0, 600));
    }
    if (errors.length > 50) errors.splice(0, errors.length - 50);
    if (last.length > 10) last.splice(0, last.length - 10);
  });
  const url = `http://127.0.0.1:${String(settings.port)}`;
  await waitFor('the operator informers', () => Promise.resolve(synced), syncTimeoutMs, 50);
  const syncedMs = performance.now() - started;
  await waitFor('the operator to be ready', () => fetch(`${url}/readyz`).then((r) => r.ok), 60_000, 50);
  const readyMs = performance.now() - started;
  return {
    url,
    process: child,
    syncedMs,
    readyMs,
    errors: () => [...errors],
    stop: () => {
      // An exit from here on was asked for: not worth the last lines on stderr.
      stopping = true;
      return signalAndWait(child);
    },
  };
}

/** etcd's own figures from its client URL (no TLS on the local control plane). */
export async function etcdDbBytes(etcdClientPort: number | undefined): Promise<number> {
  if (etcdClientPort === undefined) return NaN;
  return metric(`http://127.0.0.1:${String(etcdClientPort)}`, 'etcd_mvcc_db_total_size_in_bytes');
}

/** Items of `items` through `work`, `concurrency` at a time. */
export async function pool<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const index = next;
        next += 1;
        await work(items[index] as T, index);
      }
    }),
  );
}

/** A markdown table, first column left-aligned, the rest right-aligned. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const format = (cells: readonly string[]): string =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ')} |`;
  return [
    format(header),
    `|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`,
    ...rows.map(format),
  ].join('\n');
}

/**
 * What the queue benchmark (queue.bench.ts) prints about one capacity: admission latency from
 * the runs' status times and from this process's watch, split at the admission loop's hand-off,
 * the cost of one decision, and the operator's and the machine's CPU.
 */
import { availableParallelism } from 'node:os';
import { RunStatus } from '../core/resources/status.ts';
import type { DagRunResource } from '../core/resources/types.ts';
import { queueName } from '../core/resources/queue.ts';
import { dagCapacity, decideQueue } from '../operator/run/decide/admission.ts';

/** What this process's watch saw of one run, in its own clock (ms). */
export interface Seen {
  handedOffSeen?: number;
  /** The admission loop's own timestamp, copied while the watch could still see it. */
  handedOffAt?: string;
  queuedSeen?: number;
  runningSeen?: number;
  finishedSeen?: number;
  finishedAt?: string;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

const ms = (v: number): string => (Number.isNaN(v) ? '-' : `${String(Math.round(v))} ms`);

export function summary(values: readonly number[]): string {
  if (values.length === 0) return 'no samples';
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return `p50 ${ms(percentile(values, 50))}, p90 ${ms(percentile(values, 90))}, p99 ${ms(percentile(values, 99))}, max ${ms(Math.max(...values))}, mean ${ms(mean)} (n ${String(values.length)})`;
}

export function metric(text: string, name: string): number {
  return text
    .split('\n')
    .filter((line) => line.startsWith(name) && !line.startsWith('#'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

/**
 * The (i+C)-th start against the i-th finish, both sorted; only finishes at or after `from`.
 * Negative pairs (a start before the finish it is paired with) are counted, not kept.
 */
function rankLatencies(
  finishes: readonly number[],
  starts: readonly number[],
  capacity: number,
  from = -Infinity,
): { values: number[]; negatives: number } {
  const f = [...finishes].sort((a, b) => a - b);
  const s = [...starts].sort((a, b) => a - b);
  const values: number[] = [];
  let negatives = 0;
  for (let i = 0; i + capacity < s.length && i < f.length; i += 1) {
    const finish = f[i] ?? NaN;
    if (finish < from) continue;
    const latency = (s[i + capacity] ?? NaN) - finish;
    if (latency < 0) negatives += 1;
    else if (!Number.isNaN(latency)) values.push(latency);
  }
  return { values, negatives };
}

/** Most runs between startedAt and finishedAt at one moment: the capacity really held. */
function peakRunning(runs: readonly DagRunResource[]): number {
  const events = runs
    .flatMap((r) => [
      [Date.parse(r.status?.startedAt ?? ''), 1],
      [Date.parse(r.status?.finishedAt ?? ''), -1],
    ])
    .filter(([t]) => !Number.isNaN(t))
    .sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0) || (a[1] ?? 0) - (b[1] ?? 0));
  let now = 0;
  let peak = 0;
  for (const [, delta] of events) {
    now += delta ?? 0;
    peak = Math.max(peak, now);
  }
  return peak;
}

/** The operator's state over the wait: work-queue depth and event-loop delay, once a second. */
export interface Samples {
  maxDepth: number;
  readonly lagMean: number[];
  readonly lagP99: number[];
  lagMax: number;
}

export interface Timings {
  readonly first: number;
  readonly lastCreate: number;
  readonly samples: Samples;
  readonly cpuBefore: Map<string, number>;
  readonly cpuAfter: Map<string, number>;
  readonly machineBefore: { busy: number; total: number };
  readonly machineAfter: { busy: number; total: number };
  readonly metricsBefore: string;
  readonly metricsAfter: string;
}

const times = (values: readonly (string | number | undefined)[]): number[] =>
  values.map((v) => (typeof v === 'number' ? v : Date.parse(v ?? ''))).filter((v) => !Number.isNaN(v));
/** Per run b - a, both ISO strings or ms; runs missing either are left out. */
const diffs = (pairs: readonly [string | number | undefined, string | number | undefined][]): number[] =>
  pairs.map(([a, b]) => (times([b])[0] ?? NaN) - (times([a])[0] ?? NaN)).filter((v) => !Number.isNaN(v));

export function report(
  seenBy: ReadonlyMap<string, Seen>,
  capacity: number,
  runs: readonly DagRunResource[],
  t: Timings,
): void {
  const seen = runs.map((r) => seenBy.get(`${r.metadata?.namespace ?? ''}/${r.metadata?.name ?? ''}`) ?? {});
  // A run given up after its hand-off (never started) freed a slot it never ran in: its finish
  // is left out of the pairing, which would otherwise shift every later pair by one.
  const finishes = times(runs.map((r) => (r.status?.startedAt === undefined ? undefined : r.status.finishedAt)));
  const starts = times(runs.map((r) => r.status?.startedAt));
  const lastFinish = Math.max(...finishes);
  const byStatus = Object.entries(Object.groupBy(runs, (r) => r.status?.statusLabel ?? 'none')).map(
    ([k, v]) => `${k} ${String(v?.length ?? 0)}`,
  );
  const queued = times(seen.map((s) => s.queuedSeen));
  console.log(
    `capacity ${String(capacity)}, ${String(runs.length)} runs (${byStatus.join(', ')}); ${String(queued.length)} went through status 5 (queued); ${String(runs.length - starts.length)} never started; peak running by status times ${String(peakRunning(runs))}`,
  );
  console.log(
    `  throughput ${(runs.length / ((lastFinish - t.first) / 60_000)).toFixed(0)} runs/min (first create -> last finish ${((lastFinish - t.first) / 1000).toFixed(1)} s); last create -> last finish ${((lastFinish - t.lastCreate) / 1000).toFixed(1)} s; last run queued ${((Math.max(...queued) - t.first) / 1000).toFixed(1)} s after the first create`,
  );
  const all = rankLatencies(finishes, starts, capacity);
  const steady = rankLatencies(finishes, starts, capacity, Math.max(...queued));
  console.log(
    `  ADMISSION LATENCY, status times (finishedAt_i -> startedAt_i+C): ${summary(all.values)}; ${String(all.negatives)} negative dropped  [target p50 <= 100 ms]`,
  );
  console.log(
    `    only finishes after every run was queued (the operator's creation backlog done): ${summary(steady.values)}; ${String(steady.negatives)} negative dropped`,
  );
  const watched = rankLatencies(
    times(seen.map((s) => (s.runningSeen === undefined ? undefined : s.finishedSeen))),
    times(seen.map((s) => s.runningSeen)),
    capacity,
  );
  console.log(
    `  cross-check, as this process's watch saw them (finished seen -> status 1 seen): ${summary(watched.values)}; ${String(watched.negatives)} negative dropped`,
  );
  reportHops(runs, seen, capacity);
  console.log(
    `  run itself, startedAt -> finishedAt (Pod created, scheduled, run, seen terminated): ${summary(diffs(runs.map((r) => [r.status?.startedAt, r.status?.finishedAt])))}`,
  );
  reportDecisionCost(runs, capacity);
  reportOperator(t);
}

/** The latency in hops; a hop's "seen" is this process's watch, a proxy for the operator's own. */
function reportHops(runs: readonly DagRunResource[], seen: readonly Seen[], capacity: number): void {
  const finishes = times(runs.map((r) => r.status?.finishedAt));
  const handoffs = rankLatencies(finishes, times(seen.map((s) => s.handedOffAt)), capacity);
  const admission = rankLatencies(
    times(seen.map((s) => s.finishedSeen)),
    times(seen.map((s) => s.handedOffAt)),
    capacity,
  );
  console.log(
    `  split 1, finishedAt_i -> handedOffAt_i+C (finish written, admission loop sees it and decides): ${summary(handoffs.values)}; ${String(handoffs.negatives)} negative`,
  );
  console.log(
    `    1a finishedAt -> finish seen on a watch (the reconcile's write, watch delivery): ${summary(diffs(runs.map((r, i) => [r.status?.finishedAt, seen[i]?.finishedSeen])))}`,
  );
  console.log(
    `    1b finish seen_i -> handedOffAt_i+C (admission work queue and decision): ${summary(admission.values)}; ${String(admission.negatives)} negative`,
  );
  console.log(
    `  split 2, handedOffAt -> startedAt, same run (hand-off written, run reconciler sees it, reconciles): ${summary(diffs(runs.map((r, i) => [seen[i]?.handedOffAt, r.status?.startedAt])))}`,
  );
  console.log(
    `    2a handedOffAt -> hand-off seen on a watch (the write, watch delivery): ${summary(diffs(seen.map((s) => [s.handedOffAt, s.handedOffSeen])))}`,
  );
  console.log(
    `    2b hand-off seen -> startedAt (run work queue, reconcile up to its decision): ${summary(diffs(runs.map((r, i) => [seen[i]?.handedOffSeen, r.status?.startedAt])))}`,
  );
  console.log(
    `  after: startedAt -> status 1 seen on a watch: ${summary(diffs(runs.map((r, i) => [r.status?.startedAt, seen[i]?.runningSeen])))}`,
  );
}

/**
 * CPU of one admission decision as operator/queue/loop.ts makes it with the whole queue
 * waiting: the member filter, the DAG capacity and decideQueue, over these runs put back in it.
 */
function reportDecisionCost(runs: readonly DagRunResource[], capacity: number): void {
  const members: DagRunResource[] = runs.map((r) => ({
    ...r,
    status: { status: RunStatus.Queued, statusLabel: 'queued', queuedAt: r.status?.startedAt ?? '' },
  }));
  const name = members[0] === undefined ? '' : queueName(members[0]);
  const rounds = 20;
  const started = performance.now();
  for (let i = 0; i < rounds; i += 1) {
    const open = members.filter((r) => queueName(r) === name && r.status?.finishedAt === undefined);
    decideQueue(open, dagCapacity(open), new Date());
  }
  console.log(
    `  one admission decision with ${String(members.length)} runs waiting (in this process, capacity ${String(capacity)} free): ${((performance.now() - started) / rounds).toFixed(1)} ms CPU`,
  );
}

function reportOperator(t: Timings): void {
  const delta = (name: string): number => metric(t.metricsAfter, name) - metric(t.metricsBefore, name);
  const reconciles = delta('kubedag_reconcile_duration_seconds_count');
  const writes = t.metricsAfter
    .split('\n')
    .filter((l) => l.startsWith('kubedag_api_writes_total{'))
    .map((l) => {
      const verb = /verb="([^"]+)"/.exec(l)?.[1] ?? '?';
      return `${verb} ${String(Number(l.split(' ').at(-1)) - metric(t.metricsBefore, `kubedag_api_writes_total{verb="${verb}"}`))}`;
    });
  console.log(
    `  operator: ${String(reconciles)} run reconciles, mean ${ms((delta('kubedag_reconcile_duration_seconds_sum') / Math.max(1, reconciles)) * 1000)} (awaits included); work queue depth max ${String(t.samples.maxDepth)}; API writes ${writes.join(', ')}; RSS ${(metric(t.metricsAfter, 'process_resident_memory_bytes') / 1024 / 1024).toFixed(0)} MiB`,
  );
  console.log(
    `  operator event-loop delay, per 1 s window: mean of window means ${ms(t.samples.lagMean.reduce((a, b) => a + b, 0) / Math.max(1, t.samples.lagMean.length))}, median window p99 ${ms(percentile(t.samples.lagP99, 50))}, max ${ms(t.samples.lagMax)}`,
  );
  const wall = (Date.now() - t.first) / 1000;
  const cpu = [...t.cpuAfter]
    .map(([name, after]) => [name, (after - (t.cpuBefore.get(name) ?? 0)) / wall] as const)
    .sort((a, b) => b[1] - a[1]);
  const machine =
    (t.machineAfter.busy - t.machineBefore.busy) / Math.max(1, t.machineAfter.total - t.machineBefore.total);
  console.log(
    `  CPU over the scenario, in cores (node agents include their step processes): ${cpu.map(([n, c]) => `${n} ${c.toFixed(2)}`).join(', ')}; whole machine ${(machine * 100).toFixed(0)} % busy of ${String(availableParallelism())} cores`,
  );
}

/**
 * Queue admission benchmark on a fresh local control plane (figures, not a test): 1,000 runs
 * created with `spec.enqueue` against one DAG of capacity C (maxActiveRuns), nearly all of them
 * waiting in its queue; admission latency = capacity freed (a run's finishedAt) -> the next
 * queued run started (its startedAt). Target (issue 6): p50 <= 100 ms.
 *
 * Runs start in queue order, so the (i+C)-th start is the one the i-th finish made room for:
 * latency_i = s_{i+C} - f_i over the sorted start and finish times. The same pairing is done
 * on the times this process's watch saw them (a cross-check), and split at the admission
 * loop's hand-off (status.handedOffAt, seen on the watch before the start clears it).
 *
 * Run with `make bench-queue`. Settings: BENCH_QUEUE_RUNS (1000), BENCH_QUEUE_CAPACITIES
 * (comma list, "10"), BENCH_QUEUE_STEP (the one step's command, "true"; "sleep 1" keeps the
 * machine below saturation so that the figure is admission rather than CPU contention),
 * BENCH_QUEUE_TIMEOUT_S (1800 per capacity), BENCH_OPERATOR_LOG (a file for the operator's
 * output), BENCH_PROFILE (a directory for the operator's --cpu-prof).
 * Timings on a 2-core machine that also runs the control plane and every step process are
 * noisy; compare runs of this script with each other.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api } from '@kubernetes/client-node';
import { kubedagClients, type KubedagClients } from '../core/kube/client.ts';
import { loadDag } from '../core/dag/index.ts';
import { Informer } from '../core/kube/informer.ts';
import { dagManifest } from '../core/resources/dag.ts';
import { RunStatus } from '../core/resources/status.ts';
import type { DagRunResource } from '../core/resources/types.ts';
import { ensureBinaries } from '../cluster/binaries.ts';
import { startCluster, stopCluster } from '../cluster/cluster.ts';
import type { ClusterState } from '../cluster/controlplane.ts';
import { freePort, waitFor } from '../cluster/processes.ts';
import { queueName } from '../core/resources/queue.ts';
import { dagCapacity, decideQueue } from '../operator/run/decide/admission.ts';
import { kubeConfig } from '../cluster/setup.ts';

const env = process.env;
const RUNS = Number(env.BENCH_QUEUE_RUNS ?? 1000);
const CAPACITIES = (env.BENCH_QUEUE_CAPACITIES ?? '10').split(',').map(Number);
const STEP = env.BENCH_QUEUE_STEP ?? 'true';
const TIMEOUT_MS = Number(env.BENCH_QUEUE_TIMEOUT_S ?? 1800) * 1000;
const IN_FLIGHT = 32;

/** What this process's watch saw of one run, in its own clock (ms). */
interface Seen {
  handedOffSeen?: number;
  /** The admission loop's own timestamp, copied while the watch could still see it. */
  handedOffAt?: string;
  queuedSeen?: number;
  runningSeen?: number;
  finishedSeen?: number;
  finishedAt?: string;
}

interface Context {
  readonly state: ClusterState;
  readonly kube: KubedagClients;
  readonly core: CoreV1Api;
  readonly url: string;
  readonly operator: ChildProcess;
  readonly seen: Map<string, Seen>;
  readonly runs: Informer<DagRunResource>;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

const ms = (v: number): string => (Number.isNaN(v) ? '-' : `${String(Math.round(v))} ms`);

function summary(values: readonly number[]): string {
  if (values.length === 0) return 'no samples';
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return `p50 ${ms(percentile(values, 50))}, p90 ${ms(percentile(values, 90))}, p99 ${ms(percentile(values, 99))}, max ${ms(Math.max(...values))}, mean ${ms(mean)} (n ${String(values.length)})`;
}

async function metricsText(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text();
}

function metric(text: string, name: string): number {
  return text
    .split('\n')
    .filter((line) => line.startsWith(name) && !line.startsWith('#'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

/** CPU seconds of a process and its waited-for children (utime, stime, cutime, cstime). */
function cpuSeconds(pid: number): number {
  try {
    const fields =
      readFileSync(`/proc/${String(pid)}/stat`, 'utf8')
        .split(') ')[1]
        ?.split(' ') ?? [];
    return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0) / 100;
  } catch {
    return NaN;
  }
}

function cpuSnapshot(ctx: Context): Map<string, number> {
  const named: [string, number][] = [
    ['operator', ctx.operator.pid ?? -1],
    ['bench (this process)', process.pid],
    ...ctx.state.processes.map((p): [string, number] => [p.name, p.pid]),
  ];
  return new Map(named.map(([name, pid]) => [name, cpuSeconds(pid)]));
}

/** At most `limit` calls in flight. */
async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
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

/** Records, per run, when this process first saw each transition. */
function record(seen: Map<string, Seen>, run: DagRunResource): void {
  const id = `${run.metadata?.namespace ?? ''}/${run.metadata?.name ?? ''}`;
  const entry = seen.get(id) ?? {};
  seen.set(id, entry);
  const now = Date.now();
  const status = run.status ?? {};
  if (status.status === RunStatus.Queued) entry.queuedSeen ??= now;
  if (status.status === RunStatus.Running) entry.runningSeen ??= now;
  if (status.status === undefined && status.handedOffAt !== undefined) recordHandOff(entry, now, status.handedOffAt);
  if (status.finishedAt !== undefined) recordFinish(entry, now, status.finishedAt);
}

function recordHandOff(entry: Seen, now: number, handedOffAt: string): void {
  entry.handedOffSeen ??= now;
  entry.handedOffAt ??= handedOffAt;
}

function recordFinish(entry: Seen, now: number, finishedAt: string): void {
  entry.finishedSeen ??= now;
  entry.finishedAt ??= finishedAt;
}

async function createNamespace(core: CoreV1Api, name: string): Promise<void> {
  await core.createNamespace({ body: { metadata: { name } } });
  await waitFor(
    `service account in ${name}`,
    async () => (await core.readNamespacedServiceAccount({ name: 'default', namespace: name })).metadata !== undefined,
    30_000,
  );
}

function counts(
  ctx: Context,
  namespace: string,
): { queued: number; handedOff: number; running: number; finished: number } {
  const out = { queued: 0, handedOff: 0, running: 0, finished: 0 };
  for (const run of ctx.runs.list(namespace)) {
    const s = run.status;
    if (s?.finishedAt !== undefined) out.finished += 1;
    else if (s?.status === RunStatus.Queued) out.queued += 1;
    else if (s?.status === RunStatus.Running) out.running += 1;
    else if (s?.handedOffAt !== undefined) out.handedOff += 1;
  }
  return out;
}

/** The operator's state over the wait: work-queue depth and event-loop delay, once a second. */
interface Samples {
  maxDepth: number;
  readonly lagMean: number[];
  readonly lagP99: number[];
  lagMax: number;
}

function sample(samples: Samples, text: string): number {
  const depth = metric(text, 'kubedag_queue_depth');
  samples.maxDepth = Math.max(samples.maxDepth, depth);
  samples.lagMean.push(metric(text, 'nodejs_eventloop_lag_mean_seconds') * 1000);
  samples.lagP99.push(metric(text, 'nodejs_eventloop_lag_p99_seconds') * 1000);
  samples.lagMax = Math.max(samples.lagMax, metric(text, 'nodejs_eventloop_lag_max_seconds') * 1000);
  return depth;
}

/** Waits for every run of the namespace to finish, printing progress every 10 s. */
async function waitAll(ctx: Context, namespace: string, started: number): Promise<Samples> {
  const deadline = Date.now() + TIMEOUT_MS;
  const samples: Samples = { maxDepth: 0, lagMean: [], lagP99: [], lagMax: 0 };
  let lastSample = 0;
  let lastPrint = Date.now();
  for (;;) {
    const c = counts(ctx, namespace);
    if (c.finished >= RUNS) return samples;
    if (Date.now() > deadline) throw new Error(`timed out after ${String(TIMEOUT_MS / 1000)} s: ${JSON.stringify(c)}`);
    if (Date.now() - lastSample >= 1000) {
      lastSample = Date.now();
      const depth = sample(samples, await metricsText(ctx.url));
      if (Date.now() - lastPrint >= 10_000) {
        lastPrint = Date.now();
        console.log(
          `  ${String(Math.round((Date.now() - started) / 1000)).padStart(4)} s: created ${String(ctx.runs.list(namespace).length)}, queued ${String(c.queued)}, handed off ${String(c.handedOff)}, running ${String(c.running)}, finished ${String(c.finished)}; operator work queue ${String(depth)}`,
        );
      }
    }
    await sleep(250);
  }
}

/** Busy and total jiffies of the whole machine (every session on it, not only this benchmark). */
function machineCpu(): { busy: number; total: number } {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - (fields[3] ?? 0) - (fields[4] ?? 0), total };
}

interface Timings {
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

/** One capacity: a DAG, RUNS enqueued runs of it, and the wait for all of them. */
async function scenario(ctx: Context, capacity: number): Promise<void> {
  const namespace = `bench-queue-c${String(capacity)}`;
  const dag = `queue-c${String(capacity)}`;
  await createNamespace(ctx.core, namespace);
  const load = loadDag(`maxActiveRuns: ${String(capacity)}\nsteps: [${JSON.stringify(STEP)}]\n`, { fileName: dag });
  await ctx.kube.dags.create(namespace, dagManifest(dag, load.documents, namespace));
  console.log(
    `capacity ${String(capacity)}: creating ${String(RUNS)} enqueued runs of ${namespace}/${dag} (step: ${STEP}), ${String(IN_FLIGHT)} in flight`,
  );
  const names = Array.from({ length: RUNS }, (_, i) => `q-${String(i).padStart(4, '0')}`);
  const metricsBefore = await metricsText(ctx.url);
  const [cpuBefore, machineBefore] = [cpuSnapshot(ctx), machineCpu()];
  const first = Date.now();
  await pool(names, IN_FLIGHT, (name) =>
    ctx.kube.runs.create(namespace, { metadata: { name }, spec: { dagRef: { name: dag }, enqueue: true } }),
  );
  const lastCreate = Date.now();
  console.log(
    `  created ${String(RUNS)} in ${((lastCreate - first) / 1000).toFixed(1)} s (${(RUNS / ((lastCreate - first) / 1000)).toFixed(0)}/s)`,
  );
  const samples = await waitAll(ctx, namespace, first);
  const [cpuAfter, machineAfter] = [cpuSnapshot(ctx), machineCpu()];
  const metricsAfter = await metricsText(ctx.url);
  const list = await ctx.kube.runs.list(namespace);
  report(ctx, capacity, list.items, {
    first,
    lastCreate,
    samples,
    cpuBefore,
    cpuAfter,
    machineBefore,
    machineAfter,
    metricsBefore,
    metricsAfter,
  });
}

const times = (values: readonly (string | number | undefined)[]): number[] =>
  values.map((v) => (typeof v === 'number' ? v : Date.parse(v ?? ''))).filter((v) => !Number.isNaN(v));
/** Per run b - a, both ISO strings or ms; runs missing either are left out. */
const diffs = (pairs: readonly [string | number | undefined, string | number | undefined][]): number[] =>
  pairs.map(([a, b]) => (times([b])[0] ?? NaN) - (times([a])[0] ?? NaN)).filter((v) => !Number.isNaN(v));

function report(ctx: Context, capacity: number, runs: readonly DagRunResource[], t: Timings): void {
  const seen = runs.map((r) => ctx.seen.get(`${r.metadata?.namespace ?? ''}/${r.metadata?.name ?? ''}`) ?? {});
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
  reportOperator(ctx, t);
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

function reportOperator(ctx: Context, t: Timings): void {
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

async function stopOperator(operator: ChildProcess): Promise<void> {
  if (operator.exitCode !== null || operator.signalCode !== null) return;
  const exited = new Promise((resolve) => operator.once('exit', resolve));
  operator.kill('SIGTERM');
  if ((await Promise.race([exited, sleep(10_000, 'timeout')])) === 'timeout') operator.kill('SIGKILL');
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'kubedag-bench-'));
  let state: ClusterState | undefined;
  let operator: ChildProcess | undefined;
  let runs: Informer<DagRunResource> | undefined;
  let cleaned: Promise<void> | undefined;
  const cleanup = (): Promise<void> =>
    (cleaned ??= (async () => {
      await runs?.stop();
      if (operator !== undefined) await stopOperator(operator);
      if (state !== undefined) await stopCluster(state);
      await rm(dir, { recursive: true, force: true });
    })());
  const onSignal = (signal: NodeJS.Signals): void => {
    console.error(`${signal}: stopping the operator and the cluster`);
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    state = await startCluster({
      dir,
      binaries: await ensureBinaries(),
      nodes: [{ name: 'bench-1' }, { name: 'bench-2' }],
    });
    const kc = kubeConfig(state.kubeconfig);
    const kube = kubedagClients(kc);
    const port = await freePort();
    const log = openSync(env.BENCH_OPERATOR_LOG ?? '/dev/null', 'a');
    const profile = env.BENCH_PROFILE === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${env.BENCH_PROFILE}`];
    operator = spawn(
      process.execPath,
      [
        ...profile,
        join(import.meta.dirname, '../operator/main.ts'),
        `--kubeconfig=${state.kubeconfig}`,
        `--log-dir=${join(dir, 'logs')}`,
        `--http-port=${String(port)}`,
        '--lease-duration-seconds=5',
      ],
      { stdio: ['ignore', log, log] },
    );
    closeSync(log);
    const url = `http://127.0.0.1:${String(port)}`;
    await waitFor('the operator', () => fetch(`${url}/readyz`).then((r) => r.ok), 30_000, 100);
    const seen = new Map<string, Seen>();
    runs = new Informer<DagRunResource>({ kc, path: kube.runs.path(), list: () => kube.runs.list() });
    runs.on((event, run) => {
      if (event !== 'delete') record(seen, run);
    });
    await runs.start();
    const ctx: Context = { state, kube, core: kc.makeApiClient(CoreV1Api), url, operator, seen, runs };
    for (const capacity of CAPACITIES) await scenario(ctx, capacity);
  } finally {
    await cleanup();
  }
}

await main();

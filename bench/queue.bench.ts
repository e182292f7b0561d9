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
import { tmpdir } from 'node:os';
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
import { kubeConfig } from '../cluster/setup.ts';
import { metric, report, type Samples, type Seen } from './queue-report.ts';

const env = process.env;
const RUNS = Number(env.BENCH_QUEUE_RUNS ?? 1000);
const CAPACITIES = (env.BENCH_QUEUE_CAPACITIES ?? '10').split(',').map(Number);
const STEP = env.BENCH_QUEUE_STEP ?? 'true';
const TIMEOUT_MS = Number(env.BENCH_QUEUE_TIMEOUT_S ?? 1800) * 1000;
const IN_FLIGHT = 32;

interface Context {
  readonly state: ClusterState;
  readonly kube: KubedagClients;
  readonly core: CoreV1Api;
  readonly url: string;
  readonly operator: ChildProcess;
  readonly seen: Map<string, Seen>;
  readonly runs: Informer<DagRunResource>;
}

async function metricsText(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text();
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
  report(ctx.seen, capacity, list.items, {
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

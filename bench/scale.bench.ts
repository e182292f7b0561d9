/**
 * Scale benchmark on a fresh local control plane (figures, not a test): the figures issue 23's
 * targets name, on whatever model the operator and API server have today.
 * - Big runs: a `type: graph` DAG of N independent `true` steps (maxActiveSteps 100) and a chain
 *   of N steps: outcome, time, steps/min (against single-step runs/min), DAGRun sizes, bytes
 *   written, bytes per finished step, step record sizes, the API's run details.
 * - History: R finished runs (copies of a real 5-step run) over D DAGs: each process restarted
 *   on them (RSS, sync time), the API's history reads, etcd's database; per retained run. With
 *   the history store (BENCH_HISTORY_STORE=sqlite, the default; `none` keeps every run in etcd as
 *   before issue 23's part 2) the R runs are written into the store as the archiver writes them,
 *   and BENCH_WINDOW_RUNS (default 500) more are left in etcd for the operator to archive
 *   (BENCH_ARCHIVE_AFTER, default 20s), timed.
 * Settings (environment): BENCH_STEPS (graph sizes, comma-separated, default 1000; 0 for none),
 * BENCH_CHAIN_STEPS (chain sizes, default BENCH_STEPS), BENCH_HOLD_S (keep the stack up after the reads), BENCH_RUNS (retained runs, default 2000;
 * 0 for none), BENCH_DAGS (default one per 100 runs), BENCH_SINGLE_RUNS (baseline runs, default
 * 100; 0 for none), BENCH_DEADLINE_S (per big run, default 1800), BENCH_STALL_S (no status write
 * for this long: stuck; default 120), BENCH_REPEAT (GETs per read, default 20), BENCH_OUT (a
 * file for the figures as JSON). Run with `make bench-scale`. On a 2-core machine that also
 * runs the control plane and every step process, timings are noisy; sizes and counts are not.
 */
import { writeFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { kubedagClients } from '../core/kube/client.ts';
import { loadDag } from '../core/dag/index.ts';
import { dagManifest } from '../core/resources/dag.ts';
import { ensureBinaries } from '../cluster/binaries.ts';
import { startCluster, stopCluster } from '../cluster/cluster.ts';
import { freePort, waitFor } from '../cluster/processes.ts';
import { kubeConfig } from '../cluster/setup.ts';
import { bundleApiServer, bundleOperator } from '../build/bundles.ts';
import { startBenchApiServer, type BenchApiServer } from './scale-apiserver.ts';
import { HISTORY_DAG_YAML, historyReads, recordStats, seedHistory, seedStore, type Seeded } from './scale-history.ts';
import { openHistoryStore } from '../core/history/open.ts';
import type { DagRunResource } from '../core/resources/types.ts';
import {
  bigRun,
  removeRun,
  removeSingleRuns,
  singleStepRunsPerMinute,
  type BigRunContext,
  type BigRunFigures,
  type Shape,
} from './scale-runs.ts';
import { printFigures, type ArchivedFigures, type HistoryFigures } from './scale-report.ts';
import { etcdDbBytes, namespace, rssOf, settledRss, startBenchOperator, type BenchOperator } from './scale-support.ts';

const sizes = (text: string | undefined, fallback: string): number[] =>
  (text ?? fallback)
    .split(',')
    .map(Number)
    .filter((n) => n > 0);
const graphSizes = sizes(process.env.BENCH_STEPS, '1000');
const chainSizes = sizes(process.env.BENCH_CHAIN_STEPS, process.env.BENCH_STEPS ?? '1000');
const RUNS = Number(process.env.BENCH_RUNS ?? 2000);
const DAGS = Number(process.env.BENCH_DAGS ?? Math.max(1, Math.round(RUNS / 100)));
const SINGLE_RUNS = Number(process.env.BENCH_SINGLE_RUNS ?? 100);
const DEADLINE_MS = Number(process.env.BENCH_DEADLINE_S ?? 1800) * 1000;
const STALL_MS = Number(process.env.BENCH_STALL_S ?? 120) * 1000;
const REPEAT = Number(process.env.BENCH_REPEAT ?? 20);
const HISTORY_STORE = process.env.BENCH_HISTORY_STORE ?? 'sqlite';
if (HISTORY_STORE !== 'sqlite' && HISTORY_STORE !== 'none')
  throw new Error(`BENCH_HISTORY_STORE must be sqlite or none, not ${HISTORY_STORE}`);
const WINDOW_RUNS = Number(process.env.BENCH_WINDOW_RUNS ?? 500);
const ARCHIVE_AFTER = process.env.BENCH_ARCHIVE_AFTER ?? '20s';
const log = (line: string): void => void process.stderr.write(`[bench-scale] ${line}\n`);

const dir = await mkdtemp(join(tmpdir(), 'kubedag-bench-scale-'));
const logDir = join(dir, 'logs');
const state = await startCluster({
  dir,
  binaries: await ensureBinaries(),
  nodes: [{ name: 'bench-1' }, { name: 'bench-2' }],
});
const kc = kubeConfig(state.kubeconfig);
const kube = kubedagClients(kc);
// Under the repository, as bench-operator keeps it: the S3 SDK left out of the bundle resolves there.
const repo = join(import.meta.dirname, '..');
await mkdir(join(repo, 'dist'), { recursive: true });
const bundleDir = await mkdtemp(join(repo, 'dist', 'bench-bundle-'));
const bundle = join(bundleDir, 'operator.mjs');
await bundleOperator(bundle);
// Beside dist/ui and under package.json, as dist/apiserver.mjs is in the image: it finds both from its own folder.
const apiBundle = join(repo, 'dist', `bench-apiserver-${String(process.pid)}.mjs`);
await bundleApiServer(apiBundle);
const historyPath = join(dir, 'history.db');
const withStore = HISTORY_STORE === 'sqlite';
const operatorSettings = {
  bundle,
  kubeconfig: state.kubeconfig,
  logDir,
  port: await freePort(),
  extraArgs: withStore
    ? ['--history-store=sqlite', `--history-sqlite-path=${historyPath}`, `--archive-after=${ARCHIVE_AFTER}`]
    : [],
};
// The API server reads the SQLite store through the operator, as the chart sets it up.
const apiArgs = withStore ? ['--history-store=sqlite'] : [];
let operator: BenchOperator | undefined;
let api: BenchApiServer | undefined;
const pidOf = (name: string): number | undefined => state.processes.find((p) => p.name === name)?.pid;

async function seedEtcd(source: DagRunResource): Promise<Seeded> {
  log(`seeding ${String(RUNS)} finished runs over ${String(DAGS)} DAGs into etcd`);
  return seedHistory(kube, source, RUNS, DAGS, log);
}

/**
 * The window's runs into etcd for the operator to archive (timed), then R runs straight into
 * the store; the copies are of the source run as the archiver stored it.
 */
async function seedWithStore(source: DagRunResource): Promise<{ seeded: Seeded; archived: ArchivedFigures }> {
  const runsInEtcd = async (): Promise<number> => (await kube.runs.list(namespace)).items.length;
  log(`seeding ${String(WINDOW_RUNS)} finished runs over ${String(DAGS)} DAGs into etcd, for the operator to archive`);
  await seedHistory(kube, source, WINDOW_RUNS, DAGS, log);
  const started = performance.now();
  await waitFor('the operator to archive every finished run', async () => (await runsInEtcd()) === 0, 1_800_000, 1000);
  const archived = { runs: WINDOW_RUNS + 1, seconds: (performance.now() - started) / 1000 };
  log(`  archived ${String(archived.runs)} runs in ${archived.seconds.toFixed(0)} s`);
  const store = await openHistoryStore({ kind: 'sqlite', path: historyPath });
  try {
    const [summary] = await store.runsOf(namespace, 'hist-src', 1);
    const stored = summary === undefined ? undefined : await store.run(summary);
    if (stored === undefined) throw new Error('the source run is not in the history store');
    log(`writing ${String(RUNS)} finished runs over ${String(DAGS)} DAGs into the history store`);
    const seeded = await seedStore(store, stored.resource, { runs: RUNS, dags: DAGS }, log);
    return { seeded, archived };
  } finally {
    await store.close();
  }
}

let tornDown: Promise<void> | undefined;
/** Everything the bench started, stopped once: at its end, or when it is interrupted (a held stack is). */
function teardown(): Promise<void> {
  tornDown ??= (async () => {
    await api?.stop();
    await operator?.stop();
    await stopCluster(state);
    await rm(dir, { recursive: true, force: true });
    await rm(bundleDir, { recursive: true, force: true });
    await rm(apiBundle, { force: true });
  })();
  return tornDown;
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping what the bench started`);
    void teardown().finally(() => process.exit(130));
  });
}

/**
 * BENCH_HOLD_S: the stack kept up this long after the figures, its addresses printed, so that a
 * profiler can be attached to the API server or the operator on the same history.
 */
async function hold(): Promise<void> {
  const seconds = Number(process.env.BENCH_HOLD_S ?? 0);
  if (seconds <= 0) return;
  log(
    `holding ${String(seconds)} s: API ${api?.base ?? ''} (pid ${String(api?.process.pid)}), operator ${operator?.url ?? ''} (pid ${String(operator?.process.pid)})`,
  );
  await sleep(seconds * 1000);
}

async function history(): Promise<HistoryFigures> {
  // The real run the history is copied from.
  await kube.dags.create(
    namespace,
    dagManifest('hist-src', loadDag(HISTORY_DAG_YAML, { fileName: 'hist-src' }).documents, namespace),
  );
  await kube.runs.create(namespace, {
    metadata: { name: 'hist-src-run', namespace },
    spec: { dagRef: { name: 'hist-src' } },
  });
  await waitFor(
    'the source run',
    async () => (await kube.runs.get(namespace, 'hist-src-run')).status?.finishedAt !== undefined,
    120_000,
    250,
  );
  // Its step logs are archived just after the status is written.
  await sleep(3000);
  const source = await kube.runs.get(namespace, 'hist-src-run');
  const etcdBefore = await etcdDbBytes(state.ports?.etcdClient);
  const { seeded, archived } = withStore
    ? await seedWithStore(source)
    : { seeded: await seedEtcd(source), archived: undefined };
  await sleep(10_000);
  const operatorLive = rssOf(operator?.process.pid);
  // Each process restarted on the history: what a new replica or a restart pays.
  await api?.stop();
  await operator?.stop();
  log('restarting the operator and the API server on the history');
  operator = await startBenchOperator(operatorSettings);
  const operatorRestart = {
    syncedMs: operator.syncedMs,
    readyMs: operator.readyMs,
    rss: await settledRss(operator.process.pid),
  };
  const apiStarted = performance.now();
  api = await startBenchApiServer(apiBundle, state.kubeconfig, operator.url, apiArgs);
  const apiRestart = { readyMs: performance.now() - apiStarted, rss: await settledRss(api.process.pid) };
  log('timing the history reads');
  const reads = await historyReads(api.base, seeded, REPEAT);
  return {
    store: HISTORY_STORE,
    ...(archived === undefined ? {} : { archived }),
    seed: seeded.figures,
    sourceRecords: recordStats(seeded.figures.sourceRecordBytes),
    operatorLive,
    operatorRestart,
    apiRestart,
    apiAfterReads: rssOf(api.process.pid),
    reads,
    etcdDbBefore: etcdBefore,
    etcdDbAfter: await etcdDbBytes(state.ports?.etcdClient),
    kubeApiserverRss: rssOf(pidOf('kube-apiserver')),
    etcdRss: rssOf(pidOf('etcd')),
  };
}

try {
  operator = await startBenchOperator(operatorSettings);
  api = await startBenchApiServer(apiBundle, state.kubeconfig, operator.url, apiArgs);
  log(
    `operator synced in ${(operator.syncedMs / 1000).toFixed(1)} s, API server in ${(api.readyMs / 1000).toFixed(1)} s; measuring idle memory`,
  );
  const [operatorIdle, apiIdle] = await Promise.all([settledRss(operator.process.pid), settledRss(api.process.pid)]);
  const idle = {
    operator: operatorIdle,
    api: apiIdle,
    operatorSyncedMs: operator.syncedMs,
    apiReadyMs: api.readyMs,
    etcdDb: await etcdDbBytes(state.ports?.etcdClient),
  };
  const ctx: BigRunContext = {
    kc,
    kube,
    operator: () => operator as BenchOperator,
    api: () => (api as BenchApiServer).base,
    deadlineMs: DEADLINE_MS,
    stallMs: STALL_MS,
    log,
  };
  let singlePerMinute: number | undefined;
  if (SINGLE_RUNS > 0) {
    log(`${String(SINGLE_RUNS)} single-step runs (the baseline)`);
    singlePerMinute = await singleStepRunsPerMinute(ctx, SINGLE_RUNS);
    await removeSingleRuns(ctx, SINGLE_RUNS);
  }
  const big: BigRunFigures[] = [];
  const plan: [Shape, number][] = [
    ...graphSizes.map((n): [Shape, number] => ['graph', n]),
    ...chainSizes.map((n): [Shape, number] => ['chain', n]),
  ];
  // Smallest first: what a bigger run breaks should not cost the figures of a smaller one.
  for (const [shape, steps] of plan.sort((a, b) => a[1] - b[1])) {
    log(`a ${shape} of ${String(steps)} steps`);
    try {
      const figures = await bigRun(ctx, shape, steps);
      log(
        `  ${figures.outcome} in ${figures.seconds.toFixed(0)} s (${String(figures.succeededSteps)}/${String(steps)} succeeded): ${JSON.stringify(figures)}`,
      );
      big.push(figures);
    } catch (error) {
      log(
        `  the ${shape} of ${String(steps)} steps could not be measured: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
    }
    // Deleted, so that the history phase measures the history alone.
    await removeRun(ctx, shape, steps);
    await sleep(5000);
    if (operator.process.exitCode !== null || operator.process.signalCode !== null) {
      log('  the operator had exited: starting another');
      operator = await startBenchOperator(operatorSettings);
    }
  }
  const hist = RUNS > 0 ? await history() : undefined;
  const machine = { cores: cpus().length, memory: totalmem(), node: process.version };
  const settings = {
    graphSizes,
    chainSizes,
    runs: RUNS,
    dags: DAGS,
    historyStore: HISTORY_STORE,
    windowRuns: withStore ? WINDOW_RUNS : 0,
    archiveAfter: ARCHIVE_AFTER,
    singleRuns: SINGLE_RUNS,
    deadlineS: DEADLINE_MS / 1000,
    stallS: STALL_MS / 1000,
    repeat: REPEAT,
  };
  const figures = { machine, settings, idle, singleStepRunsPerMinute: singlePerMinute, bigRuns: big, history: hist };
  printFigures(figures);
  if (process.env.BENCH_OUT !== undefined)
    await writeFile(process.env.BENCH_OUT, `${JSON.stringify(figures, null, 2)}\n`);
  await hold();
} catch (error) {
  // Told before the cluster is torn down: what fails after that is a consequence.
  log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
} finally {
  await teardown();
}

/**
 * API server benchmark on a fresh local control plane (figures, not a test): 1,000 DAGs and
 * 10,000 finished runs seeded straight into the Kubernetes API, then autocannon against the
 * read endpoints the issue names: latency p50/p99, requests/s, response size, server RSS.
 * Target: p50 <= 20 ms.
 *
 * The API server runs in a child process (this file with `--serve`), so that autocannon does
 * not share its event loop. The child also times each request's phases with fastify hooks
 * (handler, serialisation) and the view functions of the heavy listings, to show where the
 * time goes. BENCH_PROFILE=<dir> writes a CPU profile of the API server there.
 * Run with `make bench-api`. On a 2-core machine that also runs the control plane, figures
 * are noisy; compare runs of this script with each other.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { kubedagClients } from '../core/kube/client.ts';
import { DAGS, RUNS_PER_DAG, seed } from './api-seed.ts';
import { DURATION_S, endpoints, measure, mib, ms, printTable, summary, type Ask, type Row } from './api-load.ts';
import { allDags, latestRun, type Cluster } from '../apiserver/cluster.ts';
import { parseApiConfig } from '../apiserver/config.ts';
import { startServer } from '../apiserver/server.ts';
import { dagListItem, paginate, selectDags } from '../apiserver/views/dags.ts';
import { filterRuns, runSummary } from '../apiserver/views/runs.ts';
import { ensureBinaries } from '../cluster/binaries.ts';
import { startCluster, stopCluster } from '../cluster/cluster.ts';
import { waitFor } from '../cluster/processes.ts';
import { kubeConfig } from '../cluster/setup.ts';

const namespace = 'default';

async function timed<T>(work: () => Promise<T> | T, repeat = 5): Promise<{ result: T; ms: number }> {
  const times: number[] = [];
  let result: T | undefined;
  for (let i = 0; i < repeat; i += 1) {
    const start = performance.now();
    result = await work();
    times.push(performance.now() - start);
  }
  return { result: result as T, ms: summary(times).p50 };
}

// ---------------------------------------------------------------------------------------------
// The API server (child process)

interface Phases {
  start: number;
  handled?: number;
  serialised?: number;
}

/** Per route: handler (preHandler -> preSerialization), serialisation (-> onSend), total. */
function instrument(app: FastifyInstance): Map<string, { handler: number[]; serialise: number[]; total: number[] }> {
  const byRoute = new Map<string, { handler: number[]; serialise: number[]; total: number[] }>();
  const phases = new WeakMap<FastifyRequest, Phases>();
  app.addHook('onRequest', (request, _reply, done) => {
    phases.set(request, { start: performance.now() });
    done();
  });
  app.addHook('preHandler', (request, _reply, done) => {
    const p = phases.get(request);
    if (p !== undefined) p.start = performance.now();
    done();
  });
  app.addHook('preSerialization', (request, _reply, payload, done) => {
    const p = phases.get(request);
    if (p !== undefined) p.handled = performance.now();
    done(null, payload);
  });
  app.addHook('onSend', (request, _reply, payload, done) => {
    const p = phases.get(request);
    if (p !== undefined) p.serialised = performance.now();
    done(null, payload);
  });
  app.addHook('onResponse', (request, _reply, done) => {
    const p = phases.get(request);
    if (p?.handled !== undefined && p.serialised !== undefined) {
      const route = request.routeOptions.url ?? 'unmatched';
      const entry = byRoute.get(route) ?? { handler: [], serialise: [], total: [] };
      entry.handler.push(p.handled - p.start);
      entry.serialise.push(p.serialised - p.handled);
      entry.total.push(performance.now() - p.start);
      byRoute.set(route, entry);
    }
    done();
  });
  return byRoute;
}

/** The view functions behind the two heavy listings, each timed on its own (median of 5). */
async function breakdown(cluster: Cluster): Promise<Record<string, number>> {
  const index = cluster.cache.runIndex;
  const roots = await timed(() => index.dagNames().flatMap((n) => index.runsOf(n)));
  const filtered = await timed(() => filterRuns(roots.result, {}));
  const summaries = await timed(() => filtered.result.map(runSummary));
  const runsJson = await timed(() => JSON.stringify({ dagRuns: summaries.result }));
  const dags = await timed(() => allDags(cluster));
  const chosen = await timed(() => selectDags(dags.result, { perPage: 1000 }, new Date()));
  const page = paginate(chosen.result, 1, 1000).items;
  const latest = await timed(() => page.map((e) => latestRun(cluster, e.load.dag.name)));
  const items = await timed(() => page.map((e, i) => dagListItem(e, latest.result[i])));
  const dagsJson = await timed(() => JSON.stringify({ dags: items.result }));
  return {
    'dag-runs: runIndex.dagNames().flatMap(runsOf)': roots.ms,
    'dag-runs: filterRuns (filter + sort newestFirst)': filtered.ms,
    'dag-runs: map(runSummary)': summaries.ms,
    'dag-runs: JSON.stringify of the answer': runsJson.ms,
    'dags?perPage=1000: allDags (dagEntry, memoised)': dags.ms,
    'dags?perPage=1000: selectDags (sort by name)': chosen.ms,
    'dags?perPage=1000: latestRun per DAG': latest.ms,
    'dags?perPage=1000: dagListItem per DAG': items.ms,
    'dags?perPage=1000: JSON.stringify of the answer': dagsJson.ms,
  };
}

async function serve(kubeconfig: string): Promise<void> {
  const config = parseApiConfig(
    [
      `--namespace=${namespace}`,
      `--kubeconfig=${kubeconfig}`,
      '--operator-url=http://127.0.0.1:1',
      `--lease-namespace=${namespace}`,
    ],
    {},
  );
  const started = performance.now();
  const server = await startServer({ config, version: 'bench' });
  const byRoute = instrument(server.app);
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  await waitFor(
    'the API server cache',
    () =>
      Promise.resolve(
        server.cache.synced() &&
          server.cache.runs.list(namespace).length >= DAGS * RUNS_PER_DAG &&
          server.cache.dags.list(namespace).length >= DAGS,
      ),
    300_000,
    100,
  );
  const syncMs = performance.now() - started;
  const send = (message: object): void => {
    process.send?.(message);
  };
  process.on('message', (message: { type: string }) => {
    void (async () => {
      if (message.type === 'phases') {
        const stats = Object.fromEntries(
          [...byRoute].map(([route, v]) => [
            route,
            { handler: summary(v.handler), serialise: summary(v.serialise), total: summary(v.total) },
          ]),
        );
        byRoute.clear();
        // Live heap: collect first (the child runs with --expose-gc), outside any measurement.
        (globalThis as { gc?: () => void }).gc?.();
        send({ type: 'phases', stats, rss: process.memoryUsage().rss, heap: process.memoryUsage().heapUsed });
      } else if (message.type === 'breakdown') {
        send({ type: 'breakdown', times: await breakdown({ cache: server.cache } as unknown as Cluster) });
      } else if (message.type === 'stop') {
        await server.close();
        send({ type: 'stopped', maxRss: process.resourceUsage().maxRSS * 1024 });
        process.exit(0);
      }
    })();
  });
  send({
    type: 'ready',
    port: (server.app.server.address() as AddressInfo).port,
    syncMs,
    rss: process.memoryUsage().rss,
    heap: process.memoryUsage().heapUsed,
  });
}

// ---------------------------------------------------------------------------------------------
// Seeding (straight into the Kubernetes API)

// ---------------------------------------------------------------------------------------------
// Main

function startChild(kubeconfig: string): { child: ChildProcess; ask: Ask; ready: Promise<Record<string, unknown>> } {
  const profile =
    process.env.BENCH_PROFILE === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`];
  const child = fork(import.meta.filename, ['--serve', kubeconfig], {
    execArgv: ['--expose-gc', ...profile],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let waiting: ((message: Record<string, unknown>) => void) | undefined;
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    waiting = resolve;
    child.once('exit', (code) => {
      reject(new Error(`the API server exited (${String(code)})`));
    });
  });
  child.on('message', (message: Record<string, unknown>) => {
    const resolve = waiting;
    waiting = undefined;
    resolve?.(message);
  });
  const ask: Ask = (message) =>
    new Promise((resolve) => {
      waiting = resolve;
      child.send(message);
    });
  return { child, ask, ready };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'kubedag-bench-api-'));
  const clusterStart = performance.now();
  const state = await startCluster({ dir, binaries: await ensureBinaries(), nodes: [] });
  let child: ChildProcess | undefined;
  const stop = async (): Promise<void> => {
    if (child !== undefined && child.exitCode === null) child.kill('SIGKILL');
    await stopCluster(state);
    await rm(dir, { recursive: true, force: true });
  };
  const interrupted = (): void => {
    void stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    console.log(`control plane up in ${((performance.now() - clusterStart) / 1000).toFixed(1)} s`);
    // kubeConfig() already keeps connections alive (reuseConnections); wrapping twice would
    // close the shared agent.
    const { dags, runs } = await seed(kubedagClients(kubeConfig(state.kubeconfig)));
    const started = startChild(state.kubeconfig);
    child = started.child;
    const ready = await started.ready;
    console.log(
      `API server: cache synced with ${String(runs.length)} runs in ${((ready.syncMs as number) / 1000).toFixed(1)} s; RSS ${mib(ready.rss as number)}, heap ${mib(ready.heap as number)}`,
    );
    const base = `http://127.0.0.1:${String(ready.port)}`;
    const rows: Row[] = [];
    for (const endpoint of endpoints(dags, runs)) {
      rows.push(await measure(base, endpoint, started.ask));
      console.log(
        `  ${endpoint.label}, ${String(rows.at(-1)?.connections)} connection(s): p50 ${String(rows.at(-1)?.result.latency.p50)} ms`,
      );
    }
    console.log(
      `\n${String(DURATION_S)} s per endpoint; latency as autocannon sees it (1 ms resolution); "first" = one request before the load (cold memo); "srv" = inside the API server (fastify hooks: handler, then serialisation of the answer)\n`,
    );
    printTable(rows);
    const times = (await started.ask({ type: 'breakdown' })).times as Record<string, number>;
    console.log('\nview functions of the heavy listings, called directly in the API server process (median of 5):');
    for (const [what, value] of Object.entries(times)) console.log(`  ${what}: ${ms(value)} ms`);
    const { rss, heap } = await started.ask({ type: 'phases' });
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    const { maxRss } = await started.ask({ type: 'stop' });
    await exited;
    console.log(
      `\nAPI server memory: RSS ${mib(rss as number)} after the load (live heap ${mib(heap as number)}), peak RSS ${mib(maxRss as number)}`,
    );
  } finally {
    await stop();
  }
}

if (process.argv[2] === '--serve') await serve(process.argv[3] ?? '');
else await main();

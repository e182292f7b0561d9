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
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { kubedagClients } from '../core/kube/client.ts';
import { DAGS, RUNS_PER_DAG, seed, type SeededDag, type SeededRun } from './api-seed.ts';
import { allDags, latestRun, type Cluster } from '../apiserver/cluster.ts';
import { parseApiConfig } from '../apiserver/config.ts';
import { startServer } from '../apiserver/server.ts';
import { dagListItem, paginate, selectDags } from '../apiserver/views/dags.ts';
import { filterRuns, runSummary } from '../apiserver/views/runs.ts';
import { ensureBinaries } from '../cluster/binaries.ts';
import { startCluster, stopCluster } from '../cluster/cluster.ts';
import { waitFor } from '../cluster/processes.ts';
import { kubeConfig } from '../cluster/setup.ts';

const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = 10;
const TARGET_P50_MS = 20;
const namespace = 'default';

// ---------------------------------------------------------------------------------------------
// Shared helpers

interface Summary {
  readonly p50: number;
  readonly p99: number;
  readonly n: number;
}

function summary(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  return { p50: at(50), p99: at(99), n: sorted.length };
}

const ms = (value: number): string => (value < 10 ? value.toFixed(2) : value.toFixed(1));
const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

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
// Load (autocannon, in this process)

interface Histogram {
  readonly p50: number;
  readonly p99: number;
  readonly average: number;
}

interface CannonResult {
  readonly latency: Histogram;
  readonly requests: Histogram & { readonly total: number };
  readonly errors: number;
  readonly timeouts: number;
  readonly non2xx: number;
}

type CannonRequest = Record<string, unknown> & { path: string };

interface CannonOptions {
  readonly url: string;
  readonly connections: number;
  readonly duration: number;
  readonly requests?: readonly { setupRequest: (request: CannonRequest) => CannonRequest }[];
}

// autocannon has no type declarations of its own; this is the part of its API used here.
const autocannon = createRequire(import.meta.url)('autocannon') as (options: CannonOptions) => Promise<CannonResult>;

interface Endpoint {
  readonly label: string;
  readonly route: string;
  /** The paths to send, in turn (one or many). */
  readonly paths: readonly string[];
  readonly connections?: number;
}

function endpoints(dags: readonly SeededDag[], runs: readonly SeededRun[]): Endpoint[] {
  const one = dags[1] ?? dags[0];
  const run = runs[RUNS_PER_DAG + 5] ?? runs[0];
  if (one === undefined || run === undefined) throw new Error('nothing seeded');
  return [
    { label: 'GET /dags (page 1, 50 items)', route: '/api/v2/dags', paths: ['/api/v2/dags'] },
    { label: 'GET /dags?perPage=1000', route: '/api/v2/dags', paths: ['/api/v2/dags?perPage=1000'] },
    { label: `GET /dag-runs (all ${String(runs.length)})`, route: '/api/v2/dag-runs', paths: ['/api/v2/dag-runs'] },
    // The two heavy listings once more without queueing behind other connections.
    { label: 'GET /dags?perPage=1000', route: '/api/v2/dags', paths: ['/api/v2/dags?perPage=1000'], connections: 1 },
    {
      label: `GET /dag-runs (all ${String(runs.length)})`,
      route: '/api/v2/dag-runs',
      paths: ['/api/v2/dag-runs'],
      connections: 1,
    },
    {
      label: `GET /dag-runs/{name} (${String(RUNS_PER_DAG)} runs)`,
      route: '/api/v2/dag-runs/:name',
      paths: [`/api/v2/dag-runs/${one.name}`],
    },
    {
      label: `GET /dags/{fileName} (${String(dags.length)} rotating)`,
      route: '/api/v2/dags/:fileName',
      paths: dags.map((d) => `/api/v2/dags/${d.fileName}`),
    },
    {
      label: 'GET /dag-runs/{name}/{id} (one run)',
      route: '/api/v2/dag-runs/:name/:dagRunId',
      paths: [`/api/v2/dag-runs/${run.dag.name}/${run.id}`],
    },
    {
      label: `GET /dag-runs/{name}/{id} (${String(runs.length)} rotating)`,
      route: '/api/v2/dag-runs/:name/:dagRunId',
      paths: runs.map((r) => `/api/v2/dag-runs/${r.dag.name}/${r.id}`),
    },
  ];
}

interface Row {
  readonly label: string;
  readonly connections: number;
  /** API server RSS and live heap after this endpoint's load. */
  readonly rss: number;
  readonly heap: number;
  readonly first: number;
  readonly bytes: number;
  readonly result: CannonResult;
  readonly server: { handler: Summary; serialise: Summary; total: Summary } | undefined;
}

type Ask = (message: { type: string }) => Promise<Record<string, unknown>>;

async function measure(base: string, endpoint: Endpoint, ask: Ask): Promise<Row> {
  const firstPath = endpoint.paths[0] ?? '';
  const start = performance.now();
  const response = await fetch(`${base}${firstPath}`);
  const bytes = (await response.arrayBuffer()).byteLength;
  const first = performance.now() - start;
  if (!response.ok) throw new Error(`${firstPath}: HTTP ${String(response.status)}`);
  let turn = 0;
  const requests =
    endpoint.paths.length === 1
      ? undefined
      : [
          {
            setupRequest: (request: CannonRequest): CannonRequest => ({
              ...request,
              path: endpoint.paths[(turn += 1) % endpoint.paths.length] ?? firstPath,
            }),
          },
        ];
  await ask({ type: 'phases' });
  const connections = endpoint.connections ?? CONNECTIONS;
  const result = await autocannon({
    url: `${base}${firstPath}`,
    connections,
    duration: DURATION_S,
    ...(requests === undefined ? {} : { requests }),
  });
  const { stats, rss, heap } = (await ask({ type: 'phases' })) as {
    stats: Record<string, Row['server']>;
    rss: number;
    heap: number;
  };
  return { label: endpoint.label, connections, rss, heap, first, bytes, result, server: stats[endpoint.route] };
}

function printTable(rows: readonly Row[]): void {
  const header = [
    'endpoint',
    'conns',
    'p50 ms',
    'p99 ms',
    'req/s',
    'bytes',
    'first ms',
    'srv handler p50',
    'srv serialise p50',
    'p50 <= 20 ms',
    'errors/non2xx',
    'RSS after',
    'live heap after',
  ];
  const lines = rows.map((r) => [
    r.label,
    String(r.connections),
    String(r.result.latency.p50),
    String(r.result.latency.p99),
    r.result.requests.average.toFixed(0),
    String(r.bytes),
    ms(r.first),
    r.server === undefined ? '-' : ms(r.server.handler.p50),
    r.server === undefined ? '-' : ms(r.server.serialise.p50),
    r.result.latency.p50 <= TARGET_P50_MS ? 'yes' : 'NO',
    `${String(r.result.errors)}/${String(r.result.non2xx)}`,
    mib(r.rss),
    mib(r.heap),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const format = (cells: readonly string[]): string =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ')} |`;
  console.log(format(header));
  console.log(`|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
  for (const line of lines) console.log(format(line));
}

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

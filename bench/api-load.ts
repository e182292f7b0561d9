/**
 * The load half of the API server benchmark (api.bench.ts): the endpoints it measures, one
 * autocannon run against each, and the table of figures; with the summaries both halves print.
 */
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { RUNS_PER_DAG, type SeededDag, type SeededRun } from './api-seed.ts';

export const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = 10;
const TARGET_P50_MS = 20;

// ---------------------------------------------------------------------------------------------
// Shared helpers

export interface Summary {
  readonly p50: number;
  readonly p99: number;
  readonly n: number;
}

export function summary(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  return { p50: at(50), p99: at(99), n: sorted.length };
}

export const ms = (value: number): string => (value < 10 ? value.toFixed(2) : value.toFixed(1));
export const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

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

export function endpoints(dags: readonly SeededDag[], runs: readonly SeededRun[]): Endpoint[] {
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

export interface Row {
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

export type Ask = (message: { type: string }) => Promise<Record<string, unknown>>;

export async function measure(base: string, endpoint: Endpoint, ask: Ask): Promise<Row> {
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

export function printTable(rows: readonly Row[]): void {
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

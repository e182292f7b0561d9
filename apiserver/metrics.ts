/**
 * The contract's metric set under the `kubedag_` prefix, computed from the cache when scraped
 * (a gauge that is set on every change would cost work on every event), plus request metrics.
 */
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Cluster } from './cluster.ts';
import { leaderOf } from './views/leader.ts';
import { runStatusOf } from './views/runs.ts';

export interface MetricsDeps {
  readonly version: string;
  readonly buildDate: string;
  readonly clock: () => Date;
  readonly cluster: () => Cluster | undefined;
}

type Runs = ReturnType<Cluster['cache']['runs']['list']>;

/** The metrics in the order they are exposed: the build, the runs, the cluster, the requests. */
export function apiMetrics(deps: MetricsDeps): { registry: Registry; observe: (app: FastifyInstance) => void } {
  const registry = new Registry();
  const runs = (): Runs => {
    const c = deps.cluster();
    return c === undefined ? [] : c.cache.runs.list(c.cache.namespace);
  };
  buildMetrics(registry, deps);
  runMetrics(registry, runs);
  clusterMetrics(registry, deps);
  return { registry, observe: requestMetrics(registry) };
}

function buildMetrics(registry: Registry, deps: MetricsDeps): void {
  const started = deps.clock().getTime();
  new Gauge({
    name: 'kubedag_info',
    help: 'Build information.',
    labelNames: ['version', 'build_date', 'node_version'],
    registers: [registry],
  }).set({ version: deps.version, build_date: deps.buildDate, node_version: process.version }, 1);
  new Gauge({
    name: 'kubedag_uptime_seconds',
    help: 'Seconds since the API server started.',
    registers: [registry],
    collect() {
      this.set(Math.floor((deps.clock().getTime() - started) / 1000));
    },
  });
}

function runMetrics(registry: Registry, runs: () => Runs): void {
  const countStatus = (status: number): number => runs().filter((r) => runStatusOf(r) === status).length;
  new Gauge({
    name: 'kubedag_dag_runs_currently_running',
    help: 'DAG runs running now.',
    registers: [registry],
    collect() {
      this.set(countStatus(1));
    },
  });
  new Gauge({
    name: 'kubedag_dag_runs_queued_total',
    help: 'DAG runs waiting in a queue.',
    registers: [registry],
    collect() {
      this.set(countStatus(5));
    },
  });
  // A counter over retained history (behaviour-notes): it is recomputed, so it can go down when
  // retention deletes runs; scrapers treat that as a counter reset.
  new Counter({
    name: 'kubedag_dag_runs_total',
    help: 'Finished DAG runs in retained history, by status.',
    labelNames: ['status'],
    registers: [registry],
    collect() {
      this.reset();
      for (const run of runs())
        if (run.status?.finishedAt !== undefined) this.inc({ status: run.status.statusLabel ?? 'unknown' });
    },
  });
}

function clusterMetrics(registry: Registry, deps: MetricsDeps): void {
  new Gauge({
    name: 'kubedag_dags_total',
    help: 'DAG definitions.',
    registers: [registry],
    collect() {
      const c = deps.cluster();
      this.set(c === undefined ? 0 : c.cache.dags.list(c.cache.namespace).length);
    },
  });
  new Gauge({
    name: 'kubedag_scheduler_running',
    help: '1 while an operator leader holds a current Lease.',
    registers: [registry],
    collect() {
      const lease = deps.cluster()?.cache.operatorLease.list()[0];
      this.set(leaderOf(lease, deps.clock())?.status === 'active' ? 1 : 0);
    },
  });
}

/** Request latency by route; the returned hook adds the observer to an app. */
function requestMetrics(registry: Registry): (app: FastifyInstance) => void {
  const requests = new Histogram({
    name: 'kubedag_http_request_duration_seconds',
    help: 'API request latency.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const observe = (app: FastifyInstance): void => {
    app.addHook('onResponse', (request, reply, done) => {
      requests.observe(
        { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
        reply.elapsedTime / 1000,
      );
      done();
    });
  };
  return observe;
}

/**
 * The operator's plumbing: informers for DAGRuns, DAGs and step Pods feed one work queue keyed
 * by run; only the leader reconciles. The logic lives in run/.
 */
import { createServer, type Server } from 'node:http';
import { hostname } from 'node:os';
import { CoreV1Api, CustomObjectsApi, KubeConfig, type V1Pod } from '@kubernetes/client-node';
import type { Informer } from '../core/kube/informer.ts';
import { operatorInformers } from './informers.ts';
import { LeaderElector } from '../core/kube/leader.ts';
import { AdmissionLoop } from './queue/loop.ts';
import { handedOff } from './run/admission.ts';
import { Scheduler } from './schedule/scheduler.ts';
import { WorkQueue } from '../core/kube/queue.ts';
import { systemClock, type Clock } from '../core/kube/time.ts';
import { RunStatus } from '../core/resources/status.ts';
import type { DagQueueResource, DagResource, DagRunResource } from '../core/resources/types.ts';
import type { OperatorConfig } from './config.ts';
import { logChunk } from '../core/logs/chunk.ts';
import { DirectoryLogStore } from './logs/store.ts';
import { OperatorMetrics } from './metrics.ts';
import { DagReconciler } from './dag/reconciler.ts';
import { RunReconciler } from './run/reconciler.ts';
import { reuseConnections } from '../core/kube/connections.ts';
import { liveLog } from './logs/live.ts';

export interface OperatorOptions {
  readonly config: OperatorConfig;
  readonly clock?: Clock;
  readonly log: (message: string) => void;
}

/** How long DAG status waits for more run changes before it is written. */
const DAG_STATUS_COALESCE_MS = 2000;

export class Operator {
  private readonly options: OperatorOptions;
  private readonly kc = new KubeConfig();
  private readonly informers: { stop(): Promise<void> }[] = [];
  private queue: WorkQueue | undefined;
  private dagQueue: WorkQueue | undefined;
  private elector: LeaderElector | undefined;
  private server: Server | undefined;
  private resync: NodeJS.Timeout | undefined;
  private scheduler: Scheduler | undefined;
  private admission: AdmissionLoop | undefined;
  private stopping = false;
  private readonly metrics = new OperatorMetrics();
  /** Whether the operator runs what is in this namespace (all when none are configured). */
  private readonly watched = (namespace: string | undefined): boolean => {
    const { namespaces } = this.options.config;
    return namespaces.length === 0 || namespaces.includes(namespace ?? '');
  };

  constructor(options: OperatorOptions) {
    this.options = options;
    if (options.config.kubeconfig !== undefined) this.kc.loadFromFile(options.config.kubeconfig);
    else this.kc.loadFromDefault();
    reuseConnections(this.kc);
  }

  async start(): Promise<void> {
    const { config, log } = this.options;
    const core = this.kc.makeApiClient(CoreV1Api);
    const custom = this.kc.makeApiClient(CustomObjectsApi);
    const { runs, dags, pods, queues } = operatorInformers({ kc: this.kc, core, custom, namespaces: config.namespaces, log });
    this.informers.push(runs, dags, pods, queues);
    const store = new DirectoryLogStore(config.logDir);
    const metrics = this.metrics;
    const reconciler = new RunReconciler({ core, custom, runs, dags, pods, store, clock: this.options.clock ?? systemClock, defaultStepImage: config.defaultStepImage, maxPodsPerRun: config.maxPodsPerRun, maxPods: config.maxPods, routineEvents: config.routineEvents, log, metrics, onStatusWritten: this.onStatusWritten.bind(this) });
    const queue = new WorkQueue({
      concurrency: config.workers,
      worker: async (key) => {
        const end = metrics.reconcileSeconds.startTimer();
        try {
          return await reconciler.reconcile(key);
        } finally {
          end();
          metrics.queueDepth.set(queue.depth);
        }
      },
      onError: (key, error) => {
        log(`reconcile ${key}: ${(error as Error).message}`);
      },
    });
    this.queue = queue;
    const enqueueRun = (run: DagRunResource): void => {
      if (!this.watched(run.metadata?.namespace)) return;
      const key = `${run.metadata?.namespace ?? ''}/${run.metadata?.name ?? ''}`;
      // A run let out of its queue has 10 s to start: it goes ahead of any backlog.
      if (handedOff(run)) queue.addFirst(key);
      else queue.add(key);
    };
    this.admission = this.admissionFor(custom, runs, queues, enqueueRun);
    // Pods and child runs stand for a step of the DAGRun that controls them: their changes are its.
    const enqueueOwner = (object: V1Pod | DagRunResource): void => {
      const owner = object.metadata?.ownerReferences?.find((o) => o.kind === 'DAGRun' && o.controller === true);
      if (owner !== undefined && this.watched(object.metadata?.namespace)) queue.add(`${object.metadata?.namespace ?? ''}/${owner.name}`);
    };
    runs.on((_event, run) => {
      enqueueRun(run);
      enqueueOwner(run);
    });
    pods.on((_event, pod) => {
      enqueueOwner(pod);
    });
    const dagQueue = this.dagQueueFor(custom, dags, runs);
    // DAG edits start nothing: a run's definition is frozen. Runs waiting for their DAG retry.
    dags.on((_event, dag) => {
      if (this.watched(dag.metadata?.namespace)) dagQueue.add(`${dag.metadata?.namespace ?? ''}/${dag.metadata?.name ?? ''}`);
      for (const run of runs.list()) if (run.spec.snapshot === undefined) enqueueRun(run);
    });
    runs.on((_event, run) => {
      // A DAG's status shows its latest run; a burst of run changes makes one write, not many.
      if (run.spec.dagRef !== undefined && this.watched(run.metadata?.namespace)) dagQueue.addAfter(`${run.metadata?.namespace ?? ''}/${run.spec.dagRef.name}`, DAG_STATUS_COALESCE_MS);
    });
    await this.serve(store, core);
    this.elector = new LeaderElector({
      kc: this.kc,
      namespace: config.leaseNamespace,
      name: config.leaseName,
      identity: `${hostname()}_${String(process.pid)}`,
      leaseDurationSeconds: config.leaseDurationSeconds,
      retryPeriodMs: Math.min(2000, (config.leaseDurationSeconds * 1000) / 4),
      log,
    });
    this.elector.run({
      onStartedLeading: () => {
        log('leading: starting informers');
        void this.lead({ runs, dags, pods, queues }, enqueueRun).catch((error: unknown) => {
          log(`start: ${(error as Error).message}`);
          process.exitCode = 1;
          void this.stop();
        });
      },
      onStoppedLeading: () => {
        // Giving up the Lease during a graceful stop is expected; losing it otherwise is not.
        if (this.stopping) return;
        log('lost leadership: stopping');
        void this.stop().then(() => process.exit(1));
      },
    });
  }

  /** Only a run that freed its slot or entered its queue can change what its queue decides. */
  private onStatusWritten(run: DagRunResource): void {
    if (run.status?.finishedAt !== undefined || run.status?.status === RunStatus.Queued) this.admission?.onRun(run);
  }

  /** The admission loop, told of every run and DAGQueue change in the watched namespaces. */
  private admissionFor(custom: CustomObjectsApi, runs: Informer<DagRunResource>, queues: Informer<DagQueueResource>, onHandOff: (run: DagRunResource) => void): AdmissionLoop {
    const admission = new AdmissionLoop({ custom, runs, queues, clock: this.options.clock ?? systemClock, log: this.options.log, onHandOff });
    runs.on((_event, run) => {
      if (this.watched(run.metadata?.namespace)) admission.onRun(run);
    });
    queues.on((_event, queue) => {
      if (this.watched(queue.metadata?.namespace)) admission.onQueue(queue);
    });
    return admission;
  }

  private dagQueueFor(custom: CustomObjectsApi, dags: Informer<DagResource>, runs: Informer<DagRunResource>): WorkQueue {
    const reconciler = new DagReconciler({
      custom,
      dags,
      runs,
      clock: this.options.clock ?? systemClock,
      zone: this.options.config.scheduleZone,
      onWrite: () => {
        this.metrics.apiWrites.inc({ verb: 'update' });
      },
    });
    this.dagQueue = new WorkQueue({
      concurrency: 2,
      worker: (key) => reconciler.reconcile(key),
      onError: (key, error) => {
        this.options.log(`reconcile DAG ${key}: ${(error as Error).message}`);
      },
    });
    return this.dagQueue;
  }

  private async lead(informers: { runs: Informer<DagRunResource>; dags: Informer<DagResource>; pods: Informer<V1Pod>; queues: Informer<DagQueueResource> }, enqueueRun: (run: DagRunResource) => void): Promise<void> {
    const { runs, dags, pods, queues } = informers;
    // Pods and DAGs first: a run reconciled before its Pods are known could start a step twice.
    const started = async (name: string, informer: { start(): Promise<void> }): Promise<void> => {
      await informer.start();
      this.options.log(`informer ${name} synced`);
    };
    await Promise.all([started('pods', pods), started('dags', dags), started('queues', queues)]);
    await started('runs', runs);
    this.resync = setInterval(() => {
      runs.list().forEach(enqueueRun);
    }, 30_000);
    this.resync.unref();
    const { config, log } = this.options;
    this.scheduler = new Scheduler({ custom: this.kc.makeApiClient(CustomObjectsApi), dags, runs, clock: this.options.clock ?? systemClock, zone: config.scheduleZone, watched: this.watched, log });
    this.scheduler.start();
    this.admission?.start();
  }

  /**
   * The internal endpoint: health, metrics, and step logs as the contract's chunks for the API
   * server (`/logs/{namespace}/{dag}/{runId}/{step}/{attempt}?stream=&tail=&head=&offset=&limit=`),
   * archived ones from the store, running ones live from their Pod.
   */
  private async serve(store: DirectoryLogStore, core: CoreV1Api): Promise<void> {
    this.server = createServer((req, res) => {
      void this.handle(req.url ?? '/', store, core).then(
        ({ status, type, body }) => res.writeHead(status, { 'content-type': type }).end(body),
        (error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end((error as Error).message),
      );
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(this.options.config.httpPort, resolve));
  }

  private async handle(rawUrl: string, store: DirectoryLogStore, core: CoreV1Api): Promise<{ status: number; type: string; body: string }> {
    const url = new URL(rawUrl, 'http://operator');
    const text = (status: number, body: string): { status: number; type: string; body: string } => ({ status, type: 'text/plain', body });
    if (url.pathname === '/healthz') return text(200, 'ok\n');
    if (url.pathname === '/readyz') return this.elector?.isLeader() === true ? text(200, 'leader\n') : text(503, 'standby\n');
    if (url.pathname === '/metrics') return { status: 200, type: this.metrics.registry.contentType, body: await this.metrics.registry.metrics() };
    const match = /^\/logs\/([^/]+)\/([^/]+)\/([^/]+)\/([^/]+)\/(\d+)$/.exec(url.pathname);
    if (match === null) return text(404, 'not found\n');
    const [namespace = '', dagName = '', dagRunId = '', step = '', attempt = '0'] = match.slice(1).map(decodeURIComponent);
    const stream = url.searchParams.get('stream') === 'stderr' ? 'stderr' : 'stdout';
    const ref = { namespace, dagName, dagRunId, step, attempt: Number(attempt) };
    // The store again after a live read: the Pod may have been archived and its log removed by
    // its node between the two, which leaves the live read empty.
    const log = (await store.read(ref, stream)) ?? (await liveLog(core, ref, stream).then(async (live) => (await store.read(ref, stream)) ?? live));
    if (log === undefined) return { status: 404, type: 'application/json', body: JSON.stringify({ code: 'not_found', message: 'no log for this step attempt' }) };
    const number = (name: string): number | undefined => (url.searchParams.has(name) ? Number(url.searchParams.get(name)) : undefined);
    const chunk = logChunk(log, { tail: number('tail'), head: number('head'), offset: number('offset'), limit: number('limit') });
    return { status: 200, type: 'application/json', body: JSON.stringify(chunk) };
  }

  /** Graceful shutdown: stop taking work, finish what is running, release the Lease. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.resync);
    this.scheduler?.stop();
    await this.admission?.stop();
    await this.queue?.shutdown();
    await this.dagQueue?.shutdown();
    for (const informer of this.informers) await informer.stop();
    await this.elector?.stop();
    this.server?.close();
  }
}

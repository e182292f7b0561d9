/**
 * The operator's wiring: informers feed work queues keyed by object (runs, finished runs for
 * what they are owed, step Pods for the log archiver, finished runs for retention, DAGs for
 * their status, queues for admission); only the leader reconciles. Each informer has one
 * handler that says which keys a change touches. The logic lives in run/, logs/, retention/,
 * dag/, queue/ and schedule/.
 */
import { hostname } from 'node:os';
import { CoreV1Api, KubeConfig, RbacAuthorizationV1Api, type V1Pod } from '@kubernetes/client-node';
import { kubedagClients } from '../core/kube/client.ts';
import { reuseConnections } from '../core/kube/connections.ts';
import { LeaderElector } from '../core/kube/leader.ts';
import { WorkQueue, type QueueOptions } from '../core/kube/queue.ts';
import { systemClock, type Clock } from '../core/kube/time.ts';
import type { HistoryStore } from '../core/history/types.ts';
import { errorMessage, type Logger } from '../core/log.ts';
import { ANNOTATIONS } from '../core/resources/constants.ts';
import { isFrozen } from '../core/resources/frozen.ts';
import type { DagResource, DagRunResource } from '../core/resources/types.ts';
import type { OperatorConfig } from './config.ts';
import { buildControllers, type Controllers } from './controllers.ts';
import { operatorInformers, type OperatorInformers } from './informers.ts';
import { podEnded } from './logs/archiver.ts';
import { operatorServer } from './logs/server.ts';
import { openLogStore } from './logs/open.ts';
import { OperatorMetrics } from './metrics.ts';
import { rootOf } from './history/archiver.ts';
import { handedOff } from './run/decide/admission.ts';
import { isFinished, ownerRunName } from './run/decide/observed.ts';
import { runKey } from './run/ref.ts';
import { Scheduler } from './schedule/scheduler.ts';
import type { FastifyInstance } from 'fastify';

export interface OperatorOptions {
  readonly config: OperatorConfig;
  readonly clock?: Clock;
  readonly log: Logger;
}

/** How long DAG status waits for more run changes before it is written. */
const DAG_STATUS_COALESCE_MS = 2000;
const RESYNC_MS = 30_000;

interface Queues {
  readonly runs: WorkQueue;
  /** Finished runs for what they are owed after their end (run/finished/). */
  readonly finished: WorkQueue;
  readonly archive: WorkQueue;
  readonly retention: WorkQueue;
  readonly dags: WorkQueue;
  /** Root runs for the history archiver (history/archiver.ts); idle with history-store none. */
  readonly history: WorkQueue;
}

export class Operator {
  private readonly options: OperatorOptions;
  private readonly kc = new KubeConfig();
  private readonly metrics = new OperatorMetrics();
  private readonly clock: Clock;
  private informers: OperatorInformers | undefined;
  private controllers: Controllers | undefined;
  private queues: Queues | undefined;
  private elector: LeaderElector | undefined;
  private server: FastifyInstance | undefined;
  private history: HistoryStore | undefined;
  private resync: NodeJS.Timeout | undefined;
  private scheduler: Scheduler | undefined;
  private stopping = false;

  constructor(options: OperatorOptions) {
    this.options = options;
    this.clock = options.clock ?? systemClock;
    if (options.config.kubeconfig !== undefined) this.kc.loadFromFile(options.config.kubeconfig);
    else this.kc.loadFromDefault();
    reuseConnections(this.kc);
  }

  /** Whether the operator runs what is in this namespace (all when none are configured). */
  private watched(namespace: string | undefined): boolean {
    const { namespaces } = this.options.config;
    return namespaces.length === 0 || namespaces.includes(namespace ?? '');
  }

  async start(): Promise<void> {
    const { config, log } = this.options;
    const core = this.kc.makeApiClient(CoreV1Api);
    const kube = kubedagClients(this.kc);
    const informers = operatorInformers(this.kc, core, kube, config.namespaces, log);
    const store = await openLogStore(config.logStore);
    const history = await this.openHistory();
    const queues = this.makeQueues();
    const controllers = buildControllers({
      config,
      core,
      rbac: this.kc.makeApiClient(RbacAuthorizationV1Api),
      kube,
      informers,
      store,
      clock: this.clock,
      log,
      metrics: this.metrics,
      onArchived: (key) => {
        queues.runs.add(key);
      },
      watched: (namespace) => this.watched(namespace),
      ...(history === undefined ? {} : { history }),
    });
    this.informers = informers;
    this.controllers = controllers;
    this.queues = queues;
    this.route(informers, controllers, queues);
    this.server = operatorServer({
      store,
      core,
      registry: this.metrics.registry,
      isLeader: () => this.elector?.isLeader() === true,
      ...(history === undefined ? {} : { history }),
    });
    await this.listen(this.server, config.httpPort);
    this.elector = new LeaderElector({
      kc: this.kc,
      namespace: config.leaseNamespace,
      name: config.leaseName,
      identity: `${hostname()}_${String(process.pid)}`,
      leaseDurationSeconds: config.leaseDurationSeconds,
      retryPeriodMs: Math.min(2000, (config.leaseDurationSeconds * 1000) / 4),
      log: (message) => {
        log.info(message);
      },
    });
    this.elector.run({
      onStartedLeading: () => {
        // Leadership lost is not taken up again while the process stops: it exits and restarts.
        if (this.stopping) return;
        log.info('leading: starting informers');
        void this.lead().catch((error: unknown) => {
          log.fatal({ err: errorMessage(error) }, 'start failed');
          process.exitCode = 1;
          void this.stop();
        });
      },
      onStoppedLeading: () => {
        // Giving up the Lease during a graceful stop is expected; losing it otherwise is not.
        if (this.stopping) return;
        log.error('lost leadership: stopping');
        void this.stop().then(() => process.exit(1));
      },
    });
  }

  /**
   * The configured history store, opened (and its schema brought up to date) before anything
   * else starts: a store that cannot open stops the start, since runs archived nowhere would
   * otherwise pile up in etcd unnoticed.
   */
  private async openHistory(): Promise<HistoryStore | undefined> {
    const { config } = this.options;
    if (config.history === undefined) return undefined;
    try {
      // Imported only when chosen, as the S3 log store is: with `none` neither driver is loaded.
      const { openHistoryStore } = await import('../core/history/open.ts');
      this.history = await openHistoryStore(config.history, this.clock);
    } catch (error) {
      const where =
        config.history.kind === 'sqlite'
          ? `the SQLite file ${config.history.path}`
          : 'the PostgreSQL database of KUBEDAG_HISTORY_POSTGRES_URL';
      throw new Error(`the ${config.history.kind} history store cannot be opened (${where}): ${errorMessage(error)}`, {
        cause: error,
      });
    }
    return this.history;
  }

  /** Listens on every address, as a plain Node server does (fastify's own default is localhost only). */
  private async listen(server: FastifyInstance, port: number): Promise<void> {
    await server.ready();
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.server.listen(port, resolve);
    });
  }

  private makeQueues(): Queues {
    const { config, log } = this.options;
    // A failed reconcile's line names the object by its kind: run, pod, dag or (admission) queue.
    const queue = (kind: 'run' | 'pod' | 'dag', concurrency: number, worker: QueueOptions['worker']): WorkQueue =>
      new WorkQueue({
        concurrency,
        worker,
        onError: (key, error) => {
          log.error({ [kind]: key, err: errorMessage(error) }, 'reconcile failed');
        },
      });
    const metrics = this.metrics;
    const runs: WorkQueue = queue('run', config.workers, async (key) => {
      const end = metrics.reconcileSeconds.startTimer();
      try {
        return await this.controllers?.runs.reconcile(key);
      } finally {
        end();
        metrics.queueDepth.set(runs.depth);
      }
    });
    return {
      runs,
      finished: queue(
        'run',
        config.workers,
        (key) => this.controllers?.finished.reconcile(key) ?? Promise.resolve(undefined),
      ),
      archive: queue('pod', config.workers, async (key) => {
        await this.controllers?.archiver.reconcile(key);
        return undefined;
      }),
      retention: queue('run', 2, (key) => this.controllers?.retention.reconcile(key) ?? Promise.resolve(undefined)),
      dags: queue('dag', 2, (key) => this.controllers?.dags.reconcile(key) ?? Promise.resolve(undefined)),
      history: queue(
        'run',
        2,
        (key) => this.controllers?.history?.archiver.reconcile(key) ?? Promise.resolve(undefined),
      ),
    };
  }

  /** One handler per informer: which keys a change touches. */
  private route(informers: OperatorInformers, controllers: Controllers, queues: Queues): void {
    const { runs, pods, dags } = informers;
    const enqueueRun = (run: DagRunResource): void => {
      // A run let out of its queue has 10 s to start: it goes ahead of any backlog.
      if (handedOff(run)) queues.runs.addFirst(runKey(run));
      else queues.runs.add(runKey(run));
      if (isFinished(run)) queues.finished.add(runKey(run));
    };
    // Pods and child runs stand for a step of the DAGRun that controls them: their changes are its.
    const enqueueOwner = (object: V1Pod | DagRunResource): void => {
      const owner = ownerRunName(object);
      if (owner === undefined) return;
      queues.runs.add(`${object.metadata?.namespace ?? ''}/${owner}`);
      // A finished run's own Pods (its container, trace export, mails) move its finished-run work on.
      const run = runs.get(object.metadata?.namespace, owner);
      if (run !== undefined && isFinished(run)) queues.finished.add(runKey(run));
    };
    const history = this.historyRoutes(runs, controllers, queues);
    runs.on((event, run) => {
      if (!this.watched(run.metadata?.namespace)) return;
      enqueueRun(run);
      history.onRun(event, run);
      enqueueOwner(run);
      controllers.admission.onRun(run);
      // A run's status moved on: Pods of attempts now over may go (the archiver decides).
      for (const pod of controllers.gatherer.podsOf(run)) if (podEnded(pod)) queues.archive.add(runKey(pod));
      if (event === 'delete' || isFinished(run)) {
        queues.retention.add(runKey(run));
        controllers.secrets.forget(run.metadata?.uid ?? '');
        controllers.objects.forget(run.metadata?.uid ?? '');
      }
      // A DAG's status shows its latest run; a burst of run changes makes one write, not many.
      // A deleted run may have been archived: the store's newest is read again if needed.
      if (run.spec.dagRef !== undefined) {
        const dagKey = `${run.metadata?.namespace ?? ''}/${run.spec.dagRef.name}`;
        if (event === 'delete') controllers.dags.forgetArchived(dagKey);
        queues.dags.addAfter(dagKey, DAG_STATUS_COALESCE_MS);
      }
    });
    pods.on((_event, pod) => {
      if (!this.watched(pod.metadata?.namespace)) return;
      const ended = podEnded(pod) && ownerRunName(pod) !== undefined;
      if (ended) queues.archive.add(runKey(pod));
      history.onPod(pod);
      // An attempt whose stdout its run needs reports once archived: the archiver enqueues the
      // run then, and a reconcile now would only find it waiting.
      if (!(ended && controllers.gatherer.awaitsLog(pod))) enqueueOwner(pod);
    });
    // DAG edits start nothing: a run's definition is frozen. Runs waiting for their DAG retry.
    dags.on((_event, dag: DagResource) => {
      if (!this.watched(dag.metadata?.namespace)) return;
      queues.dags.add(runKey(dag));
      for (const run of runs.list(dag.metadata?.namespace)) if (!isFrozen(run)) enqueueRun(run);
    });
    informers.queues.on((_event, queue) => {
      if (this.watched(queue.metadata?.namespace)) controllers.admission.onQueue(queue);
    });
    // A namespace's pod policy or its allowed service accounts changed: its DAGs' validity may have.
    const enqueueDags = (namespace: string | undefined): void => {
      if (namespace === undefined || !this.watched(namespace)) return;
      for (const dag of dags.list(namespace)) queues.dags.add(runKey(dag));
    };
    informers.namespaces.on((_event, namespace) => {
      enqueueDags(namespace.metadata?.name);
    });
    informers.serviceAccounts.on((_event, account) => {
      enqueueDags(account.metadata?.namespace);
    });
    this.enqueueAll = () => {
      for (const run of runs.list()) if (this.watched(run.metadata?.namespace)) enqueueRun(run);
    };
  }

  /**
   * Which root runs the history archiver looks at: a tree is archived by its root, and a change
   * of any run of it, or of a step Pod of a finished run (its log archived, the Pod gone), may
   * make it ready. Nothing with history-store none.
   */
  private historyRoutes(
    runs: OperatorInformers['runs'],
    controllers: Controllers,
    queues: Queues,
  ): { onRun(event: string, run: DagRunResource): void; onPod(pod: V1Pod): void } {
    const enqueueRoot = (run: DagRunResource | undefined): void => {
      const root = run === undefined ? undefined : rootOf(run, runs);
      if (root !== undefined && isFinished(root)) queues.history.add(runKey(root));
    };
    if (controllers.history === undefined) return { onRun: () => undefined, onPod: () => undefined };
    return {
      onRun: (event, run) => {
        if (event !== 'delete') enqueueRoot(run);
        // A retry under a new id holds its original until it has copied the original's steps.
        const original = run.metadata?.annotations?.[ANNOTATIONS.retryOf];
        if (original !== undefined) enqueueRoot(runs.get(run.metadata?.namespace, original));
      },
      onPod: (pod) => {
        const owner = ownerRunName(pod);
        const run = owner === undefined ? undefined : runs.get(pod.metadata?.namespace, owner);
        if (run !== undefined && isFinished(run)) enqueueRoot(run);
      },
    };
  }

  private enqueueAll: () => void = () => undefined;

  private async lead(): Promise<void> {
    const { informers, controllers } = this;
    if (informers === undefined || controllers === undefined) return;
    const { log, config } = this.options;
    // Pods and DAGs first: a run reconciled before its Pods are known could start a step twice.
    const started = async (name: string, informer: { start(): Promise<void> }): Promise<void> => {
      await informer.start();
      log.info({ informer: name }, `informer ${name} synced`);
    };
    // The pod policy's inputs before any run or DAG is decided: a run must not start under the default level for want of its namespace's label.
    await Promise.all([
      started('namespaces', informers.namespaces),
      started('serviceAccounts', informers.serviceAccounts),
    ]);
    await Promise.all([
      started('pods', informers.pods),
      started('dags', informers.dags),
      started('queues', informers.queues),
    ]);
    await started('runs', informers.runs);
    this.resync = setInterval(() => {
      this.enqueueAll();
    }, RESYNC_MS);
    this.resync.unref();
    this.scheduler = new Scheduler({
      runClient: controllers.kube.runs,
      dagClient: controllers.kube.dags,
      segmentClient: controllers.kube.segments,
      dags: informers.dags,
      runs: informers.runs,
      clock: this.clock,
      zone: config.scheduleZone,
      watched: (namespace) => this.watched(namespace),
      log,
    });
    this.scheduler.start();
    controllers.admission.start();
    controllers.history?.retention.start();
  }

  /** Graceful shutdown: stop taking work, finish what is running, release the Lease. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.resync);
    this.scheduler?.stop();
    await this.controllers?.admission.stop();
    await this.controllers?.history?.retention.stop();
    for (const queue of Object.values(this.queues ?? {}) as WorkQueue[]) await queue.shutdown();
    for (const informer of Object.values(this.informers ?? {}) as { stop(): Promise<void> }[]) await informer.stop();
    await this.elector?.stop();
    await this.server?.close();
    await this.history?.close();
    this.history = undefined;
  }
}

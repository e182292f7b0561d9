/**
 * The operator's controllers, built once from the clients and caches they share: the run
 * controller (gather -> decide -> act), the finished-run controller, the log archiver, retention, DAG status and the
 * admission loop. Plain construction; operator.ts routes events to them.
 */
import type { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import type { KubedagClients } from '../core/kube/client.ts';
import { readFrozenDefinition } from '../core/kube/frozen-definitions.ts';
import type { Clock } from '../core/kube/time.ts';
import type { HistoryStore } from '../core/history/types.ts';
import type { Logger } from '../core/log.ts';
import type { OperatorConfig } from './config.ts';
import { DagReconciler } from './dag/reconciler.ts';
import { HistoryArchiver } from './history/archiver.ts';
import { HistoryRetention } from './history/retention.ts';
import type { OperatorInformers } from './informers.ts';
import { policySource } from './policy.ts';
import { LogArchiver } from './logs/archiver.ts';
import type { LogStore } from './logs/store.ts';
import type { OperatorMetrics } from './metrics.ts';
import { AdmissionLoop } from './queue/loop.ts';
import { RetentionReconciler } from './retention/reconciler.ts';
import { RunActor } from './run/controller/act.ts';
import { RunEnder } from './run/controller/run-ender.ts';
import { ContainerCleanup } from './run/finished/container-cleanup.ts';
import { RunController } from './run/controller/run-controller.ts';
import { FinishedRunController } from './run/finished/finished-controller.ts';
import { AutoRetryReconciler } from './run/finished/auto-retry.ts';
import { TELEMETRY_COMMAND } from './telemetry/pod.ts';
import { TelemetryReconciler } from './telemetry/reconciler.ts';
import { NOTIFY_COMMAND } from './notify/pod.ts';
import { NotifyReconciler } from './notify/reconciler.ts';
import { DefinitionCache } from './run/shared/loaded-definitions.ts';
import { Expectations } from './run/shared/expectations.ts';
import { RunGatherer } from './run/controller/gather.ts';
import { PodWriter } from './run/shared/pod-writer.ts';
import { RunObjects } from './run/controller/run-resources.ts';
import { RunSecrets } from './run/shared/secrets.ts';
import { RunSegments } from './run/shared/segments.ts';
import { RunWriter, type CountWrite } from './run/shared/status-writer.ts';

export interface ControllerDeps {
  readonly config: OperatorConfig;
  readonly core: CoreV1Api;
  readonly rbac: RbacAuthorizationV1Api;
  readonly kube: KubedagClients;
  readonly informers: OperatorInformers;
  readonly store: LogStore;
  readonly clock: Clock;
  readonly log: Logger;
  readonly metrics: OperatorMetrics;
  /** An attempt's log is in the store: its run may decide on. */
  readonly onArchived: (runKey: string) => void;
  readonly watched: (namespace: string | undefined) => boolean;
  /** The history store, when finished runs are archived (history-store is not none). */
  readonly history?: HistoryStore;
}

/** Moving finished runs to the history store and pruning them there. */
export interface HistoryControllers {
  readonly store: HistoryStore;
  readonly archiver: HistoryArchiver;
  readonly retention: HistoryRetention;
}

export interface Controllers {
  readonly kube: KubedagClients;
  readonly runs: RunController;
  /** What finished runs are owed (container Pod, trace, mails), on a work queue of its own. */
  readonly finished: FinishedRunController;
  readonly gatherer: RunGatherer;
  readonly archiver: LogArchiver;
  readonly secrets: RunSecrets;
  readonly objects: RunObjects;
  readonly retention: RetentionReconciler;
  readonly dags: DagReconciler;
  readonly admission: AdmissionLoop;
  /** Undefined with history-store none: finished runs stay DAGRuns until retention. */
  readonly history?: HistoryControllers;
}

/** The writers and caches every controller shares, built once. */
interface Shared {
  readonly countWrite: CountWrite;
  readonly segments: RunSegments;
  readonly writer: RunWriter;
  readonly podWriter: PodWriter;
  readonly policyOf: ReturnType<typeof policySource>;
  readonly definitions: DefinitionCache;
  readonly secrets: RunSecrets;
  /** One mail sender for both run controllers: step mails while a run runs, the rest once it finished. */
  readonly notify: NotifyReconciler;
}

function sharedParts(deps: ControllerDeps): Shared {
  const { config, core, kube, informers, store, clock, log, metrics } = deps;
  const countWrite: CountWrite = (verb) => {
    metrics.apiWrites.inc({ verb });
  };
  const segments = new RunSegments({ client: kube.segments, countWrite });
  const writer = new RunWriter({ runs: kube.runs, cache: informers.runs, core, clock, log, countWrite, segments });
  const policyOf = policySource(informers.namespaces, informers.serviceAccounts, config.podPolicy);
  const podWriter = new PodWriter({
    core,
    rbac: deps.rbac,
    pods: informers.pods,
    clock,
    countWrite,
    levelOf: (namespace) => policyOf(namespace).level,
  });
  const definitions = new DefinitionCache((run) => readFrozenDefinition(kube.segments, run), policyOf);
  const notify = new NotifyReconciler({
    pods: informers.pods,
    podWriter,
    writer,
    store,
    clock,
    steps: config.steps,
    runner: { image: config.steps.runnerImage, command: NOTIFY_COMMAND },
    logWaitMs: config.mailLogWaitSeconds * 1000,
  });
  return {
    countWrite,
    segments,
    writer,
    podWriter,
    policyOf,
    definitions,
    secrets: new RunSecrets(core, podWriter),
    notify,
  };
}

/** The run controller (gather -> decide -> act) and the parts the operator also routes events to. */
function runParts(deps: ControllerDeps, shared: Shared): Pick<Controllers, 'runs' | 'gatherer' | 'objects'> {
  const { config, core, kube, informers, store, clock, log, metrics } = deps;
  const { segments, writer, podWriter, definitions, countWrite, notify } = shared;
  const expectations = new Expectations(clock);
  const gatherer = new RunGatherer({
    segments,
    runs: informers.runs,
    pods: informers.pods,
    store,
    core,
    clock,
    definitions,
    expectations,
    maxPodsPerRun: config.maxPodsPerRun,
    maxPods: config.maxPods,
    routineEvents: config.routineEvents,
    enqueueBatch: config.enqueueBatch,
  });
  const objects = new RunObjects(podWriter, config.steps);
  const ender = new RunEnder({ runs: informers.runs, writer, pods: podWriter, clock, log });
  const actor = new RunActor({
    runs: informers.runs,
    writer,
    pods: podWriter,
    expectations,
    clock,
    steps: config.steps,
    objects,
    log,
    metrics,
    ender,
  });
  const runs = new RunController({
    runs: informers.runs,
    dags: informers.dags,
    dagClient: kube.dags,
    segmentClient: kube.segments,
    countWrite,
    definitions,
    segments,
    gatherer,
    actor,
    writer,
    clock,
    notify,
  });
  return { runs, gatherer, objects };
}

/** What finished runs are owed: auto-retry, the container Pod's cleanup, the trace, the mails. */
function finishedController(deps: ControllerDeps, shared: Shared): FinishedRunController {
  const { config, informers, clock } = deps;
  const { writer, podWriter, definitions, segments, notify } = shared;
  return new FinishedRunController({
    runs: informers.runs,
    dags: informers.dags,
    autoRetry: new AutoRetryReconciler({ writer, clock }),
    definitions,
    segments,
    containers: new ContainerCleanup(podWriter),
    telemetry: new TelemetryReconciler({
      pods: informers.pods,
      podWriter,
      writer,
      clock,
      steps: config.steps,
      runner: { image: config.steps.runnerImage, command: TELEMETRY_COMMAND },
    }),
    notify,
  });
}

/** Retention of finished runs, the DAGs' status and schedules, and queue admission. */
function upkeepParts(deps: ControllerDeps, shared: Shared): Pick<Controllers, 'retention' | 'dags' | 'admission'> {
  const { config, kube, informers, store, clock, log, history } = deps;
  const { writer, policyOf, countWrite } = shared;
  return {
    retention: new RetentionReconciler({
      runs: informers.runs,
      store,
      writer,
      clock,
      ...(history === undefined
        ? {}
        : {
            archived: (namespace: string, dagName: string, limit: number) => history.runsOf(namespace, dagName, limit),
          }),
    }),
    dags: new DagReconciler({
      dagClient: kube.dags,
      dags: informers.dags,
      runs: informers.runs,
      clock,
      zone: config.scheduleZone,
      policyOf,
      onWrite: () => {
        countWrite('update');
      },
      ...(history === undefined
        ? {}
        : { archivedLatest: (namespace: string, dagName: string) => history.latest(namespace, dagName) }),
    }),
    admission: new AdmissionLoop({ runClient: kube.runs, runs: informers.runs, queues: informers.queues, clock, log }),
  };
}

export function buildControllers(deps: ControllerDeps): Controllers {
  const shared = sharedParts(deps);
  return {
    kube: deps.kube,
    ...runParts(deps, shared),
    finished: finishedController(deps, shared),
    archiver: new LogArchiver({
      segments: shared.segments,
      core: deps.core,
      pods: deps.informers.pods,
      runs: deps.informers.runs,
      store: deps.store,
      podWriter: shared.podWriter,
      secrets: shared.secrets,
      definitions: shared.definitions,
      onArchived: deps.onArchived,
    }),
    secrets: shared.secrets,
    ...upkeepParts(deps, shared),
    ...(deps.history === undefined ? {} : { history: historyControllers(deps, deps.history, shared.countWrite) }),
  };
}

function historyControllers(deps: ControllerDeps, store: HistoryStore, countWrite: CountWrite): HistoryControllers {
  const { config, kube, informers, clock, log, metrics } = deps;
  return {
    store,
    archiver: new HistoryArchiver({
      store,
      runs: informers.runs,
      pods: informers.pods,
      runClient: kube.runs,
      segmentClient: kube.segments,
      clock,
      archiveAfterMs: config.archiveAfterMs,
      log,
      onArchived: (runs) => {
        metrics.runsArchived.inc({ kind: 'root' });
        if (runs > 1) metrics.runsArchived.inc({ kind: 'sub' }, runs - 1);
      },
      countDelete: () => {
        countWrite('delete');
      },
    }),
    retention: new HistoryRetention({
      store,
      logs: deps.store,
      dags: informers.dags,
      runs: informers.runs,
      clock,
      watched: deps.watched,
      log,
      onPruned: (runs) => {
        metrics.historyPruned.inc(runs);
      },
    }),
  };
}

/**
 * The scheduler: at every minute boundary (and once when it starts leading), each valid,
 * unsuspended DAG's schedules are evaluated for that minute (ticks.ts) and carried out.
 * Missed minutes are not caught up (behaviour-notes 7), except for a DAG with a catch-up
 * window (Dagu 2.x, catchup.ts). Scheduled run ids come from the DAG and the minute, so a tick
 * evaluated twice (a restart, a new leader) creates one run.
 */
import type { DagLoad } from '../../core/dag/index.ts';
import { loadDagSpec } from '../../core/resources/dag.ts';
import { loadedDag } from '../dag/loaded.ts';
import type { Informer } from '../../core/kube/informer.ts';
import { type Clock } from '../../core/kube/time.ts';
import type { ResourceClient } from '../../core/kube/client.ts';
import { ignoreAlreadyExists } from '../../core/kube/errors.ts';
import { createFrozenRun, readFrozenDefinition } from '../../core/kube/frozen-definitions.ts';
import { errorMessage, type Logger } from '../../core/log.ts';
import { ANNOTATIONS, LABELS } from '../../core/resources/constants.ts';
import { definitionPlace, frozenReference } from '../../core/resources/frozen.ts';
import { dagRunResourceName, labelValue } from '../../core/resources/names.ts';
import { isActiveRun } from '../../core/resources/queue.ts';
import type { DagResource, DagRunResource, DagRunSegmentResource } from '../../core/resources/types.ts';
import {
  minuteOf,
  restartPromises,
  scheduledRunId,
  tickActions,
  type RestartPromise,
  type TickAction,
} from './ticks.ts';
import { catchupAction } from './catchup.ts';

export interface SchedulerDeps {
  readonly runClient: ResourceClient<DagRunResource>;
  /** Writes a catch-up DAG's watermark annotation. */
  readonly dagClient: ResourceClient<DagResource>;
  readonly segmentClient: ResourceClient<DagRunSegmentResource>;
  readonly dags: Informer<DagResource>;
  readonly runs: Informer<DagRunResource>;
  readonly clock: Clock;
  /** Zone of expressions without CRON_TZ. */
  readonly zone: string;
  readonly watched: (namespace: string | undefined) => boolean;
  readonly log: Logger;
}

interface Target {
  readonly namespace: string;
  readonly dag: DagResource;
  readonly load: DagLoad;
}

export class Scheduler {
  private readonly deps: SchedulerDeps;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private last = -1;
  /** Restart timers armed by this leader, by stopped run (namespace/name). */
  private readonly restarts = new Map<string, NodeJS.Timeout>();

  constructor(deps: SchedulerDeps) {
    this.deps = deps;
  }

  /** Evaluates the current minute now, then every minute boundary. */
  start(): void {
    this.stopped = false;
    void this.fire();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const timer of this.restarts.values()) clearTimeout(timer);
    this.restarts.clear();
  }

  private async fire(): Promise<void> {
    this.resumeRestarts();
    const minute = minuteOf(this.deps.clock.now());
    if (minute.getTime() > this.last) {
      this.last = minute.getTime();
      await this.tick(minute).catch((error: unknown) => {
        this.deps.log.error({ minute: minute.toISOString(), err: errorMessage(error) }, 'scheduler tick failed');
      });
    }
    if (this.stopped) return;
    // A little past the boundary, so that a clock read at wake-up is inside the new minute.
    const wait = minute.getTime() + 60_000 - this.deps.clock.now().getTime() + 20;
    this.timer = setTimeout(() => void this.fire(), Math.max(20, wait));
    this.timer.unref();
  }

  /**
   * One minute's actions for every DAG; one DAG's failure does not hold back the others. Only
   * actions are logged (a quiet minute writes nothing).
   */
  async tick(minute: Date): Promise<void> {
    const dags = this.deps.dags.list().filter((d) => this.deps.watched(d.metadata?.namespace));
    await Promise.all(
      dags.map(async (dag) => {
        try {
          await this.tickDag(dag, minute);
        } catch (error) {
          this.deps.log.error(
            { dag: `${dag.metadata?.namespace ?? ''}/${dag.metadata?.name ?? ''}`, err: errorMessage(error) },
            'scheduler could not act on a DAG',
          );
        }
      }),
    );
  }

  private async tickDag(dag: DagResource, minute: Date): Promise<void> {
    if (dag.metadata?.annotations?.[ANNOTATIONS.suspended] === 'true') return;
    const load = loadedDag(dag);
    if (
      load.errors.length > 0 ||
      load.dag.schedule.start.length + load.dag.schedule.stop.length + load.dag.schedule.restart.length === 0
    )
      return;
    const namespace = dag.metadata?.namespace ?? '';
    const runs = this.deps.runs
      .list(namespace)
      .filter((r) => r.spec.parent === undefined && r.spec.dagName === load.dag.name);
    // With every run archived, the DAG status's latest run (from the history store) stands in.
    const archived = runs.length === 0 ? dag.status?.latestRun : undefined;
    const input = {
      dag: load.dag,
      runs,
      minute,
      zone: this.deps.zone,
      ...(archived === undefined ? {} : { archivedLatest: archived }),
    };
    const held = await this.catchUp({ namespace, dag, load }, runs, minute);
    // While missed minutes are pending, this minute is one of them at the next tick.
    for (const action of tickActions(input).filter((a) => !held || a.kind !== 'start'))
      await this.act(dag, load, runs, action, minute);
  }

  /** A DAG's catch-up at this minute (catchup.ts); whether it holds back the minute's own start. */
  private async catchUp(target: Target, runs: readonly DagRunResource[], minute: Date): Promise<boolean> {
    const { namespace, dag, load } = target;
    const catchup = load.dag.catchup;
    if (catchup === undefined || load.dag.schedule.start.length === 0) return false;
    const mark = Date.parse(dag.metadata?.annotations?.[ANNOTATIONS.scheduleWatermark] ?? '');
    const action = catchupAction({
      catchup,
      schedules: load.dag.schedule.start,
      zone: this.deps.zone,
      minute,
      watermark: Number.isNaN(mark) ? undefined : new Date(mark),
      busy: runs.some(isActiveRun),
    });
    switch (action.kind) {
      case 'none':
        return false;
      case 'wait':
        return true;
      case 'init':
      case 'drop':
        await this.setWatermark(namespace, dag, action.watermark);
        if (action.kind === 'drop')
          this.deps.log.info(
            { dag: load.dag.name, dropped: action.dropped },
            'scheduler dropped missed runs (overlap policy skip)',
          );
        return false;
      case 'start':
        // The run first: a crash before the watermark moves makes the same create again, a 409.
        await this.create(target, runs, scheduledRunId('scheduled', action.at), {});
        await this.setWatermark(namespace, dag, action.watermark);
        return true;
    }
  }

  private async setWatermark(namespace: string, dag: DagResource, at: Date): Promise<void> {
    await this.deps.dagClient.mergePatch(namespace, dag.metadata?.name ?? '', {
      metadata: { annotations: { [ANNOTATIONS.scheduleWatermark]: at.toISOString() } },
    });
  }

  private async act(
    dag: DagResource,
    load: DagLoad,
    runs: readonly DagRunResource[],
    action: TickAction,
    minute: Date,
  ): Promise<void> {
    const namespace = dag.metadata?.namespace ?? '';
    switch (action.kind) {
      case 'skip':
        return;
      case 'start':
        await this.create({ namespace, dag, load }, runs, action.dagRunId, {});
        if (load.dag.catchup !== undefined) await this.setWatermark(namespace, dag, minute);
        return;
      case 'stop':
        for (const name of action.runs) await this.stopRun(namespace, name);
        return;
      case 'restart': {
        // One write stops the run and records the promise of its successor (restartPromises in ticks.ts).
        const at = new Date(this.deps.clock.now().getTime() + action.waitSec * 1000).toISOString();
        await this.patchRun(namespace, action.run, {
          metadata: { annotations: { [ANNOTATIONS.restartRunId]: action.dagRunId, [ANNOTATIONS.restartAt]: at } },
          spec: { stop: true },
        });
        this.deps.log.info(
          { run: `${namespace}/${action.run}`, restartRunId: action.dagRunId, restartAt: at },
          'scheduler stopped a run for a restart tick',
        );
        const previous = runs.find((r) => r.metadata?.name === action.run);
        if (previous !== undefined)
          this.arm({ run: previous, dagRunId: action.dagRunId, at: new Date(at), kept: false });
        return;
      }
    }
  }

  /** A scheduled run; queued when the DAG's active runs already fill maxActiveRuns. */
  private async create(
    target: Target,
    runs: readonly DagRunResource[],
    dagRunId: string,
    extra: Record<string, unknown>,
  ): Promise<void> {
    const { namespace, dag, load } = target;
    const limit = load.dag.maxActiveRuns < 0 ? Infinity : Math.max(1, load.dag.maxActiveRuns);
    const full = runs.filter(isActiveRun).length >= limit;
    await this.createRun(
      namespace,
      load.dag.name,
      dagRunId,
      { dagRef: { name: dag.metadata?.name ?? '' }, trigger: 'schedule', ...(full ? { enqueue: true } : {}), ...extra },
      { definition: dag.spec, load },
    );
  }

  /** A run; with the definition it is frozen with by its creator (core/kube/frozen-definitions.ts), else the run controller freezes its DAG. */
  private async createRun(
    namespace: string,
    dagName: string,
    dagRunId: string,
    spec: Record<string, unknown>,
    frozen?: { readonly definition: Record<string, unknown>; readonly load: DagLoad },
  ): Promise<void> {
    const name = dagRunResourceName(dagName, dagRunId);
    const body = {
      metadata: {
        name,
        namespace,
        labels: { [LABELS.dag]: labelValue(dagName), [LABELS.runId]: labelValue(dagRunId) },
      },
      spec: {
        ...spec,
        dagName,
        dagRunId,
        ...(frozen === undefined ? {} : { frozenDefinition: frozenReference(name, frozen.load.dag) }),
      },
    } as DagRunResource;
    const clients = { runs: this.deps.runClient, segments: this.deps.segmentClient };
    // The same tick evaluated before (a restart, another leader) finds the run exists already.
    if (
      (await ignoreAlreadyExists(
        frozen === undefined
          ? clients.runs.create(namespace, body)
          : createFrozenRun(clients, namespace, body, frozen.definition),
      )) !== undefined
    ) {
      this.deps.log.info(
        {
          run: `${namespace}/${name}`,
          dag: dagName,
          dagRunId,
          trigger: String(spec.trigger),
          queued: spec.enqueue === true,
        },
        'scheduler started a run',
      );
    }
  }

  /**
   * Arms a timer for every restart a stopped run still promises, e.g. after a change of leader,
   * and clears promises kept by a leader that died before clearing them.
   */
  private resumeRestarts(): void {
    const runs = this.deps.runs.list().filter((r) => this.deps.watched(r.metadata?.namespace));
    const exists = (namespace: string, dagName: string, dagRunId: string): boolean =>
      this.deps.runs.get(namespace, dagRunResourceName(dagName, dagRunId)) !== undefined;
    for (const promise of restartPromises(runs, exists)) {
      const namespace = promise.run.metadata?.namespace ?? '';
      if (!promise.kept) this.arm(promise);
      else
        void this.clearPromise(namespace, promise.run).catch((error: unknown) => {
          this.deps.log.error(
            { run: `${namespace}/${promise.run.metadata?.name ?? ''}`, err: errorMessage(error) },
            'scheduler could not clear a restart promise',
          );
        });
    }
  }

  private async clearPromise(namespace: string, run: DagRunResource): Promise<void> {
    await this.patchRun(namespace, run.metadata?.name ?? '', {
      metadata: { annotations: { [ANNOTATIONS.restartRunId]: null, [ANNOTATIONS.restartAt]: null } },
    });
  }

  private arm(pending: RestartPromise): void {
    const { run, dagRunId, at } = pending;
    const namespace = run.metadata?.namespace ?? '';
    const key = `${namespace}/${run.metadata?.name ?? ''}`;
    if (this.stopped || this.restarts.has(key)) return;
    const timer = setTimeout(
      () => {
        const previous = run.spec;
        const spec = {
          dagRef: previous.dagRef,
          trigger: 'restart',
          ...(previous.params === undefined ? {} : { params: previous.params }),
        };
        // The promise is cleared once kept, so deleting the new run later does not bring it back.
        void this.previousDefinition(run)
          .then((frozen) => this.createRun(namespace, previous.dagName ?? '', dagRunId, spec, frozen))
          .then(() => this.clearPromise(namespace, run))
          .catch((error: unknown) => {
            this.deps.log.error({ run: key, err: errorMessage(error) }, 'scheduler restart failed');
          })
          .finally(() => this.restarts.delete(key));
      },
      Math.max(0, at.getTime() - this.deps.clock.now().getTime()),
    );
    timer.unref();
    this.restarts.set(key, timer);
  }

  /** What a restarted run runs: the definition frozen for the run it replaces, when it has one to copy. */
  private async previousDefinition(
    run: DagRunResource,
  ): Promise<{ readonly definition: Record<string, unknown>; readonly load: DagLoad } | undefined> {
    const place = definitionPlace(run);
    const definition =
      place.in === 'spec' ? place.definition : await readFrozenDefinition(this.deps.segmentClient, run);
    return definition === undefined
      ? undefined
      : { definition, load: loadDagSpec(definition, { fileName: run.spec.dagName ?? '' }) };
  }

  private async stopRun(namespace: string, name: string): Promise<void> {
    await this.patchRun(namespace, name, { spec: { stop: true } });
    this.deps.log.info({ run: `${namespace}/${name}` }, 'scheduler stopped a run for a stop tick');
  }

  private async patchRun(namespace: string, name: string, body: Record<string, unknown>): Promise<void> {
    await this.deps.runClient.mergePatch(namespace, name, body);
  }
}

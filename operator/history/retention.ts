/**
 * Retention of archived runs: a sweep (the leader's, at start and every hour) over every DAG
 * name with runs in the history store, in the watched namespaces, deletes the runs that
 * finished longer ago than the DAG's histRetentionDays (its DAG resource's, else Dagu's
 * default of 30 for a DAG deleted since), in batches, each run's logs first: a crash between
 * the two leaves a run whose logs are gone, which the next sweep deletes, never logs that no
 * run names. Runs still in etcd are retention/reconciler.ts's, as before. A DAG that keeps its
 * history by count (histRetentionRuns) has no days; its cutoff is the count's (retention/count.ts),
 * over its newest archived root runs and its root runs still in etcd.
 */
import type { HistoryStore, DagOfNamespace } from '../../core/history/types.ts';
import { pruneHistory } from '../../core/history/retention.ts';
import { DEFAULTS } from '../../core/dag/model.ts';
import type { Informer } from '../../core/kube/informer.ts';
import type { Clock } from '../../core/kube/time.ts';
import { errorMessage, type Logger } from '../../core/log.ts';
import { loadedDag } from '../dag/loaded.ts';
import type { DagResource, DagRunResource } from '../../core/resources/types.ts';
import { countCutoff } from '../retention/count.ts';
import type { LogStore } from '../logs/store.ts';

export const RETENTION_SWEEP_MS = 3_600_000;
const DAY_MS = 86_400_000;

export interface PruneStep {
  readonly namespace: string;
  readonly dagName: string;
  /** ms since the epoch: runs that finished before it go. */
  readonly finishedBefore: number;
}

/**
 * What one sweep prunes: each watched DAG name with its cutoff. `days` gives a DAG's
 * histRetentionDays, undefined when no DAG of that name exists (then Dagu's default); zero or
 * less keeps its runs for ever, as it keeps runs in etcd. Pure.
 */
export function retentionPlan(
  stored: readonly DagOfNamespace[],
  days: (namespace: string, dagName: string) => number | undefined,
  watched: (namespace: string) => boolean,
  now: number,
): PruneStep[] {
  return stored.flatMap(({ namespace, dagName }) => {
    if (!watched(namespace)) return [];
    const kept = days(namespace, dagName) ?? DEFAULTS.histRetentionDays;
    return kept <= 0 ? [] : [{ namespace, dagName, finishedBefore: now - kept * DAY_MS }];
  });
}

export interface HistoryRetentionDeps {
  readonly store: HistoryStore;
  readonly logs: LogStore;
  readonly dags: Informer<DagResource>;
  /** Root runs still in etcd count towards histRetentionRuns beside the archived ones. */
  readonly runs?: Informer<DagRunResource>;
  readonly clock: Clock;
  readonly watched: (namespace: string) => boolean;
  readonly log: Logger;
  readonly onPruned: (runs: number) => void;
}

interface Kept {
  readonly name: string;
  readonly days: number;
  readonly runs: number | undefined;
}

/** A DAG resource's name as runs carry it (spec.dagName) and its retention, from the operator's one loaded copy. */
function namedRetention(dag: DagResource): Kept {
  const { dag: model } = loadedDag(dag);
  return { name: model.name, days: model.histRetentionDays, runs: model.histRetentionRuns };
}

const msOf = (text: string | undefined): number | undefined => {
  const ms = Date.parse(text ?? '');
  return Number.isNaN(ms) ? undefined : ms;
};

export class HistoryRetention {
  private readonly deps: HistoryRetentionDeps;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(deps: HistoryRetentionDeps) {
    this.deps = deps;
  }

  /** A sweep now, then every RETENTION_SWEEP_MS; a sweep still going when the next is due is not doubled. */
  start(): void {
    const tick = (): void => {
      this.running ??= this.sweep()
        .catch((error: unknown) => {
          this.deps.log.error({ err: errorMessage(error) }, 'history retention sweep failed');
          return 0;
        })
        .finally(() => {
          this.running = undefined;
        });
    };
    tick();
    this.timer = setInterval(tick, RETENTION_SWEEP_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One sweep; how many archived runs went. */
  async sweep(): Promise<number> {
    const { deps } = this;
    const byName = new Map<string, Kept>();
    for (const dag of deps.dags.list()) {
      const kept = namedRetention(dag);
      byName.set(`${dag.metadata?.namespace ?? ''}/${kept.name}`, kept);
    }
    const stored = await deps.store.dagsWithRuns();
    const plan = [
      ...retentionPlan(
        stored,
        (namespace, dagName) => byName.get(`${namespace}/${dagName}`)?.days,
        deps.watched,
        deps.clock.now().getTime(),
      ),
      ...(await this.countPlan(stored, byName)),
    ];
    let removed = 0;
    for (const step of plan) {
      const pruned = await pruneHistory(deps.store, {
        ...step,
        beforeDelete: async (batch) => {
          for (const key of batch) await deps.logs.removeRun(key.namespace, key.dagName, key.dagRunId);
        },
      });
      removed += pruned.removed;
      deps.onPruned(pruned.removed);
    }
    if (removed > 0) deps.log.info({ removed }, 'history retention deleted archived runs and their logs');
    return removed;
  }

  /** The cutoffs of the DAGs that keep their history by count, each from its newest runs in both places. */
  private async countPlan(stored: readonly DagOfNamespace[], byName: ReadonlyMap<string, Kept>): Promise<PruneStep[]> {
    const steps: PruneStep[] = [];
    for (const { namespace, dagName } of stored) {
      const keep = byName.get(`${namespace}/${dagName}`)?.runs;
      if (keep === undefined || !this.deps.watched(namespace)) continue;
      const archived = await this.deps.store.runsOf(namespace, dagName, keep);
      const here = (this.deps.runs?.list(namespace) ?? []).filter(
        (r) => r.spec.parent === undefined && r.spec.dagName === dagName,
      );
      const ages = [
        ...archived.map((s) => ({ id: s.dagRunId, createdMs: msOf(s.createdAt) ?? 0, finishedMs: msOf(s.finishedAt) })),
        ...here.map((r) => ({
          id: r.spec.dagRunId ?? '',
          createdMs: msOf(r.metadata?.creationTimestamp as string | undefined) ?? 0,
          finishedMs: msOf(r.status?.finishedAt),
        })),
      ];
      const cutoff = countCutoff(
        ages.map(({ finishedMs, ...age }) => (finishedMs === undefined ? age : { ...age, finishedMs })),
        keep,
      );
      if (cutoff !== undefined) steps.push({ namespace, dagName, finishedBefore: cutoff });
    }
    return steps;
  }
}

/**
 * Retention, keyed by run: a finished run older than its DAG's histRetentionDays goes, logs
 * first, so that after a crash between the two the next look deletes the run whose logs are
 * already gone. A run not yet due is looked at again when it will be (at most an hour later,
 * so a changed clock or a lost timer costs no more than that). A DAG that keeps its history by
 * count (histRetentionRuns) is judged whole whenever one of its finished root runs is looked
 * at: its runs beyond the newest N go (count.ts), the archived ones counted too.
 */
import type { Informer } from '../../core/kube/informer.ts';
import type { WorkResult } from '../../core/kube/queue.ts';
import type { Clock } from '../../core/kube/time.ts';
import type { HistorySummary } from '../../core/history/types.ts';
import { frozenFacts } from '../../core/resources/frozen.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import type { LogStore } from '../logs/store.ts';
import { loadDefinition, specDefinition } from '../run/shared/loaded-definitions.ts';
import { isFinished } from '../run/decide/observed.ts';
import { runRef } from '../run/ref.ts';
import { retentionDue, retentionExpired } from '../run/decide/retention-due.ts';
import type { RunWriter } from '../run/shared/status-writer.ts';
import { beyondCutoff, countCutoff, type RunAge } from './count.ts';

const RECHECK_MAX_MS = 3_600_000;

export interface RetentionDeps {
  readonly runs: Informer<DagRunResource>;
  readonly store: LogStore;
  readonly writer: RunWriter;
  readonly clock: Clock;
  /** The DAG's newest archived root runs, when there is a history store: they count towards histRetentionRuns. */
  readonly archived?: (namespace: string, dagName: string, limit: number) => Promise<readonly HistorySummary[]>;
}

interface Kept {
  readonly uid: string;
  readonly days: number;
  readonly runs: number | undefined;
}

function ageOf(id: string, created: string | undefined, finished: string | undefined): RunAge {
  const finishedMs = finished === undefined || finished === '' ? Number.NaN : Date.parse(finished);
  return { id, createdMs: Date.parse(created ?? '') || 0, ...(Number.isNaN(finishedMs) ? {} : { finishedMs }) };
}

const runAge = (run: DagRunResource): RunAge =>
  ageOf(
    runRef(run).dagRunId,
    run.metadata?.creationTimestamp as string | undefined,
    isFinished(run) ? run.status?.finishedAt : undefined,
  );

export class RetentionReconciler {
  private readonly deps: RetentionDeps;
  /** Each finished run's retention (days, runs), by key, for the run uid they were read from. */
  private readonly kept = new Map<string, Kept>();

  constructor(deps: RetentionDeps) {
    this.deps = deps;
  }

  async reconcile(key: string): Promise<WorkResult | undefined> {
    const [namespace = '', name = ''] = key.split('/');
    const run = this.deps.runs.get(namespace, name);
    if (run === undefined || !isFinished(run)) {
      this.kept.delete(key);
      return undefined;
    }
    const { days, runs } = this.keptOf(key, run);
    if (runs !== undefined) {
      if (run.spec.parent === undefined) await this.byCount(run, runs);
      return undefined;
    }
    const now = this.deps.clock.now();
    if (!retentionExpired(run.status?.finishedAt, days, now)) {
      const due = retentionDue(run.status?.finishedAt, days);
      return due === undefined ? undefined : { requeueAfterMs: Math.min(due - now.getTime(), RECHECK_MAX_MS) };
    }
    const ref = runRef(run);
    await this.deps.store.removeRun(ref.namespace, ref.dagName, ref.dagRunId);
    await this.deps.writer.delete(run);
    this.kept.delete(key);
    return undefined;
  }

  /** Gathers the DAG's root runs here and archived, decides the cutoff, deletes the finished runs beyond it. */
  private async byCount(run: DagRunResource, keep: number): Promise<void> {
    const { namespace, dagName } = runRef(run);
    const here = this.deps.runs
      .list(namespace)
      .filter((r) => r.spec.parent === undefined && runRef(r).dagName === dagName);
    const archived = (await this.deps.archived?.(namespace, dagName, keep)) ?? [];
    const cutoff = countCutoff(
      [...here.map(runAge), ...archived.map((s) => ageOf(s.dagRunId, s.createdAt, s.finishedAt))],
      keep,
    );
    const gone = new Set(beyondCutoff(here.map(runAge), cutoff).map((age) => age.id));
    for (const old of here.filter((r) => gone.has(runRef(r).dagRunId))) {
      const ref = runRef(old);
      await this.deps.store.removeRun(ref.namespace, ref.dagName, ref.dagRunId);
      await this.deps.writer.delete(old);
      this.kept.delete(ref.key);
    }
  }

  private keptOf(key: string, run: DagRunResource): Kept {
    const uid = run.metadata?.uid ?? '';
    const known = this.kept.get(key);
    if (known?.uid === uid) return known;
    // A run frozen into a segment carries its retention in its spec: no finished run's definition is read for it.
    const facts = frozenFacts(run);
    const dag = facts?.histRetentionDays === undefined ? loadDefinition(run, specDefinition(run)).dag : undefined;
    const kept = {
      uid,
      days: facts?.histRetentionDays ?? dag?.histRetentionDays ?? 0,
      runs: dag === undefined ? facts?.histRetentionRuns : dag.histRetentionRuns,
    };
    this.kept.set(key, kept);
    return kept;
  }
}

/**
 * Retention, keyed by run: a finished run older than its DAG's histRetentionDays goes, logs
 * first, so that after a crash between the two the next look deletes the run whose logs are
 * already gone. A run not yet due is looked at again when it will be (at most an hour later,
 * so a changed clock or a lost timer costs no more than that).
 */
import type { Informer } from '../../core/kube/informer.ts';
import type { WorkResult } from '../../core/kube/queue.ts';
import type { Clock } from '../../core/kube/time.ts';
import { frozenFacts } from '../../core/resources/frozen.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import type { LogStore } from '../logs/store.ts';
import { loadDefinition, specDefinition } from '../run/shared/loaded-definitions.ts';
import { isFinished } from '../run/decide/observed.ts';
import { runRef } from '../run/ref.ts';
import { retentionDue, retentionExpired } from '../run/decide/retention-due.ts';
import type { RunWriter } from '../run/shared/status-writer.ts';

const RECHECK_MAX_MS = 3_600_000;

export interface RetentionDeps {
  readonly runs: Informer<DagRunResource>;
  readonly store: LogStore;
  readonly writer: RunWriter;
  readonly clock: Clock;
}

export class RetentionReconciler {
  private readonly deps: RetentionDeps;
  /** Each finished run's retention days, by key, for the run uid they were read from. */
  private readonly days = new Map<string, { readonly uid: string; readonly days: number }>();

  constructor(deps: RetentionDeps) {
    this.deps = deps;
  }

  async reconcile(key: string): Promise<WorkResult | undefined> {
    const [namespace = '', name = ''] = key.split('/');
    const run = this.deps.runs.get(namespace, name);
    if (run === undefined || !isFinished(run)) {
      this.days.delete(key);
      return undefined;
    }
    const days = this.daysOf(key, run);
    const now = this.deps.clock.now();
    if (!retentionExpired(run.status?.finishedAt, days, now)) {
      const due = retentionDue(run.status?.finishedAt, days);
      return due === undefined ? undefined : { requeueAfterMs: Math.min(due - now.getTime(), RECHECK_MAX_MS) };
    }
    const ref = runRef(run);
    await this.deps.store.removeRun(ref.namespace, ref.dagName, ref.dagRunId);
    await this.deps.writer.delete(run);
    this.days.delete(key);
    return undefined;
  }

  private daysOf(key: string, run: DagRunResource): number {
    const uid = run.metadata?.uid ?? '';
    const known = this.days.get(key);
    if (known?.uid === uid) return known.days;
    // A run frozen into a segment carries its days in its spec: no finished run's definition is read for them.
    const days = frozenFacts(run)?.histRetentionDays ?? loadDefinition(run, specDefinition(run)).dag.histRetentionDays;
    this.days.set(key, { uid, days });
    return days;
  }
}

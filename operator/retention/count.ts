/**
 * Retention by count (Dagu 2.x `hist_retention_runs`): a DAG keeps its newest N root runs,
 * newest by creation, wherever they are (etcd or the history store). Pure.
 *
 * The rule is turned into a finish-time cutoff so that both places can apply it with what they
 * already do (the history store deletes by "finished before"): the cutoff is the earliest
 * finish among the N newest runs (an active one counts by its creation), and a finished run
 * that finished before it goes. Every one of the N newest finished at or after the cutoff, so
 * none of them is ever deleted; a run outside them that finished later than one of them stays
 * until newer runs move the cutoff past it (a few more kept, never fewer).
 */

export interface RunAge {
  /** What tells the same run apart in etcd and in the store: its run id. */
  readonly id: string;
  readonly createdMs: number;
  /** Unset while the run is active. */
  readonly finishedMs?: number;
}

/** The cutoff (ms): finished runs that finished before it are beyond the newest `keep`; undefined: none are. */
export function countCutoff(runs: readonly RunAge[], keep: number): number | undefined {
  const unique = [...new Map(runs.map((run) => [run.id, run])).values()];
  if (keep <= 0 || unique.length <= keep) return undefined;
  const newest = unique.sort((a, b) => b.createdMs - a.createdMs || (a.id < b.id ? 1 : -1)).slice(0, keep);
  return Math.min(...newest.map((run) => run.finishedMs ?? run.createdMs));
}

/** The finished runs that go under a cutoff. */
export function beyondCutoff<T extends RunAge>(runs: readonly T[], cutoff: number | undefined): T[] {
  if (cutoff === undefined) return [];
  return runs.filter((run) => run.finishedMs !== undefined && run.finishedMs < cutoff);
}

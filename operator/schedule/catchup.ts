/**
 * Catch-up of missed scheduled runs (Dagu 2.x `catchup_window` with `overlap_policy`; read in
 * dagucloud/dagu v2.15.1 internal/service/scheduler/catchup.go and tick_planner.go). Pure: the
 * scheduler gives a DAG's start schedules, its watermark, whether a run of it is active, and
 * the minute; this says what to do. Decisions: docs/decisions/2026-11-29-dagu-2x-dag-options.md.
 *
 * The watermark is the last scheduled minute the scheduler dealt with (started, or dropped by
 * the policy), kept on the DAG resource so that it outlives the operator: missed minutes are
 * those after it (and inside the window) and before the minute being evaluated. A run is
 * created under its minute's id (`scheduled-<minute>`), before the watermark moves past it, so
 * an operator that dies between the two creates the same run again, which is a 409.
 */
import { nextFireTimes, type Catchup, type Schedule } from '../../core/dag/index.ts';

/** At most this many missed minutes are looked at, the newest: a long outage never floods the cluster. */
export const MAX_MISSED = 1000;
/** At most this many fire times are enumerated per schedule and tick (a minute cron over about 35 days). */
const MAX_SCAN = 50_000;

export interface CatchupInput {
  readonly catchup: Catchup;
  readonly schedules: readonly Schedule[];
  /** Zone of expressions without CRON_TZ. */
  readonly zone: string;
  readonly minute: Date;
  /** Unset until the scheduler first sees the DAG with a catch-up window. */
  readonly watermark: Date | undefined;
  /** A run of the DAG is running or waits in its queue. */
  readonly busy: boolean;
}

export type CatchupAction =
  /** Nothing missed: the minute's own start is judged as without catch-up. */
  | { readonly kind: 'none' }
  /** First sight: the watermark starts at this minute; nothing before it is caught up. */
  | { readonly kind: 'init'; readonly watermark: Date }
  /** Start the run of a missed minute, then move the watermark to it. */
  | { readonly kind: 'start'; readonly at: Date; readonly watermark: Date }
  /** Missed minutes dropped by the policy (skip while busy): the watermark moves past them. */
  | { readonly kind: 'drop'; readonly dropped: number; readonly watermark: Date }
  /** Missed minutes wait for the active run to end (all, latest). */
  | { readonly kind: 'wait'; readonly missed: number };

/** The fire times of the schedules after `from` and before `before`, oldest first, the newest MAX_MISSED. */
export function missedMinutes(schedules: readonly Schedule[], from: Date, before: Date, zone: string): Date[] {
  const seen = new Map<number, Date>();
  for (const schedule of schedules) {
    let cursor = from;
    for (let scanned = 0; scanned < MAX_SCAN; scanned += 100) {
      const batch = nextFireTimes(schedule, cursor, 100, schedule.timezone ?? zone).filter((t) => t < before);
      for (const t of batch) seen.set(t.getTime(), t);
      const last = batch.at(-1);
      if (batch.length < 100 || last === undefined) break;
      cursor = last;
    }
  }
  return [...seen.values()].sort((a, b) => a.getTime() - b.getTime()).slice(-MAX_MISSED);
}

export function catchupAction(input: CatchupInput): CatchupAction {
  const { catchup, minute, watermark } = input;
  if (watermark === undefined) return { kind: 'init', watermark: minute };
  const windowStart = new Date(minute.getTime() - catchup.windowMs);
  const from = watermark > windowStart ? watermark : windowStart;
  const missed = missedMinutes(input.schedules, from, minute, input.zone);
  const oldest = missed[0];
  const newest = missed.at(-1);
  if (oldest === undefined || newest === undefined) return { kind: 'none' };
  if (input.busy)
    return catchup.overlap === 'skip'
      ? { kind: 'drop', dropped: missed.length, watermark: newest }
      : { kind: 'wait', missed: missed.length };
  // "all" replays every missed minute in order, one run at a time; "latest" only the newest;
  // "skip" the oldest now, and drops the rest if that run is still going at the next tick.
  const at = catchup.overlap === 'latest' ? newest : oldest;
  return { kind: 'start', at, watermark: at };
}

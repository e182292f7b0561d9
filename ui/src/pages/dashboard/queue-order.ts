/**
 * The order the dashboard lists waiting runs in: the longest-waiting first, which is the order
 * a FIFO queue starts them in, so the few shown are the next to run rather than the newest.
 * Runs queued in the same second (the API's resolution) fall back to name and run ID, so the
 * order never depends on the list's own order. Pure.
 */
import { instant } from '../../lib/time.ts';

export interface QueuedRun {
  readonly name: string;
  readonly dagRunId: string;
  readonly queuedAt: string;
}

export function inQueueOrder<T extends QueuedRun>(runs: readonly T[]): T[] {
  const at = (run: QueuedRun): number => instant(run.queuedAt) ?? Number.POSITIVE_INFINITY;
  return [...runs].sort(
    (a, b) => at(a) - at(b) || a.name.localeCompare(b.name) || a.dagRunId.localeCompare(b.dagRunId),
  );
}

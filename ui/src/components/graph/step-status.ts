/**
 * Step statuses by number, for answers that carry only the number (the history's gridData).
 * A step's 5 is `skipped` where a run's is `queued`, so the run table of lib/status.ts does
 * not fit.
 */
const STEP_LABELS = [
  'not_started',
  'running',
  'failed',
  'canceled',
  'succeeded',
  'skipped',
  'partially_succeeded',
] as const;

export function stepStatusLabel(status: number): string {
  return STEP_LABELS[status] ?? 'not_started';
}

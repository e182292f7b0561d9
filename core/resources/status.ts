/** Run and step statuses with their labels (behaviour-notes 3: Kubedag says `canceled`). */
export const RunStatus = {
  NotStarted: 0,
  Running: 1,
  Failed: 2,
  Canceled: 3,
  Succeeded: 4,
  Queued: 5,
  PartiallySucceeded: 6,
} as const;
export type RunStatusValue = (typeof RunStatus)[keyof typeof RunStatus];

export const StepStatus = {
  NotStarted: 0,
  Running: 1,
  Failed: 2,
  Canceled: 3,
  Succeeded: 4,
  Skipped: 5,
  PartiallySucceeded: 6,
} as const;
export type StepStatusValue = (typeof StepStatus)[keyof typeof StepStatus];

const RUN_LABELS = [
  'not_started',
  'running',
  'failed',
  'canceled',
  'succeeded',
  'queued',
  'partially_succeeded',
] as const;
const STEP_LABELS = [
  'not_started',
  'running',
  'failed',
  'canceled',
  'succeeded',
  'skipped',
  'partially_succeeded',
] as const;

export function runStatusLabel(status: number): string {
  return RUN_LABELS[status] ?? 'not_started';
}

export function stepStatusLabel(status: number): string {
  return STEP_LABELS[status] ?? 'not_started';
}

/** A step that will not change any more on its own. */
export function stepDone(status: number): boolean {
  return (
    status === StepStatus.Failed ||
    status === StepStatus.Canceled ||
    status === StepStatus.Succeeded ||
    status === StepStatus.Skipped ||
    status === StepStatus.PartiallySucceeded
  );
}

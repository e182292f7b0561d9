/**
 * Run statuses as the contract gives them (an integer and a lowercase label) and how the UI
 * shows each: a word and a tone the stylesheet colours.
 */

export type Tone = 'neutral' | 'running' | 'success' | 'failure' | 'warning' | 'queued' | 'muted';

interface StatusLook {
  readonly text: string;
  readonly tone: Tone;
}

const BY_LABEL: Readonly<Record<string, StatusLook>> = {
  not_started: { text: 'Not started', tone: 'muted' },
  running: { text: 'Running', tone: 'running' },
  failed: { text: 'Failed', tone: 'failure' },
  canceled: { text: 'Cancelled', tone: 'neutral' },
  cancelled: { text: 'Cancelled', tone: 'neutral' },
  succeeded: { text: 'Succeeded', tone: 'success' },
  queued: { text: 'Queued', tone: 'queued' },
  partially_succeeded: { text: 'Partially succeeded', tone: 'warning' },
  skipped: { text: 'Skipped', tone: 'muted' },
};

/** Labels by the run status integer, for answers that carry only the number. */
const RUN_LABELS = [
  'not_started',
  'running',
  'failed',
  'canceled',
  'succeeded',
  'queued',
  'partially_succeeded',
] as const;

export function statusLook(label: string, status?: number): StatusLook {
  const known = BY_LABEL[label] ?? (status === undefined ? undefined : BY_LABEL[RUN_LABELS[status] ?? '']);
  if (known !== undefined) return known;
  // A label this build does not know (a newer server): show it as written, plainly.
  return { text: label.replace(/_/g, ' ') || 'Unknown', tone: 'neutral' };
}

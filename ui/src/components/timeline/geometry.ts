/**
 * Where a run's timeline draws things: one row per step (handlers after), one bar per attempt
 * (a retry or a repeat) placed by its start and end on a shared time axis, and the axis ticks.
 * Pure: times in, fractions of the axis out; the component turns fractions into percentages.
 *
 * A step without attempt records (older runs) is one bar from its startedAt to its finishedAt.
 * A bar still running ends at `now`, so a re-render with a later `now` makes it grow.
 */
import { duration, instant } from '../../lib/time.ts';

export interface TimelineAttempt {
  readonly attempt: number;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly statusLabel: string;
  readonly exitCode?: number;
}

/** What the timeline needs of a run's node: the contract's fields plus Kubedag's attempts. */
export interface TimelineStep {
  readonly name: string;
  readonly statusLabel: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly retryCount: number;
  readonly doneCount: number;
  readonly attempts?: readonly TimelineAttempt[];
  readonly attemptsDropped?: number;
  /** A handler (onSuccess, onFailure, ...) rather than a step. */
  readonly handler?: boolean;
}

export interface Bar {
  readonly start: number;
  readonly end: number;
  /** Offset and length on the axis, each 0..1. */
  readonly left: number;
  readonly width: number;
  readonly statusLabel: string;
  readonly running: boolean;
  /** The attempt number, when the bar is one attempt of several. */
  readonly attempt?: number;
  readonly exitCode?: number;
}

export interface Row {
  readonly name: string;
  readonly statusLabel: string;
  readonly handler: boolean;
  readonly bars: readonly Bar[];
  readonly retries: number;
  /** Executions of a repeating step; 0 or 1 is no repeat worth marking. */
  readonly runs: number;
  /** Attempts older than those drawn. */
  readonly hiddenAttempts: number;
  /** First start to last end (or now), or undefined for a step that never started. */
  readonly took?: number;
}

export interface Tick {
  /** Milliseconds from the axis start. */
  readonly offset: number;
  readonly left: number;
}

export interface Timeline {
  readonly start: number;
  readonly end: number;
  readonly rows: readonly Row[];
  readonly ticks: readonly Tick[];
}

/**
 * How long a step or run took, for people: the API's times are whole seconds, so anything
 * shorter than one is "< 1 s", never a precise-looking "0 ms".
 */
export function elapsed(ms: number): string {
  return ms < 1_000 ? '< 1 s' : duration(ms);
}

/** The shortest axis drawn: a run of instantaneous steps still gets bars one can see. */
export const MIN_SPAN_MS = 1_000;

interface Span {
  readonly start: number;
  readonly end: number;
  readonly statusLabel: string;
  readonly running: boolean;
  readonly attempt?: number;
  readonly exitCode?: number;
}

/** The step's attempts as time spans; an open attempt runs until now, or until the step ended. */
function spans(step: TimelineStep, now: number): Span[] {
  const stepEnd = instant(step.finishedAt);
  const recorded = (step.attempts ?? []).flatMap((a): Span[] => {
    const start = instant(a.startedAt);
    if (start === undefined) return [];
    const end = instant(a.finishedAt);
    // An attempt left open in a step that ended (a stop) ends with the step.
    const running = end === undefined && stepEnd === undefined;
    return [
      {
        start,
        end: end ?? stepEnd ?? Math.max(now, start),
        statusLabel: running ? 'running' : a.statusLabel,
        running,
        attempt: a.attempt,
        ...(a.exitCode === undefined ? {} : { exitCode: a.exitCode }),
      },
    ];
  });
  if (recorded.length > 0) return recorded;
  const start = instant(step.startedAt);
  if (start === undefined) return [];
  const running = stepEnd === undefined && step.statusLabel === 'running';
  return [{ start, end: stepEnd ?? Math.max(now, start), statusLabel: step.statusLabel, running }];
}

const NICE_STEPS_MS = [1, 2, 5, 10, 15, 30]
  .map((s) => s * 1_000)
  .concat(
    [1, 2, 5, 10, 15, 30].map((m) => m * 60_000),
    [1, 2, 3, 6, 12].map((h) => h * 3_600_000),
    [1, 2, 7, 14, 30].map((d) => d * 86_400_000),
  );

/** Round offsets from the axis start, no more than `most` of them after 0. */
export function tickOffsets(span: number, most: number): number[] {
  const step = NICE_STEPS_MS.find((s) => span / s <= most) ?? Math.ceil(span / most);
  const offsets: number[] = [];
  for (let at = 0; at <= span; at += step) offsets.push(at);
  return offsets;
}

function row(step: TimelineStep, now: number): Omit<Row, 'bars'> & { spans: Span[] } {
  const all = spans(step, now);
  const first = Math.min(...all.map((s) => s.start));
  const last = Math.max(...all.map((s) => s.end));
  return {
    name: step.name,
    statusLabel: step.statusLabel,
    handler: step.handler === true,
    spans: all,
    retries: step.retryCount,
    runs: step.doneCount,
    hiddenAttempts: step.attemptsDropped ?? 0,
    ...(all.length === 0 ? {} : { took: last - first }),
  };
}

export function timeline(steps: readonly TimelineStep[], now: number, most = 6): Timeline {
  const rows = steps.map((s) => row(s, now));
  const every = rows.flatMap((r) => r.spans);
  const start = every.length === 0 ? now : Math.min(...every.map((s) => s.start));
  const end = Math.max(start + MIN_SPAN_MS, ...every.map((s) => s.end));
  const span = end - start;
  const place = (s: Span): Bar => ({
    ...s,
    left: (s.start - start) / span,
    width: Math.max(0, s.end - s.start) / span,
  });
  return {
    start,
    end,
    rows: rows.map(({ spans: own, ...rest }) => ({ ...rest, bars: own.map(place) })),
    ticks: tickOffsets(span, most).map((offset) => ({ offset, left: offset / span })),
  };
}

/**
 * What a DAG's schedules ask for at one minute (behaviour-notes 7). Pure: the scheduler loop
 * feeds it a DAG, its runs and the minute, and carries out the actions.
 */
import { nextFireTimes, type Dag, type Schedule } from '../../core/dag/index.ts';
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import { RunStatus, runActive } from '../../core/resources/status.ts';
import type { DagRunResource } from '../../core/resources/types.ts';

export type TickAction =
  | { readonly kind: 'start'; readonly dagRunId: string }
  | { readonly kind: 'stop'; readonly runs: readonly string[] }
  | { readonly kind: 'restart'; readonly run: string; readonly dagRunId: string; readonly waitSec: number }
  | { readonly kind: 'skip'; readonly reason: string };

export interface TickInput {
  readonly dag: Dag;
  /** The DAG's root runs (any order). */
  readonly runs: readonly DagRunResource[];
  /** The minute being evaluated: seconds and milliseconds zero. */
  readonly minute: Date;
  /** Zone of expressions without CRON_TZ (the scheduler's, default UTC). */
  readonly zone?: string;
  /**
   * The DAG's newest run when `runs` holds none of them because it was archived (the DAG
   * status's latestRun): what skipIfSuccessful and "a run this minute" judge by then.
   */
  readonly archivedLatest?: ArchivedLatest;
}

/** What the scheduler knows of an archived latest run: no creation time, so its start stands for it. */
export interface ArchivedLatest {
  readonly status: number;
  readonly startedAt?: string;
  readonly finishedAt?: string;
}

/** The latest run as startAction judges it, from etcd or the store. */
interface LatestFacts {
  readonly created: number;
  readonly status: number | undefined;
  readonly startedAt: string | undefined;
}

/** The start of the minute `at` falls in. */
export function minuteOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / 60_000) * 60_000);
}

/** Whether an expression fires at exactly this minute, in its zone. */
export function firesAt(schedule: Schedule, minute: Date, zone = 'UTC'): boolean {
  const [next] = nextFireTimes(schedule, new Date(minute.getTime() - 1), 1, zone);
  return next?.getTime() === minute.getTime();
}

/**
 * A scheduled run's id comes from its DAG and minute, so two operators (or one restarted) that
 * evaluate the same tick create the same run: the second create is a 409, never a second run.
 */
export function scheduledRunId(kind: 'scheduled' | 'restart', minute: Date): string {
  const stamp = minute.toISOString().slice(0, 16).replace(/[-:]/g, '');
  return `${kind}-${stamp}`;
}

const created = (run: DagRunResource): number => new Date(run.metadata?.creationTimestamp ?? 0).getTime();
const isRunning = (run: DagRunResource): boolean => runActive(run.status?.status);

function latestOf(runs: readonly DagRunResource[]): DagRunResource | undefined {
  return [...runs].sort((a, b) => created(b) - created(a))[0];
}

/** The calendar day of an instant in a zone, as YYYY-MM-DD. */
function dayIn(at: Date, zone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    at,
  );
}

/**
 * The latest run's facts: the newest in etcd, else the archived one, whose start stands for its
 * creation (a run starts after it is created, so "created in this minute" errs towards a skip).
 */
function latestFacts(
  latest: DagRunResource | undefined,
  archived: ArchivedLatest | undefined,
): LatestFacts | undefined {
  if (latest !== undefined)
    return { created: created(latest), status: latest.status?.status, startedAt: latest.status?.startedAt };
  if (archived === undefined) return undefined;
  const stand = Date.parse(archived.startedAt ?? archived.finishedAt ?? '');
  return { created: Number.isNaN(stand) ? 0 : stand, status: archived.status, startedAt: archived.startedAt };
}

function startAction(input: TickInput, schedule: Schedule, latest: LatestFacts | undefined): TickAction {
  const zone = schedule.timezone ?? input.zone ?? 'UTC';
  if (latest !== undefined) {
    if (runActive(latest.status)) return { kind: 'skip', reason: 'the latest run is still running' };
    if (latest.created >= input.minute.getTime())
      return { kind: 'skip', reason: 'a run was created in this minute already' };
    const started = latest.startedAt;
    if (
      input.dag.skipIfSuccessful &&
      latest.status === RunStatus.Succeeded &&
      started !== undefined &&
      dayIn(new Date(started), zone) === dayIn(input.minute, zone)
    ) {
      return { kind: 'skip', reason: 'skipIfSuccessful: the latest run succeeded today' };
    }
  }
  return { kind: 'start', dagRunId: scheduledRunId('scheduled', input.minute) };
}

/** Every action the DAG's start, stop and restart expressions call for at this minute. */
export function tickActions(input: TickInput): TickAction[] {
  const { schedule } = input.dag;
  const zone = input.zone ?? 'UTC';
  const fires = (list: readonly Schedule[]): Schedule | undefined =>
    list.find((s) => firesAt(s, input.minute, s.timezone ?? zone));
  const latest = latestOf(input.runs);
  const actions: TickAction[] = [];
  const stop = fires(schedule.stop);
  if (stop !== undefined && latest !== undefined && isRunning(latest)) {
    actions.push({ kind: 'stop', runs: input.runs.filter(isRunning).map((r) => r.metadata?.name ?? '') });
  }
  const restart = fires(schedule.restart);
  if (restart !== undefined && latest !== undefined && isRunning(latest)) {
    actions.push({
      kind: 'restart',
      run: latest.metadata?.name ?? '',
      dagRunId: scheduledRunId('restart', input.minute),
      waitSec: input.dag.restartWaitSec,
    });
  }
  const start = fires(schedule.start);
  if (start !== undefined) actions.push(startAction(input, start, latestFacts(latest, input.archivedLatest)));
  return actions;
}

export interface RestartPromise {
  /** The stopped run whose definition and params the new run takes. */
  readonly run: DagRunResource;
  readonly dagRunId: string;
  readonly at: Date;
  /** The new run exists: the promise only needs clearing. */
  readonly kept: boolean;
}

/**
 * Restarts that restart ticks promised: the stopped run names the new run's id and start time,
 * and the new run's existence marks the promise kept. `exists` says whether a run of a DAG name
 * with a run id is there in a namespace.
 */
export function restartPromises(
  runs: readonly DagRunResource[],
  exists: (namespace: string, dagName: string, dagRunId: string) => boolean,
): RestartPromise[] {
  return runs.flatMap((run) => {
    const annotations = run.metadata?.annotations ?? {};
    const dagRunId = annotations[ANNOTATIONS.restartRunId];
    const at = Date.parse(annotations[ANNOTATIONS.restartAt] ?? '');
    if (dagRunId === undefined || Number.isNaN(at)) return [];
    return [
      {
        run,
        dagRunId,
        at: new Date(at),
        kept: exists(run.metadata?.namespace ?? '', run.spec.dagName ?? '', dagRunId),
      },
    ];
  });
}

/**
 * What an informer does when its watch ends or its list fails: pure functions over the end
 * and the current streak of failures, tested as a table (watch-policy.test.ts).
 *
 * A watch that the server ends at its timeout is the normal life of a watch: it resumes at
 * once from the last resourceVersion (bookmarks keep that current), with a debug line at most.
 * 410 Gone means the version is too old: list afresh at once. Anything else is a failure:
 * retried after an exponential backoff with jitter, and after four in a row by a fresh list
 * (the version itself may be what the server chokes on). A streak of failures is logged once,
 * when it starts or its reason changes, and once more when the informer is healthy again; a
 * control plane that is down for minutes gives two lines, not hundreds. A watch still open
 * past its deadline sits on a dead connection: that connection is dropped before the retry.
 */
import type { WatchEnd, WatchOutcome } from './watch.ts';

export type LogLevel = 'debug' | 'info' | 'warn';

export interface LogLine {
  readonly level: LogLevel;
  readonly message: string;
}

/** Consecutive failures, and the reason of the last one. */
export interface Streak {
  readonly failures: number;
  readonly reason?: string;
}

export const HEALTHY: Streak = { failures: 0 };

export interface Next {
  /** `none`: the watch was cancelled by this process; whoever did that decides what follows. */
  readonly action: 'watch' | 'list' | 'none';
  readonly delayMs: number;
  readonly streak: Streak;
  readonly log?: LogLine;
  /**
   * The connection is presumed dead: drop it so that the next request opens a new one (over
   * HTTP/2 every watch and request shares it, and an aborted stream leaves it in place).
   */
  readonly reconnect?: true;
}

export interface WatchTimeouts {
  /** The server-side timeout is drawn from [minSeconds, 2 * minSeconds), as client-go's reflector does. */
  readonly minSeconds: number;
  /** How long past its timeoutSeconds an unended watch is given before it counts as stalled. */
  readonly graceMs: number;
}

/** Five to ten minutes, the client's deadline 30 s later. */
export const DEFAULT_WATCH_TIMEOUTS: WatchTimeouts = { minSeconds: 300, graceMs: 30_000 };

/** Failures in a row after which the informer lists afresh rather than watching again. */
export const LIST_AFTER_FAILURES = 4;
export const BACKOFF_BASE_MS = 200;
export const BACKOFF_MAX_MS = 30_000;
/** A watch that the server closes sooner than this, with no event, is a failure (client-go's rule too). */
export const SHORTEST_WATCH_MS = 1000;

/**
 * Random server timeouts keep a fleet of informers (and of operators) from all reconnecting
 * in the same second. `random` is in [0, 1).
 */
export function watchTimeoutSeconds(timeouts: WatchTimeouts, random: number): number {
  return Math.max(1, Math.floor(timeouts.minSeconds * (1 + random)));
}

/** The wait before attempt n+1 of a streak of n failures; `jitter` in [0, 1) spreads it by +-25 %. */
export function backoffMs(failures: number, jitter: number): number {
  if (failures <= 0) return 0;
  const raw = BACKOFF_BASE_MS * 2 ** Math.min(failures - 1, 16);
  return Math.min(BACKOFF_MAX_MS, Math.round(raw * (0.75 + jitter / 2)));
}

/**
 * What a failure with `reason` does to the streak, and the line it is worth. A failed list is
 * retried as a list; a failed watch as a watch until the streak is long.
 */
export function failed(reason: string, streak: Streak, jitter: number, what: 'watch' | 'list' = 'watch'): Next {
  const failures = streak.failures + 1;
  const delayMs = backoffMs(failures, jitter);
  const action = what === 'list' || failures >= LIST_AFTER_FAILURES ? 'list' : 'watch';
  const retry = `${action === 'list' ? 'listing afresh' : 'watching again'} in ${seconds(delayMs)}`;
  const known = streak.failures > 0 && streak.reason === reason;
  const failure = `${what} failed`;
  return {
    action,
    delayMs,
    streak: { failures, reason },
    log: known
      ? { level: 'debug', message: `${failure} again (${String(failures)} in a row): ${reason}; ${retry}` }
      : { level: 'warn', message: `${failure}: ${reason}; ${retry}` },
  };
}

/** The reason of a failed end, or undefined when the end is not a failure. */
function failure(outcome: WatchOutcome): string | undefined {
  const { end } = outcome;
  switch (end.kind) {
    case 'closed':
      return outcome.events === 0 && outcome.lastedMs < SHORTEST_WATCH_MS
        ? 'the server closed the watch at once, with no event'
        : undefined;
    case 'stalled':
      return `no end from the server ${seconds(end.afterMs)} after the watch started, past its timeout; the connection is presumed dead`;
    case 'status':
      return `HTTP ${String(end.code)}: ${end.reason}`;
    case 'broken':
      return end.reason;
    case 'cancelled':
      return undefined;
  }
}

const isGone = (end: WatchEnd): boolean => end.kind === 'status' && end.code === 410;

export function afterWatch(outcome: WatchOutcome, streak: Streak, jitter: number): Next {
  const { end } = outcome;
  if (end.kind === 'cancelled') return { action: 'none', delayMs: 0, streak };
  if (isGone(end)) {
    // The version is too old (compacted away): nothing is wrong with the connection.
    return {
      action: 'list',
      delayMs: 0,
      streak,
      log: {
        level: 'info',
        message: `resource version too old (${end.kind === 'status' ? end.reason : ''}); listing afresh`,
      },
    };
  }
  const reason = failure(outcome);
  if (reason !== undefined)
    return { ...failed(reason, streak, jitter), ...(end.kind === 'stalled' ? { reconnect: true } : {}) };
  const back = recovered(streak);
  return {
    action: 'watch',
    delayMs: 0,
    streak: back.streak,
    log: back.log ?? {
      level: 'debug',
      message: 'ended by the server at its timeout; watching again from the last resource version',
    },
  };
}

/** The informer works again (an event arrived, a list succeeded): the streak ends, said once. */
export function recovered(streak: Streak): { readonly streak: Streak; readonly log?: LogLine } {
  if (streak.failures === 0) return { streak };
  return {
    streak: HEALTHY,
    log: {
      level: 'info',
      message: `working again after ${String(streak.failures)} failed attempt${streak.failures === 1 ? '' : 's'}`,
    },
  };
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

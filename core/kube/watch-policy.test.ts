import { describe, expect, it } from 'vitest';
import type { WatchEnd } from './watch.ts';
import {
  afterWatch,
  backoffMs,
  failed,
  HEALTHY,
  recovered,
  watchTimeoutSeconds,
  type Next,
  type Streak,
} from './watch-policy.ts';

const long = 300_000;
const refused = 'connect ECONNREFUSED 127.0.0.1:6443';

describe('what an informer does when its watch ends', () => {
  const cases: {
    name: string;
    end: WatchEnd;
    events?: number;
    lastedMs?: number;
    streak?: Streak;
    jitter?: number;
    want: {
      action: Next['action'];
      delayMs: number;
      failures: number;
      level?: string;
      message?: RegExp;
      reconnect?: true;
    };
  }[] = [
    {
      name: 'a watch the server ended at its timeout resumes at once, with a debug line only',
      end: { kind: 'closed' },
      want: { action: 'watch', delayMs: 0, failures: 0, level: 'debug', message: /ended by the server at its timeout/ },
    },
    {
      name: 'a short watch that brought events and then ended is no failure',
      end: { kind: 'closed' },
      events: 3,
      lastedMs: 10,
      want: { action: 'watch', delayMs: 0, failures: 0, level: 'debug' },
    },
    {
      name: 'a watch the server closed at once with no event is a failure, retried after a backoff',
      end: { kind: 'closed' },
      lastedMs: 20,
      jitter: 0.5,
      want: { action: 'watch', delayMs: 200, failures: 1, level: 'warn', message: /closed the watch at once/ },
    },
    {
      name: 'a server-ended watch after a streak of failures says it works again',
      end: { kind: 'closed' },
      streak: { failures: 2, reason: refused },
      want: {
        action: 'watch',
        delayMs: 0,
        failures: 0,
        level: 'info',
        message: /working again after 2 failed attempts/,
      },
    },
    {
      name: '410 Gone lists afresh at once, at info, without counting a failure',
      end: { kind: 'status', code: 410, reason: 'too old resource version: 5 (90)' },
      want: { action: 'list', delayMs: 0, failures: 0, level: 'info', message: /too old.*listing afresh/ },
    },
    {
      name: '410 Gone during a streak leaves the streak as it is',
      end: { kind: 'status', code: 410, reason: 'gone' },
      streak: { failures: 2, reason: refused },
      want: { action: 'list', delayMs: 0, failures: 2, level: 'info' },
    },
    {
      name: 'a stalled watch drops its connection and is watched again, with a warning that says the connection is presumed dead',
      end: { kind: 'stalled', afterMs: 330_000 },
      jitter: 0.5,
      want: {
        action: 'watch',
        delayMs: 200,
        failures: 1,
        level: 'warn',
        message: /no end from the server 330 s after.*presumed dead/,
        reconnect: true,
      },
    },
    {
      name: 'a refused connection starts a streak with one warning that names it',
      end: { kind: 'broken', reason: refused },
      jitter: 0.5,
      want: {
        action: 'watch',
        delayMs: 200,
        failures: 1,
        level: 'warn',
        message: /watch failed: connect ECONNREFUSED.*watching again in 0.2 s/,
      },
    },
    {
      name: 'the same failure again is a debug line and waits twice as long',
      end: { kind: 'broken', reason: refused },
      streak: { failures: 1, reason: refused },
      jitter: 0.5,
      want: { action: 'watch', delayMs: 400, failures: 2, level: 'debug', message: /again \(2 in a row\)/ },
    },
    {
      name: 'a different failure during a streak is a warning again',
      end: { kind: 'status', code: 403, reason: 'forbidden' },
      streak: { failures: 2, reason: refused },
      jitter: 0.5,
      want: { action: 'watch', delayMs: 800, failures: 3, level: 'warn', message: /HTTP 403: forbidden/ },
    },
    {
      name: 'the fourth failure in a row lists afresh rather than watching again',
      end: { kind: 'broken', reason: refused },
      streak: { failures: 3, reason: refused },
      jitter: 0.5,
      want: { action: 'list', delayMs: 1600, failures: 4, level: 'debug', message: /listing afresh in 1.6 s/ },
    },
    {
      name: 'the backoff stops growing at 30 s',
      end: { kind: 'broken', reason: refused },
      streak: { failures: 20, reason: refused },
      jitter: 0.99,
      want: { action: 'list', delayMs: 30_000, failures: 21, level: 'debug' },
    },
    {
      name: 'a watch this process cancelled does nothing and says nothing',
      end: { kind: 'cancelled' },
      streak: { failures: 1, reason: refused },
      want: { action: 'none', delayMs: 0, failures: 1 },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const next = afterWatch(
        { end: c.end, events: c.events ?? 0, lastedMs: c.lastedMs ?? long },
        c.streak ?? HEALTHY,
        c.jitter ?? 0.5,
      );
      expect({
        action: next.action,
        delayMs: next.delayMs,
        failures: next.streak.failures,
        level: next.log?.level,
        reconnect: next.reconnect,
      }).toEqual({
        action: c.want.action,
        delayMs: c.want.delayMs,
        failures: c.want.failures,
        level: c.want.level,
        reconnect: c.want.reconnect,
      });
      if (c.want.message !== undefined) expect(next.log?.message).toMatch(c.want.message);
    });
  }
});

describe('what an informer does when a list fails, or works again', () => {
  it('a failed list is retried as a list after a backoff, with a warning that names the failure', () => {
    const next = failed('HTTP 503: unavailable', HEALTHY, 0.5, 'list');
    expect([next.action, next.delayMs, next.streak.failures, next.log?.level, next.log?.message]).toEqual([
      'list',
      200,
      1,
      'warn',
      'list failed: HTTP 503: unavailable; listing afresh in 0.2 s',
    ]);
  });

  it('an informer that never failed says nothing when it works', () => {
    expect(recovered(HEALTHY)).toEqual({ streak: HEALTHY });
  });

  it('an informer that works again after one failure says so once, at info', () => {
    expect(recovered({ failures: 1, reason: refused })).toEqual({
      streak: HEALTHY,
      log: { level: 'info', message: 'working again after 1 failed attempt' },
    });
  });
});

describe('timeouts and backoff', () => {
  const cases: { name: string; got: number; want: number }[] = [
    {
      name: 'the server timeout is the minimum when the draw is 0',
      got: watchTimeoutSeconds({ minSeconds: 300, graceMs: 0 }, 0),
      want: 300,
    },
    {
      name: 'the server timeout stays below twice the minimum',
      got: watchTimeoutSeconds({ minSeconds: 300, graceMs: 0 }, 0.999),
      want: 599,
    },
    {
      name: 'the server timeout is never below one second',
      got: watchTimeoutSeconds({ minSeconds: 0, graceMs: 0 }, 0.5),
      want: 1,
    },
    { name: 'no failure means no wait', got: backoffMs(0, 0.9), want: 0 },
    { name: 'jitter takes a quarter off at its lowest', got: backoffMs(3, 0), want: 600 },
    { name: 'jitter adds up to a quarter at its highest', got: backoffMs(3, 1), want: 1000 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(c.got).toBe(c.want);
    });
  }
});

import { describe, expect, it } from 'vitest';
import { loadDag } from '../../core/dag/index.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { dagRun } from '../../test/builders/dag-run.ts';
import { firesAt, minuteOf, restartPromises, scheduledRunId, tickActions } from './ticks.ts';

const dagOf = (yaml: string): ReturnType<typeof loadDag>['dag'] => {
  const load = loadDag(yaml, { fileName: 'nightly' });
  if (load.errors.length > 0) throw new Error(JSON.stringify(load.errors));
  return load.dag;
};

function run(name: string, created: string, status?: number, startedAt?: string): DagRunResource {
  const builder = dagRun(name).created(new Date(created)).spec({ dagName: 'nightly', dagRunId: name });
  return (
    status === undefined ? builder : builder.status({ status, ...(startedAt === undefined ? {} : { startedAt }) })
  ).build();
}

const at = (iso: string): Date => new Date(iso);

describe('firesAt', () => {
  const schedule = (expression: string): Parameters<typeof firesAt>[0] =>
    dagOf(`schedule: "${expression}"\nsteps: [echo]`).schedule.start[0] as Parameters<typeof firesAt>[0];
  it.each([
    ['every minute fires at any minute', '* * * * *', '2026-11-22T10:07:00Z', true],
    ['an hourly expression fires on the hour', '0 * * * *', '2026-11-22T10:00:00Z', true],
    ['an hourly expression does not fire at minute 7', '0 * * * *', '2026-11-22T10:07:00Z', false],
    [
      'a CRON_TZ expression fires in its own zone (09:00 Tokyo is 00:00 UTC)',
      'CRON_TZ=Asia/Tokyo 0 9 * * *',
      '2026-11-22T00:00:00Z',
      true,
    ],
    ['a CRON_TZ expression does not fire at 09:00 UTC', 'CRON_TZ=Asia/Tokyo 0 9 * * *', '2026-11-22T09:00:00Z', false],
  ])('%s', (_what, expression, minute, want) => {
    expect(firesAt(schedule(expression), at(minute))).toBe(want);
  });

  it('uses the scheduler zone for expressions without CRON_TZ', () => {
    expect(firesAt(schedule('0 9 * * *'), at('2026-11-22T08:00:00Z'), 'Europe/Berlin')).toBe(true);
  });
});

describe('scheduledRunId and minuteOf', () => {
  it('derives one id per DAG minute, valid as a run id', () => {
    expect(scheduledRunId('scheduled', minuteOf(at('2026-11-22T10:07:42.5Z')))).toBe('scheduled-20261122T1007');
    expect(scheduledRunId('restart', at('2026-01-02T03:04:00Z'))).toBe('restart-20260102T0304');
  });
});

describe('tickActions', () => {
  const minute = at('2026-11-22T10:00:00Z');
  const hourly = dagOf('schedule: "0 * * * *"\nsteps: [echo]');
  it.each([
    ['starts a DAG that never ran', hourly, [], [{ kind: 'start', dagRunId: 'scheduled-20261122T1000' }]],
    [
      'starts after a finished run',
      hourly,
      [run('a', '2026-11-22T09:00:00Z', 4)],
      [{ kind: 'start', dagRunId: 'scheduled-20261122T1000' }],
    ],
    [
      'skips while the latest run is running',
      hourly,
      [run('a', '2026-11-22T09:00:00Z', 1)],
      [{ kind: 'skip', reason: 'the latest run is still running' }],
    ],
    [
      'skips when a run was created in this minute (by another path)',
      hourly,
      [run('a', '2026-11-22T10:00:01Z', 4)],
      [{ kind: 'skip', reason: 'a run was created in this minute already' }],
    ],
    ['does nothing at a minute no expression fires', dagOf('schedule: "30 * * * *"\nsteps: [echo]'), [], []],
  ] as const)('%s', (_what, dag, runs, want) => {
    expect(tickActions({ dag, runs, minute })).toEqual(want);
  });

  it.each([
    ['skips when the latest run succeeded earlier today', 4, '2026-11-22T01:00:00Z', 'skip'],
    ['starts when the latest success was yesterday', 4, '2026-11-21T23:00:00Z', 'start'],
    ['starts when the latest run today failed', 2, '2026-11-22T01:00:00Z', 'start'],
  ])('with skipIfSuccessful, %s', (_what, status, startedAt, want) => {
    const dag = dagOf('schedule: "0 * * * *"\nskipIfSuccessful: true\nsteps: [echo]');
    const [action] = tickActions({ dag, runs: [run('a', startedAt, status, startedAt)], minute });
    expect(action?.kind).toBe(want);
  });

  it.each([
    ['skips when the archived latest run succeeded earlier today', 4, '2026-11-22T01:00:00Z', 'skip'],
    ['starts when the archived latest success was yesterday', 4, '2026-11-21T23:00:00Z', 'start'],
    ['starts when the archived latest run today failed', 2, '2026-11-22T01:00:00Z', 'start'],
  ])('with skipIfSuccessful and every run archived, %s', (_what, status, startedAt, want) => {
    const dag = dagOf('schedule: "0 * * * *"\nskipIfSuccessful: true\nsteps: [echo]');
    const [action] = tickActions({
      dag,
      runs: [],
      minute,
      archivedLatest: { status, startedAt, finishedAt: startedAt },
    });
    expect(action?.kind).toBe(want);
  });

  it('judges by the run still in etcd before the archived one', () => {
    const dag = dagOf('schedule: "0 * * * *"\nskipIfSuccessful: true\nsteps: [echo]');
    const [action] = tickActions({
      dag,
      runs: [run('a', '2026-11-22T02:00:00Z', 2, '2026-11-22T02:00:00Z')],
      minute,
      archivedLatest: { status: 4, startedAt: '2026-11-22T01:00:00Z' },
    });
    expect(action?.kind).toBe('start');
  });

  it('skips when the archived latest run started in this minute', () => {
    const [action] = tickActions({
      dag: hourly,
      runs: [],
      minute,
      archivedLatest: { status: 4, startedAt: '2026-11-22T10:00:02Z', finishedAt: '2026-11-22T10:00:05Z' },
    });
    expect(action).toEqual({ kind: 'skip', reason: 'a run was created in this minute already' });
  });

  it('judges "today" of skipIfSuccessful in the schedule zone', () => {
    // 23:30 UTC on the 21st is already the 22nd in Tokyo, the day of the tick (19:00 Tokyo).
    const dag = dagOf('schedule: "CRON_TZ=Asia/Tokyo 0 19 * * *"\nskipIfSuccessful: true\nsteps: [echo]');
    const [action] = tickActions({ dag, runs: [run('a', '2026-11-21T23:30:00Z', 4, '2026-11-21T23:30:00Z')], minute });
    expect(action?.kind).toBe('skip');
  });

  it('stops every running run when a stop expression fires, and only then', () => {
    const dag = dagOf('schedule: {start: "0 8 * * *", stop: "0 10 * * *"}\nsteps: [echo]');
    const runs = [
      run('old', '2026-11-22T08:00:00Z', 1),
      run('new', '2026-11-22T09:00:00Z', 1),
      run('done', '2026-11-22T07:00:00Z', 4),
    ];
    expect(tickActions({ dag, runs, minute })).toEqual([{ kind: 'stop', runs: ['old', 'new'] }]);
    expect(tickActions({ dag, runs: [run('done', '2026-11-22T07:00:00Z', 4)], minute })).toEqual([]);
  });

  it('restarts the latest running run after restartWaitSec when a restart expression fires', () => {
    const dag = dagOf('schedule: {start: "0 8 * * *", restart: "0 10 * * *"}\nrestartWaitSec: 30\nsteps: [echo]');
    expect(tickActions({ dag, runs: [run('live', '2026-11-22T08:00:00Z', 1)], minute })).toEqual([
      { kind: 'restart', run: 'live', dagRunId: 'restart-20261122T1000', waitSec: 30 },
    ]);
    expect(tickActions({ dag, runs: [run('done', '2026-11-22T08:00:00Z', 4)], minute })).toEqual([]);
  });
});

describe('restartPromises', () => {
  const stopped = (name: string, annotations: Record<string, string>): DagRunResource =>
    dagRun(name).namespace('team').annotate(annotations).spec({ dagName: 'nightly', dagRunId: name }).build();
  const promise = {
    'kubedag.io/restart-run-id': 'restart-20261122T1000',
    'kubedag.io/restart-at': '2026-11-22T10:00:30.000Z',
  };
  it.each([
    [
      'a stopped run whose successor does not exist yet holds a pending promise',
      [stopped('live', promise)],
      [],
      [{ dagRunId: 'restart-20261122T1000', at: '2026-11-22T10:00:30.000Z', kept: false }],
    ],
    [
      'a promise whose new run exists is kept (and only needs clearing)',
      [stopped('live', promise)],
      ['restart-20261122T1000'],
      [{ dagRunId: 'restart-20261122T1000', at: '2026-11-22T10:00:30.000Z', kept: true }],
    ],
    ['a run without the annotations promises nothing', [stopped('plain', {})], [], []],
    [
      'an unreadable start time is ignored rather than started at once',
      [stopped('live', { ...promise, 'kubedag.io/restart-at': 'soon' })],
      [],
      [],
    ],
  ] as const)('%s', (_what, runs, existing, want) => {
    const found = restartPromises(
      runs,
      (namespace, dagName, id) =>
        namespace === 'team' && dagName === 'nightly' && (existing as readonly string[]).includes(id),
    );
    expect(found.map((p) => ({ dagRunId: p.dagRunId, at: p.at.toISOString(), kept: p.kept }))).toEqual(want);
  });
});

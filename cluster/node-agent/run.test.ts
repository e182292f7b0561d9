import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { silentLogger } from '../../core/log.ts';
import { deadlineIn, newRun, recoveredRecord, stopRun, type PodRun } from './run.ts';
import type { RunningContainer } from './runtime.ts';
import type { ContainerRecord } from './status.ts';

/** A container that records the signals it gets and exits on the ones named in `exitsOn`. */
function fakeContainer(
  exitsOn: readonly NodeJS.Signals[],
  onExit: () => void,
): RunningContainer & { signals: NodeJS.Signals[] } {
  const signals: NodeJS.Signals[] = [];
  return {
    pid: 1,
    startedAt: new Date(0),
    exited: new Promise(() => undefined),
    signals,
    signal: (signal) => {
      signals.push(signal);
      if (exitsOn.includes(signal)) onExit();
    },
  };
}

/** A run of one container whose `done` resolves when the container exits. */
function runOf(exitsOn: readonly NodeJS.Signals[]): { run: PodRun; signals: NodeJS.Signals[] } {
  const run = newRun(
    { metadata: { uid: 'u1', namespace: 'ns', name: 'p' }, spec: { containers: [{ name: 'main' }] } },
    new Date(0),
    silentLogger,
  );
  let exit = (): void => undefined;
  run.done = new Promise((resolve) => {
    exit = resolve;
  });
  const container = fakeContainer(exitsOn, () => {
    run.running.delete('main');
    exit();
  });
  run.running.set('main', container);
  return { run, signals: container.signals };
}

describe('stopRun, the one way a Pod is stopped', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const cases: { name: string; exitsOn: NodeJS.Signals[]; graceSeconds: number; want: NodeJS.Signals[] }[] = [
    {
      name: 'a container that exits on SIGTERM gets no SIGKILL',
      exitsOn: ['SIGTERM'],
      graceSeconds: 30,
      want: ['SIGTERM'],
    },
    {
      name: 'a container that ignores SIGTERM is killed once the grace period is over',
      exitsOn: ['SIGKILL'],
      graceSeconds: 30,
      want: ['SIGTERM', 'SIGKILL'],
    },
    {
      name: 'a grace period of zero kills at once after SIGTERM',
      exitsOn: ['SIGKILL'],
      graceSeconds: 0,
      want: ['SIGTERM', 'SIGKILL'],
    },
  ];
  it.each(cases)('$name', async ({ exitsOn, graceSeconds, want }) => {
    const { run, signals } = runOf(exitsOn);
    const stopped = stopRun(run, graceSeconds);
    expect(run.stopping).toBe(true);
    await vi.advanceTimersByTimeAsync(graceSeconds * 1000);
    await stopped;
    expect(signals).toEqual(want);
  });

  it('sends SIGKILL no earlier than the grace period', async () => {
    const { run, signals } = runOf(['SIGKILL']);
    const stopped = stopRun(run, 5);
    await vi.advanceTimersByTimeAsync(4999);
    expect(signals).toEqual(['SIGTERM']);
    await vi.advanceTimersByTimeAsync(1);
    await stopped;
    expect(signals).toEqual(['SIGTERM', 'SIGKILL']);
  });
});

describe('recoveredRecord, a container of a Pod an earlier agent ran', () => {
  const now = new Date('2026-01-01T00:10:00Z');
  const started = new Date('2026-01-01T00:00:00Z');
  const ended = new Date('2026-01-01T00:05:00Z');
  const record: ContainerRecord = {
    name: 'main',
    image: 'img',
    init: false,
    phase: { kind: 'waiting', reason: 'ContainerCreating' },
    restartCount: 0,
  };
  const podWith = (
    state: NonNullable<NonNullable<V1Pod['status']>['containerStatuses']>[number]['state'],
    restartCount = 0,
  ): V1Pod => ({
    status: { containerStatuses: [{ name: 'main', image: 'img', imageID: '', ready: false, restartCount, state }] },
  });
  const cases: { name: string; pod: V1Pod; want: ContainerRecord }[] = [
    {
      name: 'a container that had ended keeps its exit code, reason and times',
      pod: podWith({ terminated: { exitCode: 2, reason: 'Error', startedAt: started, finishedAt: ended } }, 1),
      want: {
        ...record,
        restartCount: 1,
        phase: { kind: 'terminated', exitCode: 2, reason: 'Error', startedAt: started, finishedAt: ended },
      },
    },
    {
      name: 'a container that was running is reported killed now, with exit code 137',
      pod: podWith({ running: { startedAt: started } }),
      want: {
        ...record,
        phase: {
          kind: 'terminated',
          exitCode: 137,
          reason: 'NodeAgentRestarted',
          message: 'restarted',
          startedAt: started,
          finishedAt: now,
        },
      },
    },
    {
      name: 'a container that never started is reported killed, started and finished now',
      pod: {},
      want: {
        ...record,
        phase: {
          kind: 'terminated',
          exitCode: 137,
          reason: 'NodeAgentRestarted',
          message: 'restarted',
          startedAt: now,
          finishedAt: now,
        },
      },
    },
  ];
  it.each(cases)('$name', ({ pod, want }) => {
    expect(recoveredRecord(pod, record, 'restarted', now)).toEqual(want);
  });
});

describe('deadlineIn, the time activeDeadlineSeconds leaves a Pod', () => {
  const start = new Date('2026-01-01T00:00:00Z');
  const withDeadline = (seconds?: number): V1Pod => ({ spec: { containers: [], activeDeadlineSeconds: seconds } });
  const cases: { name: string; pod: V1Pod; now: string; want: number | undefined }[] = [
    { name: 'a Pod without a deadline has none', pod: withDeadline(), now: '2026-01-01T01:00:00Z', want: undefined },
    {
      name: 'a deadline not yet reached leaves the rest of its time',
      pod: withDeadline(60),
      now: '2026-01-01T00:00:45Z',
      want: 15_000,
    },
    {
      name: 'a deadline reached this instant leaves nothing',
      pod: withDeadline(60),
      now: '2026-01-01T00:01:00Z',
      want: 0,
    },
    {
      name: 'a deadline long passed leaves nothing, not a negative time',
      pod: withDeadline(60),
      now: '2026-01-01T00:05:00Z',
      want: 0,
    },
  ];
  it.each(cases)('$name', ({ pod, now, want }) => {
    expect(deadlineIn(pod, start, new Date(now))).toBe(want);
  });
});

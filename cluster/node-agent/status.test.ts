import { describe, expect, it } from 'vitest';
import { podPhase, podStatus, type ContainerPhase, type ContainerRecord } from './status.ts';

const t0 = new Date('2026-01-01T00:00:00Z');
const t1 = new Date('2026-01-01T00:00:05Z');
const waiting: ContainerPhase = { kind: 'waiting', reason: 'ContainerCreating' };
const running: ContainerPhase = { kind: 'running', startedAt: t0 };
const exited = (exitCode: number): ContainerPhase => ({
  kind: 'terminated',
  exitCode,
  reason: exitCode === 0 ? 'Completed' : 'Error',
  startedAt: t0,
  finishedAt: t1,
});
const record = (name: string, phase: ContainerPhase, init = false): ContainerRecord => ({
  name,
  image: 'img',
  init,
  phase,
  restartCount: 0,
});

describe('podPhase', () => {
  const cases: { name: string; records: ContainerRecord[]; want: string }[] = [
    { name: 'is Pending before any container runs', records: [record('a', waiting)], want: 'Pending' },
    {
      name: 'is Pending while an init container runs',
      records: [record('i', running, true), record('a', waiting)],
      want: 'Pending',
    },
    {
      name: 'is Failed when an init container fails',
      records: [record('i', exited(1), true), record('a', waiting)],
      want: 'Failed',
    },
    {
      name: 'is Running once a container runs after init',
      records: [record('i', exited(0), true), record('a', running)],
      want: 'Running',
    },
    {
      name: 'is Running while one container still runs and another ended',
      records: [record('a', exited(0)), record('b', running)],
      want: 'Running',
    },
    {
      name: 'is Succeeded when every container exited 0',
      records: [record('a', exited(0)), record('b', exited(0))],
      want: 'Succeeded',
    },
    {
      name: 'is Failed when any container exited non-zero',
      records: [record('a', exited(0)), record('b', exited(2))],
      want: 'Failed',
    },
  ];
  it.each(cases)('$name', ({ records, want }) => {
    expect(podPhase(records)).toBe(want);
  });
});

describe('podStatus', () => {
  it('reports a finished Pod as not ready with reason PodCompleted and the container end', () => {
    const status = podStatus({}, [record('main', exited(3))], t0, t1);
    expect(status.phase).toBe('Failed');
    expect(status.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      reason: 'PodCompleted',
    });
    expect(status.containerStatuses?.[0]).toMatchObject({
      name: 'main',
      image: 'img',
      ready: false,
      state: { terminated: { exitCode: 3, reason: 'Error' } },
    });
  });

  it('keeps the transition time of a condition whose status did not change', () => {
    const first = podStatus({}, [record('main', running)], t0, t0);
    const second = podStatus({ status: first }, [record('main', running)], t0, t1);
    expect(second.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime).toEqual(t0);
    const third = podStatus({ status: second }, [record('main', exited(0))], t0, t1);
    expect(third.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime).toEqual(t1);
  });

  it('lists init containers apart from containers', () => {
    const status = podStatus({}, [record('setup', exited(0), true), record('main', running)], t0, t1);
    expect(status.initContainerStatuses?.map((s) => s.name)).toEqual(['setup']);
    expect(status.containerStatuses?.map((s) => [s.name, s.ready])).toEqual([['main', true]]);
  });
});

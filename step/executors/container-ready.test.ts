import type { V1ContainerState, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { readiness } from './container-ready.ts';

const STARTED = Date.parse('2026-11-24T10:00:00Z');
const at = (seconds: number): number => STARTED + seconds * 1000;

function pod(state: V1ContainerState, extra: { phase?: string; ready?: boolean; deleting?: boolean } = {}): V1Pod {
  return {
    metadata: { name: 'r-container', ...(extra.deleting === true ? { deletionTimestamp: new Date(STARTED) } : {}) },
    status: {
      phase: extra.phase ?? 'Running',
      containerStatuses: [
        { name: 'main', state, ready: extra.ready ?? false, restartCount: 0, image: 'a', imageID: '' },
      ],
      conditions: [{ type: 'Ready', status: extra.ready === true ? 'True' : 'False' }],
    },
  };
}

const running: V1ContainerState = { running: { startedAt: new Date(STARTED) } };
const plain = { healthy: false, timeoutSeconds: 120 };

describe("whether the run's container is ready for a step", () => {
  it.each([
    {
      name: 'a running container is ready when nothing more is asked',
      pod: pod(running),
      ready: plain,
      now: at(1),
      log: undefined,
      want: { kind: 'ready' },
    },
    {
      name: 'a container still being created is waited for, however long',
      pod: pod({ waiting: { reason: 'ContainerCreating' } }, { phase: 'Pending' }),
      ready: plain,
      now: at(900),
      log: undefined,
      want: { kind: 'wait' },
    },
    {
      name: 'healthy waits for the Ready condition',
      pod: pod(running),
      ready: { ...plain, healthy: true },
      now: at(5),
      log: undefined,
      want: { kind: 'wait' },
    },
    {
      name: 'healthy is met by the Ready condition',
      pod: pod(running, { ready: true }),
      ready: { ...plain, healthy: true },
      now: at(5),
      log: undefined,
      want: { kind: 'ready' },
    },
    {
      name: 'a log pattern not matched yet is waited for',
      pod: pod(running),
      ready: { ...plain, logPattern: 'up' },
      now: at(119),
      log: false,
      want: { kind: 'wait' },
    },
    {
      name: 'a matched log pattern makes it ready',
      pod: pod(running),
      ready: { ...plain, logPattern: 'up' },
      now: at(3),
      log: true,
      want: { kind: 'ready' },
    },
    {
      name: 'a log pattern unmatched 120 s after the start fails with the pattern',
      pod: pod(running),
      ready: { ...plain, logPattern: 'up' },
      now: at(120),
      log: false,
      want: {
        kind: 'failed',
        reason:
          'the run\'s container r-container/main was not ready within 120 s of its start: no line of its log matched logPattern "up"',
      },
    },
    {
      name: 'not Ready 120 s after the start fails',
      pod: pod(running),
      ready: { ...plain, healthy: true },
      now: at(121),
      log: undefined,
      want: {
        kind: 'failed',
        reason: "the run's container r-container/main was not ready within 120 s of its start: its Pod was not Ready",
      },
    },
    {
      name: 'an image that cannot be pulled fails at once',
      pod: pod({ waiting: { reason: 'ImagePullBackOff', message: 'no such image' } }, { phase: 'Pending' }),
      ready: plain,
      now: at(0),
      log: undefined,
      want: {
        kind: 'failed',
        reason: "the run's container r-container/main cannot start: ImagePullBackOff: no such image",
      },
    },
    {
      name: 'a container that has ended fails with its exit code',
      pod: pod({ terminated: { exitCode: 2, reason: 'Error' } }, { phase: 'Failed' }),
      ready: plain,
      now: at(0),
      log: undefined,
      want: { kind: 'failed', reason: "the run's container r-container/main has ended (exit code 2, Error)" },
    },
    {
      name: 'a container being removed fails',
      pod: pod(running, { deleting: true }),
      ready: plain,
      now: at(0),
      log: undefined,
      want: { kind: 'failed', reason: "the run's container r-container/main is being removed" },
    },
  ])('$name', ({ pod: given, ready, now, log, want }) => {
    expect(readiness(given, 'main', ready, now, log)).toEqual(want);
  });
});

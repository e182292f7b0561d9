import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { podIdentity, podOver, podPhase } from './observed.ts';

const running = (name: string): V1ContainerStatus => ({
  name,
  image: 'i',
  imageID: '',
  ready: true,
  restartCount: 0,
  state: { running: {} },
});
const exited = (name: string, exitCode: number): V1ContainerStatus => ({
  name,
  image: 'i',
  imageID: '',
  ready: false,
  restartCount: 0,
  state: { terminated: { exitCode } },
});
const pod = (phase: string | undefined, containers: V1ContainerStatus[] = []): V1Pod => ({
  metadata: { name: 'p' },
  status: { ...(phase === undefined ? {} : { phase }), containerStatuses: containers },
});

describe("a step Pod's phase as its containers tell it", () => {
  it('is the kubelet phase while a container runs or none is reported', () => {
    expect(podPhase(pod(undefined))).toBe('Pending');
    expect(podPhase(pod('Pending'))).toBe('Pending');
    expect(podPhase(pod('Running', [running('step')]))).toBe('Running');
    expect(podPhase(pod('Running', [exited('step', 0), running('side')]))).toBe('Running');
  });

  it('is Succeeded once every container exited 0, before the kubelet says so', () => {
    expect(podPhase(pod('Running', [exited('step', 0)]))).toBe('Succeeded');
    expect(podPhase(pod('Running', [exited('step', 0), exited('side', 0)]))).toBe('Succeeded');
    expect(podOver(pod('Running', [exited('step', 0)]))).toBe(true);
    expect(podIdentity(pod('Running', [exited('step', 0)])).phase).toBe('Succeeded');
  });

  it('is Failed once every container ended and one did not exit 0', () => {
    expect(podPhase(pod('Running', [exited('step', 2)]))).toBe('Failed');
    expect(podPhase(pod('Running', [exited('step', 0), exited('side', 137)]))).toBe('Failed');
  });

  it("keeps the kubelet's terminal phase (a Pod failed without an exit, evicted)", () => {
    expect(podPhase(pod('Failed', [running('step')]))).toBe('Failed');
    expect(podPhase(pod('Succeeded'))).toBe('Succeeded');
    expect(podOver(pod('Running', [running('step')]))).toBe(false);
  });
});

/**
 * A Pod's status from what the agent knows of its containers: phase, conditions and container
 * statuses as the kubelet reports them. Pure, so it is tested without a cluster.
 */
import type { V1ContainerState, V1ContainerStatus, V1Pod, V1PodCondition, V1PodStatus } from '@kubernetes/client-node';

export type ContainerPhase =
  | { readonly kind: 'waiting'; readonly reason: string; readonly message?: string }
  | { readonly kind: 'running'; readonly startedAt: Date }
  | {
      readonly kind: 'terminated';
      readonly exitCode: number;
      readonly reason: string;
      readonly message?: string;
      readonly startedAt: Date;
      readonly finishedAt: Date;
    };

export interface ContainerRecord {
  readonly name: string;
  readonly image: string;
  readonly init: boolean;
  readonly phase: ContainerPhase;
  readonly restartCount: number;
}

function state(phase: ContainerPhase): V1ContainerState {
  switch (phase.kind) {
    case 'waiting':
      return { waiting: { reason: phase.reason, ...(phase.message === undefined ? {} : { message: phase.message }) } };
    case 'running':
      return { running: { startedAt: phase.startedAt } };
    case 'terminated':
      return {
        terminated: {
          exitCode: phase.exitCode,
          reason: phase.reason,
          ...(phase.message === undefined ? {} : { message: phase.message }),
          startedAt: phase.startedAt,
          finishedAt: phase.finishedAt,
        },
      };
  }
}

function containerStatus(record: ContainerRecord): V1ContainerStatus {
  const running = record.phase.kind === 'running';
  return {
    name: record.name,
    image: record.image,
    // The image is recorded, never pulled: there is no digest to report.
    imageID: `kubedag-local://${record.image}`,
    containerID: `kubedag://${record.name}-${String(record.restartCount)}`,
    ready: running && !record.init,
    started: running,
    restartCount: record.restartCount,
    state: state(record.phase),
  };
}

const succeeded = (r: ContainerRecord): boolean => r.phase.kind === 'terminated' && r.phase.exitCode === 0;
const failed = (r: ContainerRecord): boolean => r.phase.kind === 'terminated' && r.phase.exitCode !== 0;

/** Pending, Running, Succeeded or Failed, for restartPolicy Never (OnFailure/Always restart in pods.ts). */
export function podPhase(records: readonly ContainerRecord[]): NonNullable<V1PodStatus['phase']> {
  const inits = records.filter((r) => r.init);
  const mains = records.filter((r) => !r.init);
  if (inits.some(failed)) return 'Failed';
  if (!inits.every(succeeded)) return 'Pending';
  if (mains.length > 0 && mains.every((r) => r.phase.kind === 'terminated'))
    return mains.every(succeeded) ? 'Succeeded' : 'Failed';
  return mains.some((r) => r.phase.kind === 'running' || r.phase.kind === 'terminated') ? 'Running' : 'Pending';
}

function condition(type: string, status: boolean, reason?: string): V1PodCondition {
  return { type, status: status ? 'True' : 'False', ...(reason === undefined ? {} : { reason }) };
}

/**
 * The status to write. Condition transition times are kept from `previous` when the status of
 * a condition did not change, as the kubelet does.
 */
export function podStatus(pod: V1Pod, records: readonly ContainerRecord[], startTime: Date, now: Date): V1PodStatus {
  const phase = podPhase(records);
  const inits = records.filter((r) => r.init);
  const mains = records.filter((r) => !r.init);
  const initialized = inits.every(succeeded);
  const terminal = phase === 'Succeeded' || phase === 'Failed';
  const ready = !terminal && mains.length > 0 && mains.every((r) => r.phase.kind === 'running');
  const completed = terminal ? 'PodCompleted' : undefined;
  const conditions = [
    condition('PodReadyToStartContainers', !terminal),
    condition('Initialized', initialized, initialized ? undefined : 'ContainersNotInitialized'),
    condition('Ready', ready, ready ? undefined : (completed ?? 'ContainersNotReady')),
    condition('ContainersReady', ready, ready ? undefined : (completed ?? 'ContainersNotReady')),
    condition('PodScheduled', true),
  ];
  const previous = new Map((pod.status?.conditions ?? []).map((c) => [c.type, c]));
  return {
    phase,
    conditions: conditions.map((c) => {
      const before = previous.get(c.type);
      return {
        ...c,
        lastTransitionTime:
          before?.status === c.status && before.lastTransitionTime !== undefined ? before.lastTransitionTime : now,
      };
    }),
    hostIP: '127.0.0.1',
    hostIPs: [{ ip: '127.0.0.1' }],
    podIP: '127.0.0.1',
    podIPs: [{ ip: '127.0.0.1' }],
    startTime,
    qosClass: pod.status?.qosClass ?? 'BestEffort',
    initContainerStatuses: inits.map(containerStatus),
    containerStatuses: mains.map(containerStatus),
  };
}

/** `Completed` for exit 0, `Error` otherwise, as the kubelet reports terminated containers. */
export function terminationReason(exitCode: number): string {
  return exitCode === 0 ? 'Completed' : 'Error';
}

/**
 * GET /workers as a pure view (behaviour-notes 9: workers are the cluster's nodes). Health
 * comes from the node's heartbeat: its Lease in kube-node-lease, which the kubelet renews every
 * few seconds; the Ready condition's heartbeat is only a fallback, since the kubelet rewrites the
 * node status on change or every few minutes, not on each beat.
 */
import type { V1Lease, V1Node, V1Pod } from '@kubernetes/client-node';
import { LABELS } from '../../core/resources/constants.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { compareText, instant, iso } from './format.ts';
import { runIdentity } from './identity.ts';

export type WorkerHealth = 'healthy' | 'warning' | 'unhealthy';

/** The contract's token for each health level (api-v2 Worker). */
export const HEALTH_STATUS = {
  healthy: 'WORKER_HEALTH_STATUS_HEALTHY',
  warning: 'WORKER_HEALTH_STATUS_WARNING',
  unhealthy: 'WORKER_HEALTH_STATUS_UNHEALTHY',
} as const satisfies Record<WorkerHealth, string>;

export const HEALTHY_UNDER_MS = 5_000;
export const WARNING_UP_TO_MS = 15_000;

export interface RunningTask {
  readonly dagName: string;
  readonly dagRunId: string;
  readonly rootDagRunName: string;
  readonly rootDagRunId: string;
  /** Empty for a root run. */
  readonly parentDagRunName: string;
  readonly parentDagRunId: string;
  readonly startedAt: string;
}

export interface Worker {
  readonly id: string;
  readonly labels: Record<string, string>;
  readonly health_status: (typeof HEALTH_STATUS)[WorkerHealth];
  /** ISO 8601 UTC; empty when the node never reported a heartbeat. */
  readonly last_heartbeat: string;
  readonly running_tasks: RunningTask[];
  // The reference's field names, kept beside the contract's (behaviour-notes 2, DECISION).
  readonly healthStatus: WorkerHealth;
  readonly lastHeartbeatAt: string;
  readonly runningTasks: RunningTask[];
  readonly totalPollers: number;
  readonly busyPollers: number;
}

export interface WorkersInput {
  readonly nodes: readonly V1Node[];
  /** Node Leases (namespace kube-node-lease), each named like its node. */
  readonly leases: readonly V1Lease[];
  /** Kubedag step Pods. */
  readonly pods: readonly V1Pod[];
  readonly runs: (resourceName: string, namespace: string) => DagRunResource | undefined;
  readonly now: Date;
}

/** Health by heartbeat age: under 5 s healthy, 5-15 s warning, beyond or unknown unhealthy. */
export function workerHealth(ageMs: number | undefined): WorkerHealth {
  if (ageMs === undefined || Number.isNaN(ageMs)) return 'unhealthy';
  // A heartbeat slightly in the future is clock skew between nodes, not a sign of trouble.
  if (ageMs < HEALTHY_UNDER_MS) return 'healthy';
  return ageMs <= WARNING_UP_TO_MS ? 'warning' : 'unhealthy';
}

export function workers(input: WorkersInput): Worker[] {
  const leases = new Map(input.leases.map((lease) => [lease.metadata?.name ?? '', lease]));
  const tasks = tasksByNode(input.pods, input.runs);
  return input.nodes
    .map((node) => {
      const id = node.metadata?.name ?? '';
      const lease = leases.get(id);
      const heartbeat = heartbeatOf(node, lease);
      const health = workerHealth(
        heartbeat === undefined ? undefined : input.now.getTime() - heartbeat - renewPeriodMs(lease),
      );
      const lastHeartbeat = iso(heartbeat === undefined ? undefined : new Date(heartbeat));
      const running = tasks.get(id) ?? [];
      return {
        id,
        labels: { ...node.metadata?.labels },
        health_status: HEALTH_STATUS[health],
        last_heartbeat: lastHeartbeat,
        running_tasks: running,
        healthStatus: health,
        lastHeartbeatAt: lastHeartbeat,
        runningTasks: running,
        totalPollers: podCapacity(node),
        busyPollers: running.length,
      };
    })
    .sort((a, b) => compareText(a.id, b.id));
}

/**
 * How long a node may go between heartbeats by design. The contract's thresholds assume a
 * heartbeat every second; a kubelet renews its Lease every quarter of the Lease's duration
 * (10 s of 40 s), so the thresholds count from when the next renewal was due, or every
 * healthy node would show a warning for half of each period.
 */
function renewPeriodMs(lease: V1Lease | undefined): number {
  const seconds = lease?.spec?.leaseDurationSeconds;
  return seconds === undefined || lease?.spec?.renewTime === undefined ? 0 : (seconds * 1000) / 4;
}

function heartbeatOf(node: V1Node, lease: V1Lease | undefined): number | undefined {
  const renewed = instant(lease?.spec?.renewTime);
  if (renewed !== undefined) return renewed;
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  return instant(ready?.lastHeartbeatTime);
}

/** Each kubedag Pod occupies one of the node's Pod slots, so those slots are the pollers. */
function podCapacity(node: V1Node): number {
  const pods = node.status?.allocatable?.pods ?? '';
  return /^\d+$/.test(pods) ? Number(pods) : 0;
}

/** A Pod is a running task once the scheduler bound it: Pending then means pulling or starting. */
function occupiesNode(pod: V1Pod): string | undefined {
  const node = pod.spec?.nodeName;
  if (node === undefined || node === '') return undefined;
  const phase = pod.status?.phase;
  return phase === 'Running' || phase === 'Pending' ? node : undefined;
}

/**
 * The DAGRun resource a Pod belongs to. The controller owner reference holds the exact name;
 * the label may only hold a derived form of a long name (label values stop at 63 characters).
 */
function owningRunName(pod: V1Pod): string | undefined {
  const owner = pod.metadata?.ownerReferences?.find((ref) => ref.kind === 'DAGRun' && ref.controller === true);
  return owner?.name ?? pod.metadata?.labels?.[LABELS.run];
}

function tasksByNode(pods: readonly V1Pod[], runs: WorkersInput['runs']): Map<string, RunningTask[]> {
  const byNode = new Map<string, RunningTask[]>();
  for (const pod of pods) {
    const node = occupiesNode(pod);
    const runName = owningRunName(pod);
    if (node === undefined || runName === undefined) continue;
    const run = runs(runName, pod.metadata?.namespace ?? '');
    // A Pod whose run is gone is being garbage-collected; it names nothing the API can address.
    if (run === undefined) continue;
    const list = byNode.get(node) ?? [];
    list.push(task(run, pod));
    byNode.set(node, list);
  }
  for (const list of byNode.values()) list.sort(compareTasks);
  return byNode;
}

function task(run: DagRunResource, pod: V1Pod): RunningTask {
  const id = runIdentity(run);
  return {
    dagName: id.name,
    dagRunId: id.dagRunId,
    rootDagRunName: id.rootName,
    rootDagRunId: id.rootId,
    parentDagRunName: id.parentName,
    parentDagRunId: id.parentId,
    // The run's start is the task's start in the contract's sense; the Pod's is a fallback.
    startedAt: iso(run.status?.startedAt) || iso(pod.status?.startTime),
  };
}

function compareTasks(a: RunningTask, b: RunningTask): number {
  return (
    compareText(a.startedAt, b.startedAt) || compareText(a.dagName, b.dagName) || compareText(a.dagRunId, b.dagRunId)
  );
}

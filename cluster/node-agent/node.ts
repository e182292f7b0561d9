/**
 * The Node object of this agent and its heartbeats: registration (labels, addresses, capacity,
 * the log endpoint's port), a Lease in kube-node-lease renewed every 10 s, and the Ready
 * condition refreshed every minute.
 */
import { arch } from 'node:os';
import type { CoordinationV1Api, CoreV1Api, V1LeaseSpec, V1Node, V1NodeStatus } from '@kubernetes/client-node';
import { ignoreNotFound, isAlreadyExists } from '../../core/kube/errors.ts';
import { MicroTime, type Clock } from '../../core/kube/time.ts';

export interface NodeIdentity {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Port of the kubelet-style HTTPS endpoint (container logs). */
  readonly port: number;
  readonly kubernetesVersion: string;
}

const LEASE_SECONDS = 40;

/** Features the node says it has, as a kubelet declares them in its status. */
export const DECLARED_FEATURES = ['ExtendWebSocketsToKubelet'] as const;

/** How many Pods the node says it takes, as a kubelet's default maxPods. */
export const POD_CAPACITY = 110;

const GO_ARCH: Readonly<Record<string, string>> = { x64: 'amd64', arm64: 'arm64' };
const goArch = (): string => GO_ARCH[arch()] ?? arch();

export function nodeStatus(identity: NodeIdentity, now: Date, previous?: V1NodeStatus): V1NodeStatus {
  const resources = { cpu: '8', memory: '16Gi', pods: String(POD_CAPACITY), 'ephemeral-storage': '100Gi' };
  const transition = (type: string, status: string): Date => {
    const before = previous?.conditions?.find((c) => c.type === type);
    return before?.status === status && before.lastTransitionTime !== undefined ? before.lastTransitionTime : now;
  };
  const condition = (
    type: string,
    status: 'True' | 'False',
    reason: string,
    message: string,
  ): NonNullable<V1NodeStatus['conditions']>[number] => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: now,
    lastTransitionTime: transition(type, status),
  });
  return {
    capacity: resources,
    allocatable: resources,
    addresses: [
      { type: 'InternalIP', address: '127.0.0.1' },
      { type: 'Hostname', address: identity.name },
    ],
    conditions: [
      condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'node agent has sufficient memory available'),
      condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'node agent has no disk pressure'),
      condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'node agent has sufficient PID available'),
      condition('Ready', 'True', 'KubeletReady', 'kubedag node agent is posting ready status'),
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: identity.port } },
    // kube-apiserver then hands WebSocket exec requests to the agent as they come instead of
    // translating them to SPDY, which the agent does not speak.
    declaredFeatures: [...DECLARED_FEATURES],
    nodeInfo: {
      architecture: goArch(),
      operatingSystem: 'linux',
      osImage: 'kubedag node agent (local processes)',
      kernelVersion: '',
      kubeletVersion: identity.kubernetesVersion,
      kubeProxyVersion: '',
      containerRuntimeVersion: 'kubedag-local://0.1.0',
      machineID: identity.name,
      systemUUID: identity.name,
      bootID: identity.name,
    },
  };
}

function nodeLabels(identity: NodeIdentity): Record<string, string> {
  return {
    'kubernetes.io/hostname': identity.name,
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': goArch(),
    ...identity.labels,
  };
}

/** Creates the Node, or takes over the one an earlier run of this agent created. */
export async function registerNode(api: CoreV1Api, identity: NodeIdentity, clock: Clock): Promise<void> {
  let node: V1Node;
  try {
    node = await api.createNode({ body: { metadata: { name: identity.name, labels: nodeLabels(identity) } } });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    const existing = await api.readNode({ name: identity.name });
    node = await api.replaceNode({
      name: identity.name,
      body: {
        ...existing,
        metadata: { ...existing.metadata, labels: { ...existing.metadata?.labels, ...nodeLabels(identity) } },
      },
    });
  }
  await api.replaceNodeStatus({
    name: identity.name,
    body: { ...node, status: nodeStatus(identity, clock.now(), node.status) },
  });
}

export async function heartbeatStatus(api: CoreV1Api, identity: NodeIdentity, clock: Clock): Promise<void> {
  const node = await api.readNode({ name: identity.name });
  await api.replaceNodeStatus({
    name: identity.name,
    body: { ...node, status: nodeStatus(identity, clock.now(), node.status) },
  });
}

/** The node Lease's spec as of `now`: held by this node, renewed now. */
export function leaseSpec(identity: NodeIdentity, now: Date): V1LeaseSpec {
  return { holderIdentity: identity.name, leaseDurationSeconds: LEASE_SECONDS, renewTime: new MicroTime(now) };
}

export async function renewLease(api: CoordinationV1Api, identity: NodeIdentity, clock: Clock): Promise<void> {
  const namespace = 'kube-node-lease';
  const spec = leaseSpec(identity, clock.now());
  const lease = await ignoreNotFound(api.readNamespacedLease({ name: identity.name, namespace }));
  if (lease === undefined) {
    await api.createNamespacedLease({ namespace, body: { metadata: { name: identity.name, namespace }, spec } });
    return;
  }
  await api.replaceNamespacedLease({
    name: identity.name,
    namespace,
    body: { ...lease, spec: { ...lease.spec, ...spec } },
  });
}

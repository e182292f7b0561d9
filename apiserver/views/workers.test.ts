import type { V1Lease, V1Node, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { MicroTime } from '../../core/kube/time.ts';
import { LABELS } from '../../core/resources/constants.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { dagRun } from '../../test/builders/dag-run.ts';
import { pod as aPod } from '../../test/builders/pod.ts';
import { workerHealth, workers, type WorkersInput } from './workers.ts';

const NOW = new Date('2026-11-22T10:00:00Z');
const NAMESPACE = 'kubedag';

function secondsAgo(seconds: number): Date {
  return new Date(NOW.getTime() - seconds * 1000);
}

function node(
  name: string,
  options: { labels?: Record<string, string>; pods?: string; readyHeartbeat?: Date | string } = {},
): V1Node {
  return {
    metadata: { name, ...(options.labels === undefined ? {} : { labels: options.labels }) },
    status: {
      ...(options.pods === undefined ? {} : { allocatable: { cpu: '2', pods: options.pods } }),
      ...(options.readyHeartbeat === undefined
        ? {}
        : { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: options.readyHeartbeat as Date }] }),
    },
  };
}

function lease(name: string, renewTime: Date | string | undefined, leaseDurationSeconds?: number): V1Lease {
  return {
    metadata: { name, namespace: 'kube-node-lease' },
    spec: {
      holderIdentity: name,
      ...(renewTime === undefined ? {} : { renewTime: renewTime as Date }),
      ...(leaseDurationSeconds === undefined ? {} : { leaseDurationSeconds }),
    },
  };
}

interface PodOptions {
  readonly node?: string;
  readonly phase?: string;
  readonly run: string;
  /** Where the run name is found: the owner reference (as the operator sets it) or only the label. */
  readonly via?: 'owner' | 'label';
  readonly startTime?: Date;
}

function pod(name: string, options: PodOptions): V1Pod {
  const builder = aPod(name)
    .namespace(NAMESPACE)
    .label({ [LABELS.run]: options.via === 'label' ? options.run : options.run.slice(0, 63), [LABELS.step]: 'step' })
    .status({
      phase: options.phase ?? 'Running',
      ...(options.startTime === undefined ? {} : { startTime: options.startTime }),
    });
  if (options.via !== 'label') builder.ownedBy(options.run);
  if (options.node !== undefined) builder.on(options.node);
  return builder.build();
}

function run(
  resource: string,
  options: { dag: string; id: string; startedAt?: string; root?: [string, string]; parent?: [string, string] },
): DagRunResource {
  return dagRun(resource)
    .namespace(NAMESPACE)
    .of(options.dag, options.id)
    .spec({
      ...(options.root === undefined ? {} : { root: { name: options.root[0], dagRunId: options.root[1] } }),
      ...(options.parent === undefined ? {} : { parent: { name: options.parent[0], dagRunId: options.parent[1] } }),
    })
    .status({ status: 1, ...(options.startedAt === undefined ? {} : { startedAt: options.startedAt }) })
    .build();
}

function view(input: Partial<WorkersInput> & { runList?: DagRunResource[] }): ReturnType<typeof workers> {
  const byName = new Map(
    (input.runList ?? []).map((r) => [`${r.metadata?.namespace ?? ''}/${r.metadata?.name ?? ''}`, r]),
  );
  return workers({
    nodes: input.nodes ?? [],
    leases: input.leases ?? [],
    pods: input.pods ?? [],
    runs: input.runs ?? ((name, namespace) => byName.get(`${namespace}/${name}`)),
    now: input.now ?? NOW,
  });
}

describe('worker health by heartbeat age', () => {
  it.each([
    { age: 0, want: 'healthy' },
    { age: 4_999, want: 'healthy' },
    { age: -2_000, want: 'healthy' },
    { age: 5_000, want: 'warning' },
    { age: 15_000, want: 'warning' },
    { age: 15_001, want: 'unhealthy' },
    { age: 600_000, want: 'unhealthy' },
    { age: undefined, want: 'unhealthy' },
    { age: Number.NaN, want: 'unhealthy' },
  ])('calls a heartbeat $age ms old $want', ({ age, want }) => {
    expect(workerHealth(age)).toBe(want);
  });
});

describe('the workers view', () => {
  it('lists an empty cluster as no workers', () => {
    expect(view({})).toEqual([]);
  });

  it.each([
    {
      name: 'a lease renewed 1 s ago as a Date',
      leases: [lease('n1', secondsAgo(1))],
      ready: undefined,
      health: 'healthy',
      beat: '2026-11-22T09:59:59Z',
    },
    {
      name: 'a lease renewed 1 s ago as MicroTime text',
      leases: [lease('n1', '2026-11-22T09:59:59.000000Z')],
      ready: undefined,
      health: 'healthy',
      beat: '2026-11-22T09:59:59Z',
    },
    {
      name: 'a lease renewed 1 s ago as a MicroTime',
      leases: [lease('n1', new MicroTime(secondsAgo(1)))],
      ready: undefined,
      health: 'healthy',
      beat: '2026-11-22T09:59:59Z',
    },
    {
      name: 'a lease renewed with an offset',
      leases: [lease('n1', '2026-11-22T11:59:50+02:00')],
      ready: undefined,
      health: 'warning',
      beat: '2026-11-22T09:59:50Z',
    },
    {
      name: 'a lease renewed 10 s ago',
      leases: [lease('n1', secondsAgo(10))],
      ready: undefined,
      health: 'warning',
      beat: '2026-11-22T09:59:50Z',
    },
    {
      name: 'a lease renewed 20 s ago',
      leases: [lease('n1', secondsAgo(20))],
      ready: undefined,
      health: 'unhealthy',
      beat: '2026-11-22T09:59:40Z',
    },
    {
      name: "a kubelet's 40 s lease renewed 12 s ago, due every 10 s",
      leases: [lease('n1', secondsAgo(12), 40)],
      ready: undefined,
      health: 'healthy',
      beat: '2026-11-22T09:59:48Z',
    },
    {
      name: "a kubelet's 40 s lease renewed 20 s ago",
      leases: [lease('n1', secondsAgo(20), 40)],
      ready: undefined,
      health: 'warning',
      beat: '2026-11-22T09:59:40Z',
    },
    {
      name: "a kubelet's 40 s lease renewed 30 s ago",
      leases: [lease('n1', secondsAgo(30), 40)],
      ready: undefined,
      health: 'unhealthy',
      beat: '2026-11-22T09:59:30Z',
    },
    {
      name: 'a lease over a fresher Ready heartbeat',
      leases: [lease('n1', secondsAgo(20))],
      ready: secondsAgo(1),
      health: 'unhealthy',
      beat: '2026-11-22T09:59:40Z',
    },
    {
      name: 'the Ready heartbeat without a lease',
      leases: [],
      ready: secondsAgo(2),
      health: 'healthy',
      beat: '2026-11-22T09:59:58Z',
    },
    {
      name: 'the Ready heartbeat as text when the lease has no renew time',
      leases: [lease('n1', undefined)],
      ready: '2026-11-22T09:59:30Z',
      health: 'unhealthy',
      beat: '2026-11-22T09:59:30Z',
    },
    {
      name: 'the Ready heartbeat when the lease time is unreadable',
      leases: [lease('n1', 'not a time')],
      ready: secondsAgo(6),
      health: 'warning',
      beat: '2026-11-22T09:59:54Z',
    },
    { name: 'no heartbeat at all', leases: [], ready: undefined, health: 'unhealthy', beat: '' },
    {
      name: 'only the lease of another node',
      leases: [lease('n2', secondsAgo(1))],
      ready: undefined,
      health: 'unhealthy',
      beat: '',
    },
  ])('judges health from $name', ({ leases, ready, health, beat }) => {
    const [worker] = view({ nodes: [node('n1', ready === undefined ? {} : { readyHeartbeat: ready })], leases });
    expect(worker).toMatchObject({
      healthStatus: health,
      health_status: `WORKER_HEALTH_STATUS_${health.toUpperCase()}`,
      last_heartbeat: beat,
      lastHeartbeatAt: beat,
    });
  });

  it('carries the node labels and its Pod capacity as pollers', () => {
    const [worker] = view({
      nodes: [node('n1', { labels: { 'kubernetes.io/os': 'linux', gpu: 'true' }, pods: '110' })],
      leases: [lease('n1', NOW)],
    });
    expect(worker).toEqual({
      id: 'n1',
      labels: { 'kubernetes.io/os': 'linux', gpu: 'true' },
      health_status: 'WORKER_HEALTH_STATUS_HEALTHY',
      last_heartbeat: '2026-11-22T10:00:00Z',
      running_tasks: [],
      healthStatus: 'healthy',
      lastHeartbeatAt: '2026-11-22T10:00:00Z',
      runningTasks: [],
      totalPollers: 110,
      busyPollers: 0,
    });
  });

  it.each([
    { name: 'no allocatable pods', pods: undefined, want: 0 },
    { name: 'a quantity that is not a count', pods: '1k', want: 0 },
    { name: 'a plain count', pods: '8', want: 8 },
  ])('counts pollers as 0 or the count for $name', ({ pods, want }) => {
    const [worker] = view({ nodes: [node('n1', pods === undefined ? {} : { pods })] });
    expect(worker?.totalPollers).toBe(want);
  });

  it('sorts workers by id and gives labels as an object even when the node has none', () => {
    const listed = view({ nodes: [node('b'), node('a-2'), node('a-10')] });
    expect(listed.map((w) => w.id)).toEqual(['a-10', 'a-2', 'b']);
    expect(listed[0]?.labels).toEqual({});
  });
});

describe('running tasks of a worker', () => {
  const rootRun = run('etl-0190', { dag: 'etl', id: '0190', startedAt: '2026-11-22T09:58:00Z' });
  const childRun = run('etl-0190-load', {
    dag: 'load',
    id: 'c1',
    startedAt: '2026-11-22T09:59:00Z',
    root: ['etl', '0190'],
    parent: ['etl', '0190'],
  });
  const grandchildRun = run('etl-0190-load-part', {
    dag: 'part',
    id: 'g1',
    root: ['etl', '0190'],
    parent: ['load', 'c1'],
  });

  it('names a root run as its own root, with empty parent fields', () => {
    const [worker] = view({
      nodes: [node('n1')],
      pods: [pod('p1', { node: 'n1', run: 'etl-0190' })],
      runList: [rootRun],
    });
    const want = {
      dagName: 'etl',
      dagRunId: '0190',
      rootDagRunName: 'etl',
      rootDagRunId: '0190',
      parentDagRunName: '',
      parentDagRunId: '',
      startedAt: '2026-11-22T09:58:00Z',
    };
    expect(worker?.running_tasks).toEqual([want]);
    expect(worker?.runningTasks).toEqual([want]);
    expect(worker?.busyPollers).toBe(1);
  });

  it('names the root and the direct parent of a sub run', () => {
    const [worker] = view({
      nodes: [node('n1')],
      pods: [pod('p1', { node: 'n1', run: 'etl-0190-load-part', startTime: secondsAgo(3) })],
      runList: [grandchildRun],
    });
    expect(worker?.running_tasks).toEqual([
      {
        dagName: 'part',
        dagRunId: 'g1',
        rootDagRunName: 'etl',
        rootDagRunId: '0190',
        parentDagRunName: 'load',
        parentDagRunId: 'c1',
        startedAt: '2026-11-22T09:59:57Z',
      },
    ]);
  });

  it.each([
    { name: 'a Running Pod on the node', options: { node: 'n1', phase: 'Running' }, tasks: 1 },
    { name: 'a Pending Pod bound to the node', options: { node: 'n1', phase: 'Pending' }, tasks: 1 },
    { name: 'a Pending Pod not bound yet', options: { phase: 'Pending' }, tasks: 0 },
    { name: 'a Succeeded Pod', options: { node: 'n1', phase: 'Succeeded' }, tasks: 0 },
    { name: 'a Failed Pod', options: { node: 'n1', phase: 'Failed' }, tasks: 0 },
    { name: 'a Pod on another node', options: { node: 'n2', phase: 'Running' }, tasks: 0 },
    { name: 'a Pod found by its label only', options: { node: 'n1', via: 'label' as const }, tasks: 1 },
  ])('counts $tasks task(s) for $name', ({ options, tasks }) => {
    const [worker] = view({
      nodes: [node('n1')],
      pods: [pod('p1', { run: 'etl-0190', ...options })],
      runList: [rootRun],
    });
    expect([worker?.running_tasks.length, worker?.busyPollers]).toEqual([tasks, tasks]);
  });

  it('finds a run with a long name through the owner reference, not the shortened label', () => {
    const long = 'x'.repeat(80);
    const longRun = run(long, { dag: 'long', id: 'l1' });
    const [worker] = view({ nodes: [node('n1')], pods: [pod('p1', { node: 'n1', run: long })], runList: [longRun] });
    expect(worker?.running_tasks.map((t) => t.dagRunId)).toEqual(['l1']);
  });

  it('skips a Pod whose run is gone or in another namespace', () => {
    const elsewhere = { ...rootRun, metadata: { name: 'etl-0190', namespace: 'other' } };
    const [worker] = view({
      nodes: [node('n1')],
      pods: [pod('p1', { node: 'n1', run: 'etl-0190' }), pod('p2', { node: 'n1', run: 'missing' })],
      runList: [elsewhere],
    });
    expect(worker?.running_tasks).toEqual([]);
  });

  it('gives an empty start when neither the run nor the Pod has started', () => {
    const [worker] = view({
      nodes: [node('n1')],
      pods: [pod('p1', { node: 'n1', phase: 'Pending', run: 'etl-0190-load-part' })],
      runList: [grandchildRun],
    });
    expect(worker?.running_tasks[0]?.startedAt).toBe('');
  });

  it('lists one task per step Pod, oldest start first, each on its own node', () => {
    const pods = [
      pod('p-child', { node: 'n1', run: 'etl-0190-load' }),
      pod('p-root-a', { node: 'n1', run: 'etl-0190' }),
      pod('p-root-b', { node: 'n2', run: 'etl-0190' }),
    ];
    const [n1, n2] = view({ nodes: [node('n2'), node('n1')], pods, runList: [rootRun, childRun] });
    expect(n1?.running_tasks.map((t) => t.dagName)).toEqual(['etl', 'load']);
    expect(n1?.busyPollers).toBe(2);
    expect(n2?.running_tasks.map((t) => t.dagName)).toEqual(['etl']);
  });

  it('leaves out Pods bound to a node that is not listed', () => {
    const listed = view({
      nodes: [node('n1')],
      pods: [pod('p1', { node: 'gone', run: 'etl-0190' })],
      runList: [rootRun],
    });
    expect(listed.map((w) => [w.id, w.busyPollers])).toEqual([['n1', 0]]);
  });
});

/**
 * The chaos runs' own local control plane: kube-apiserver is killed, etcd paused and node
 * agents killed here, never in the cluster other test files share. Free ports, a temporary
 * directory, the default two nodes, and a node monitor grace period short enough that a dead
 * node agent is noticed within a test.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { ensureBinaries } from '../../cluster/binaries.ts';
import { DEFAULT_NODES, startCluster, stopCluster } from '../../cluster/cluster.ts';
import { readState, type ClusterState } from '../../cluster/controlplane.ts';
import { waitFor } from '../../cluster/processes.ts';
import { kubeConfig } from '../../cluster/setup.ts';
import { kubedagClients, type KubedagClients } from '../../core/kube/client.ts';
import { loadDag } from '../../core/dag/index.ts';
import { dagManifest } from '../../core/resources/dag.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { dagRun } from '../builders/dag-run.ts';

/** Nodes stop being Ready 20 s after their last heartbeat (the node agents renew every 10 s). */
export const NODE_MONITOR_GRACE_SECONDS = 20;

export interface ChaosCluster {
  readonly dir: string;
  readonly state: ClusterState;
  readonly kc: KubeConfig;
  readonly core: CoreV1Api;
  readonly kube: KubedagClients;
  readonly log: (line: string) => void;
  stop(): Promise<void>;
}

export async function startChaosCluster(log: (line: string) => void): Promise<ChaosCluster> {
  const binaries = await ensureBinaries({ log });
  const dir = await mkdtemp(join(tmpdir(), 'kubedag-chaos-'));
  const started = Date.now();
  const state = await startCluster({
    dir,
    binaries,
    nodes: DEFAULT_NODES,
    nodeMonitorGraceSeconds: NODE_MONITOR_GRACE_SECONDS,
    log,
  });
  log(`chaos cluster up in ${((Date.now() - started) / 1000).toFixed(1)} s at ${state.server} (${dir})`);
  const kc = kubeConfig(state.kubeconfig);
  return {
    dir,
    state,
    kc,
    core: kc.makeApiClient(CoreV1Api),
    kube: kubedagClients(kc.makeApiClient(CustomObjectsApi)),
    log,
    stop: async () => {
      // Faults restart processes: the state file knows the current ones.
      await stopCluster((await readState(dir)) ?? state);
      if (process.env.KUBEDAG_KEEP_CLUSTER === '1') log(`kept ${dir}`);
      else await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A log store directory for operators, inside the cluster's directory so that it goes with it. */
export async function operatorLogDir(cluster: ChaosCluster): Promise<string> {
  return mkdtemp(join(cluster.dir, 'operator-logs-'));
}

/** A fresh namespace with its default service account. */
export async function chaosNamespace(cluster: ChaosCluster, prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  await cluster.core.createNamespace({ body: { metadata: { name } } });
  await waitFor(
    `service account in ${name}`,
    async () =>
      (await cluster.core.readNamespacedServiceAccount({ name: 'default', namespace: name })).metadata !== undefined,
    60_000,
  );
  return name;
}

/** A DAG file's text applied as a DAG resource. */
export async function applyDag(
  cluster: ChaosCluster,
  namespace: string,
  fileName: string,
  yaml: string,
): Promise<void> {
  const load = loadDag(yaml, { fileName });
  if (load.errors.length > 0) throw new Error(`fixture ${fileName} is invalid: ${JSON.stringify(load.errors)}`);
  await cluster.kube.dags.create(namespace, dagManifest(fileName, load.documents, namespace));
}

/** A DAGRun of that DAG, as a kubectl user would write it. */
export async function createRun(cluster: ChaosCluster, namespace: string, name: string, dag: string): Promise<void> {
  await cluster.kube.runs.create(
    namespace,
    dagRun(name)
      .namespace(namespace)
      .spec({ dagRef: { name: dag } })
      .build(),
  );
}

/**
 * Polls the runs named until each has finished or the time is up (reads that fail, with
 * kube-apiserver away, are tried again). Returns every run as last read; unfinished ones are stuck.
 */
export async function awaitRuns(
  cluster: ChaosCluster,
  namespace: string,
  names: readonly string[],
  timeoutMs: number,
): Promise<Map<string, DagRunResource>> {
  const seen = new Map<string, DagRunResource>();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const listed = await cluster.kube.runs.list(namespace).catch(() => undefined);
    for (const run of listed?.items ?? []) seen.set(run.metadata?.name ?? '', run);
    if (names.every((name) => seen.get(name)?.status?.finishedAt !== undefined) || Date.now() > deadline) return seen;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** Waits until at least `count` of the runs have a step running (Pods are about). */
export async function awaitRunning(
  cluster: ChaosCluster,
  namespace: string,
  count: number,
  timeoutMs = 120_000,
): Promise<void> {
  await waitFor(
    `${String(count)} runs with a running step`,
    async () => {
      const runs = (await cluster.kube.runs.list(namespace)).items;
      return runs.filter((r) => r.status?.nodes?.some((n) => n.statusLabel === 'running') === true).length >= count;
    },
    timeoutMs,
    250,
  );
}

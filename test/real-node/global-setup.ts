/**
 * Vitest global setup of the real-node suite: a fresh local cluster in real-node mode (one
 * kubelet on containerd and runc, the cluster in a network namespace of its own; cluster/real-node)
 * in a temporary directory, torn down after with every trace on the host. Needs root.
 * KUBEDAG_KEEP_CLUSTER=1 keeps the directory's logs (copied aside) for a post-mortem.
 */
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureBinaries, type Binaries } from '../../cluster/binaries.ts';
import { startCluster, stopCluster } from '../../cluster/cluster.ts';
import { readState, type ClusterState } from '../../cluster/controlplane.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    cluster: ClusterState;
    binaries: Binaries;
    /** Milliseconds from the start of setup: cluster up, kubelet started, node Ready. */
    startup: { readonly upMs: number; readonly kubeletToReadyMs: number };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const marks = new Map<string, number>();
  const log = (line: string): void => {
    if (line.startsWith('kubelet and kube-proxy started')) marks.set('kubelet', Date.now());
    process.stderr.write(`[real-node] ${line}\n`);
  };
  const binaries = await ensureBinaries({ log });
  const dir = await mkdtemp(join(tmpdir(), 'kubedag-rn-'));
  const started = Date.now();
  const state = await startCluster({ dir, binaries, log, realNode: true });
  const up = Date.now();
  const startup = { upMs: up - started, kubeletToReadyMs: up - (marks.get('kubelet') ?? up) };
  log(
    `up in ${(startup.upMs / 1000).toFixed(1)} s at ${state.server} (${dir}); kubelet started to node Ready: ${(startup.kubeletToReadyMs / 1000).toFixed(2)} s`,
  );
  // This run's figures; the test files add theirs.
  await mkdir(join(import.meta.dirname, '../../.dev'), { recursive: true });
  await writeFile(
    join(import.meta.dirname, '../../.dev/real-node-figures.json'),
    `${JSON.stringify({ date: new Date().toISOString(), clusterUpMs: startup.upMs, kubeletToReadyMs: startup.kubeletToReadyMs }, null, 2)}\n`,
  );
  project.provide('cluster', state);
  project.provide('binaries', binaries);
  project.provide('startup', startup);
  return async () => {
    if (process.env.KUBEDAG_KEEP_CLUSTER === '1') await cp(join(dir, 'logs'), `${dir}-logs`, { recursive: true });
    await stopCluster((await readState(dir)) ?? state, log);
    await rm(dir, { recursive: true, force: true });
    if (process.env.KUBEDAG_KEEP_CLUSTER === '1') log(`kept the logs in ${dir}-logs`);
  };
}

/**
 * Vitest global setup of the integration suite: a fresh local control plane on free ports in
 * a temporary directory, so tests never collide with a running `make dev`; torn down after.
 * KUBEDAG_KEEP_CLUSTER=1 keeps its directory (logs, ledgers) for a post-mortem.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureBinaries, type Binaries } from '../../cluster/binaries.ts';
import { DEFAULT_NODES, startCluster, stopCluster } from '../../cluster/cluster.ts';
import { readState, type ClusterState } from '../../cluster/controlplane.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    cluster: ClusterState;
    binaries: Binaries;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const log = (line: string): void => void process.stderr.write(`[cluster] ${line}\n`);
  const binaries = await ensureBinaries({ log });
  const dir = await mkdtemp(join(tmpdir(), 'kubedag-it-'));
  const started = Date.now();
  const state = await startCluster({ dir, binaries, nodes: DEFAULT_NODES, log });
  log(`up in ${((Date.now() - started) / 1000).toFixed(1)} s at ${state.server} (${dir})`);
  project.provide('cluster', state);
  project.provide('binaries', binaries);
  return async () => {
    // Tests may have restarted processes; the state file knows the current ones.
    await stopCluster((await readState(dir)) ?? state);
    if (process.env.KUBEDAG_KEEP_CLUSTER === '1') log(`kept ${dir}`);
    else await rm(dir, { recursive: true, force: true });
  };
}

/**
 * A developer stack's directory (`.dev`, or the one `KUBEDAG_DEV_DIR` names): the local
 * cluster in `cluster/`, its admin `kubeconfig`, `bin/{kubectl,helm}`, and, while `make dev`
 * runs, `dev.json` (its pid, ports and components), the operator's and API server's logs and
 * the step logs in `logs/`. `make cluster-up`, `cluster-down` and `dev` all work on one.
 */
import { copyFile, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureBinaries } from './binaries.ts';
import { installClusterWide, startCluster, stopCluster, DEFAULT_NODES, parseNodes } from './cluster.ts';
import { kubeConfig } from './setup.ts';
import { hasRealNode, NODE_NAME, removeRealNode } from './real-node/cluster.ts';
import { isRunning, readState, type ClusterState } from './controlplane.ts';
import { pkiPaths } from './pki.ts';
import { isAlive, stopProcess, type OnExit } from './processes.ts';

export const clusterDir = (dir: string): string => join(dir, 'cluster');

/** What `make dev` records of itself, so that another run (or `cluster-down`) can find it. */
export interface DevState {
  readonly pid: number;
  readonly api: string;
  readonly operator: string;
  readonly kubeApiserver: string;
  readonly kubeconfig: string;
  readonly components: readonly { readonly name: string; readonly pid: number; readonly log: string }[];
}

const devStateFile = (dir: string): string => join(dir, 'dev.json');

export async function readDevState(dir: string): Promise<DevState | undefined> {
  return readFile(devStateFile(dir), 'utf8').then(
    (text) => JSON.parse(text) as DevState,
    () => undefined,
  );
}

export async function writeDevState(dir: string, state: DevState): Promise<void> {
  await writeFile(devStateFile(dir), `${JSON.stringify(state, null, 2)}\n`);
}

/**
 * Stops an operator and API server that a `make dev` killed outright left behind (they run in
 * process groups of their own), and forgets them.
 */
export async function stopLeftovers(dir: string): Promise<void> {
  const state = await readDevState(dir);
  if (state === undefined || isAlive(state.pid)) return;
  for (const component of state.components) await stopProcess(component);
  await rm(devStateFile(dir), { force: true });
}

export async function forgetDevState(dir: string): Promise<void> {
  await rm(devStateFile(dir), { force: true });
}

export interface UpOptions {
  readonly nodes?: string;
  /** The real-node mode (cluster/real-node, docs/real-node.md). */
  readonly realNode?: boolean;
  readonly log: (line: string) => void;
  readonly onExit?: OnExit;
}

/** Starts the stack's cluster unless it runs already; returns its state. */
export async function up(dir: string, options: UpOptions): Promise<ClusterState> {
  const started = Date.now();
  const cluster = clusterDir(dir);
  const existing = await readState(cluster);
  if (existing !== undefined && (await isRunning(existing, pkiPaths(join(cluster, 'pki'))))) {
    options.log(`cluster already running at ${existing.server} (kubeconfig: ${join(dir, 'kubeconfig')})`);
    await installClusterWide(kubeConfig(existing.kubeconfig), options.log);
    return existing;
  }
  if (existing !== undefined) await stopCluster(existing, options.log);
  const binaries = await ensureBinaries({ log: options.log });
  const realNode = options.realNode === true;
  const nodes = options.nodes === undefined ? (realNode ? [] : DEFAULT_NODES) : parseNodes(options.nodes);
  // Node agent logs (cluster/logs) are read by people here: readable lines, not JSON.
  const state = await startCluster({
    dir: cluster,
    binaries,
    nodes,
    nodeAgentLogFormat: 'pretty',
    log: options.log,
    realNode,
    ...(options.onExit === undefined ? {} : { onExit: options.onExit }),
  });
  await copyFile(state.kubeconfig, join(dir, 'kubeconfig'));
  await mkdir(join(dir, 'bin'), { recursive: true });
  for (const [name, target] of [
    ['kubectl', binaries.kubectl],
    ['helm', binaries.helm],
  ] as const) {
    await rm(join(dir, 'bin', name), { force: true });
    await symlink(target, join(dir, 'bin', name));
  }
  const names = [...(realNode ? [NODE_NAME] : []), ...state.nodes.map((n) => n.name)];
  options.log(
    `cluster up in ${((Date.now() - started) / 1000).toFixed(1)} s: ${state.server}, nodes ${names.join(', ')}`,
  );
  return state;
}

export async function down(dir: string, log: (line: string) => void): Promise<void> {
  await stopLeftovers(dir);
  const state = await readState(clusterDir(dir));
  if (state === undefined) {
    // A real node's traces outlive a cluster whose start failed half-way.
    if (await hasRealNode(clusterDir(dir))) await removeRealNode(clusterDir(dir), log);
    log('no cluster is running');
    return;
  }
  await stopCluster(state, log);
  await rm(clusterDir(dir), { recursive: true, force: true });
  await rm(join(dir, 'kubeconfig'), { force: true });
  log('cluster stopped');
}

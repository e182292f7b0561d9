/**
 * The local cluster's real-node mode (`cluster-up --real-node`, KUBEDAG_REAL_NODE=1): what
 * ../cluster.ts calls around the control plane. Before it: the Debian tools, the binaries and
 * images (built once per machine), then the node's namespace. After it: the node's programs.
 */
import { execFile } from 'node:child_process';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { saveState, type ClusterState, type Placement } from '../controlplane.ts';
import { pkiPaths } from '../pki.ts';
import type { OnExit } from '../processes.ts';
import { ensureNodeBinaries, type NodeBinaries } from './binaries.ts';
import { nodePaths, NODE_IP, type NodePaths } from './config.ts';
import { startForwarder } from './forward.ts';
import { ensureCoreDns } from './dns.ts';
import { ensurePauseImage, ensureStepImage, type NodeImage } from './images.ts';
import { inNetns } from './netns.ts';
import { prepareRealNode, realNodeDir, removeRealNode, startRealNode } from './node.ts';

const exec = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');

export { NODE_NAME } from './config.ts';

export interface PreparedNode {
  readonly paths: NodePaths;
  readonly placement: Placement;
  readonly binaries: NodeBinaries;
  readonly images: readonly NodeImage[];
  readonly coredns: string;
  readonly runc: string;
  readonly cniBin: string;
}

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

async function which(command: string): Promise<string> {
  const { stdout } = await exec('sh', ['-c', `command -v ${command}`], {
    env: { ...process.env, PATH: `${process.env.PATH ?? ''}:/usr/sbin:/sbin` },
  });
  return stdout.trim();
}

/** What the real node needs, built or installed once per machine (`make real-node-build`); says how long each part took. */
export async function buildRealNode(log: (line: string) => void): Promise<void> {
  const timed = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    const result = await work();
    log(`${what} ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return result;
  };
  await timed('Debian packages (runc, CNI plugins, iptables, conntrack, gcc)', () =>
    exec(join(ROOT, 'scripts/ensure-real-node.sh')),
  );
  const binaries = await timed('kubelet, kube-proxy, containerd, ctr', () => ensureNodeBinaries({ log }));
  for (const [name, path] of Object.entries(binaries)) log(`  ${name}: ${path}`);
  log(`  coredns: ${await timed('CoreDNS', () => ensureCoreDns(process.env, log))}`);
  for (const image of [
    await timed('pause image', () => ensurePauseImage()),
    await timed('busybox step image', () => ensureStepImage(process.env, log)),
  ])
    log(`  ${image.reference}: ${image.archive}`);
}

/** Everything the node needs before the control plane starts; its namespace made. */
export async function prepareRealCluster(clusterDir: string, log: (line: string) => void): Promise<PreparedNode> {
  if (process.getuid?.() !== 0)
    throw new Error('the real node needs root: it makes a network namespace, cgroups and mounts (docs/real-node.md)');
  await exec(join(ROOT, 'scripts/ensure-real-node.sh'));
  const binaries = await ensureNodeBinaries({ log });
  const images = [await ensurePauseImage(), await ensureStepImage(process.env, log)];
  const coredns = await ensureCoreDns(process.env, log);
  const cniBin = (await exists('/usr/lib/cni/bridge')) ? '/usr/lib/cni' : '/opt/cni/bin';
  const runc = await which('runc');
  const paths = await prepareRealNode(clusterDir, log);
  const placement: Placement = {
    wrap: inNetns(paths.netns),
    advertiseAddress: NODE_IP,
    forward: (apiPort, logFile) => startForwarder(paths.netns, { host: '127.0.0.1', port: apiPort }, logFile),
  };
  return { paths, placement, binaries, images, coredns, runc, cniBin };
}

/** Starts the node's programs beside a running control plane and records them in its state. */
export async function startRealCluster(
  state: ClusterState,
  node: PreparedNode,
  log: (line: string) => void,
  onExit?: OnExit,
): Promise<void> {
  const server = `https://127.0.0.1:${String(state.ports?.kubeApiserver ?? 0)}`;
  const started = await startRealNode({
    paths: node.paths,
    pki: pkiPaths(join(state.dir, 'pki')),
    server,
    logs: join(state.dir, 'logs'),
    binaries: node.binaries,
    images: node.images,
    coredns: node.coredns,
    innerKubeconfig: join(state.dir, 'inner.kubeconfig'),
    runc: node.runc,
    cniBin: node.cniBin,
    log,
    ...(onExit === undefined ? {} : { onExit }),
  });
  state.processes.push(...started);
  await saveState(state);
}

/** Imports an OCI archive (such as `make image`'s) into the running real node's containerd. */
export async function importImage(clusterDir: string, archive: string): Promise<void> {
  const { ctr } = await ensureNodeBinaries();
  await exec(
    ctr,
    ['--address', nodePaths(realNodeDir(clusterDir)).containerdSocket, '-n', 'k8s.io', 'images', 'import', archive],
    { maxBuffer: 1 << 24 },
  );
}

/** True when the cluster in `clusterDir` has (or had, before a crash) a real node. */
export function hasRealNode(clusterDir: string): Promise<boolean> {
  return exists(nodePaths(realNodeDir(clusterDir)).state);
}

export { removeRealNode };

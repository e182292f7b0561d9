/**
 * One real node beside the local control plane: containerd v2 (runc, the CNI bridge), the
 * kubelet and kube-proxy, all inside the node's network namespace (netns.ts), with the images
 * built here imported into containerd. prepareRealNode makes the namespace and records the host
 * before anything else runs; startRealNode starts the node's programs once the API server
 * answers; removeRealNode takes every trace away again, also after a crash.
 */
import { execFile } from 'node:child_process';
import { access, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { writeKubeconfig } from '../kubeconfig.ts';
import { ensureLeaf, type Pki } from '../pki.ts';
import { isAlive, startProcess, stopProcess, waitFor, type Managed, type OnExit } from '../processes.ts';
import type { NodeBinaries } from './binaries.ts';
import {
  containerdConfig,
  cniConfig,
  kubeletConfig,
  kubeProxyConfig,
  nodePaths,
  NODE_IP,
  NODE_NAME,
  type NodePaths,
} from './config.ts';
import {
  killShims,
  makeCgroupRoot,
  recordHost,
  removeCgroups,
  restoreHost,
  unmountUnder,
  type HostRecord,
} from './host.ts';
import { corefile } from './dns.ts';
import type { NodeImage } from './images.ts';
import { createNetns, inNetns, isNetnsMounted, killInNetns, removeNetns } from './netns.ts';

const exec = promisify(execFile);

/** One real node per machine: the kubelet's device-plugin folder and /run/containerd are fixed paths. */
export const MACHINE_LOCK = '/run/kubedag-real-node.lock';

interface NodeState {
  readonly dir: string;
  readonly host: HostRecord;
}

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/** The real node's folder inside a cluster's. */
export const realNodeDir = (clusterDir: string): string => join(clusterDir, 'real-node');

/** The folder of another cluster's real node that runs on this machine, if one does. */
async function otherHolder(dir: string): Promise<string | undefined> {
  const holder = await readFile(MACHINE_LOCK, 'utf8').catch(() => '');
  return holder !== '' && holder !== dir && (await isNetnsMounted(nodePaths(holder).netns)) ? holder : undefined;
}

/** Takes the machine's one real node for `dir`, or says which cluster holds it. */
async function lockMachine(dir: string): Promise<void> {
  const holder = await otherHolder(dir);
  if (holder !== undefined)
    throw new Error(
      `another cluster's real node runs on this machine (${holder}); stop it first (make cluster-down with its KUBEDAG_DEV_DIR)`,
    );
  await writeFile(MACHINE_LOCK, dir);
}

/**
 * Records the host, makes the node's folder, cgroup root and network namespace; returns what
 * the control plane is started with. A node left by a crash in the same folder is removed first.
 */
export async function prepareRealNode(clusterDir: string, log: (line: string) => void): Promise<NodePaths> {
  const paths = nodePaths(realNodeDir(clusterDir));
  await lockMachine(paths.dir);
  if (await exists(paths.state)) await removeRealNode(clusterDir, log);
  await writeFile(MACHINE_LOCK, paths.dir);
  await mkdir(paths.dir, { recursive: true });
  const state: NodeState = { dir: paths.dir, host: await recordHost() };
  // Written before anything is made, so that a stop after any failure knows what to undo.
  await writeFile(paths.state, `${JSON.stringify(state, null, 2)}\n`);
  for (const dir of [
    paths.containerdRoot,
    paths.containerdState,
    paths.kubeletRoot,
    paths.podLogs,
    paths.cniConf,
    paths.cniIpam,
    paths.pki,
  ])
    await mkdir(dir, { recursive: true });
  await makeCgroupRoot();
  await createNetns(paths.netns);
  return paths;
}

export interface RealNodeOptions {
  readonly paths: NodePaths;
  readonly pki: Pki;
  /** The API server as programs inside the namespace reach it. */
  readonly server: string;
  readonly logs: string;
  readonly binaries: NodeBinaries;
  /** The pause image first: containerd's sandbox image. */
  readonly images: readonly NodeImage[];
  /** CoreDNS (dns.ts) and the kubeconfig it reads Services with. */
  readonly coredns: string;
  readonly innerKubeconfig: string;
  readonly runc: string;
  readonly cniBin: string;
  readonly onExit?: OnExit;
  readonly log: (line: string) => void;
}

const PATH = `${process.env.PATH ?? ''}:/usr/local/sbin:/usr/sbin:/sbin`;

/** Starts one of the node's programs inside its network namespace. */
type Launch = (name: string, command: string, args: readonly string[], env?: NodeJS.ProcessEnv) => Promise<Managed>;

/** Starts containerd, imports the images, starts CoreDNS, the kubelet and kube-proxy; returns them, oldest first. */
export async function startRealNode(options: RealNodeOptions): Promise<Managed[]> {
  const { paths } = options;
  const started: Managed[] = [];
  const launch: Launch = async (name, command, args, env = process.env) => {
    const [program = 'nsenter', ...rest] = [...inNetns(paths.netns), command, ...args];
    const managed = await startProcess(name, program, rest, join(options.logs, `${name}.log`), {
      env,
      ...(options.onExit === undefined ? {} : { onExit: options.onExit }),
    });
    started.push(managed);
    return managed;
  };
  try {
    await startContainerd(options, launch);
    await writeNodeCredentials(options);
    await startKubelet(options, launch);
    return started;
  } catch (error) {
    for (const managed of started.reverse()) await stopProcess(managed);
    throw error;
  }
}

/** containerd with its CNI configuration, ready, with the images imported. */
async function startContainerd(options: RealNodeOptions, launch: Launch): Promise<void> {
  const { paths } = options;
  await writeFile(
    paths.containerdConfig,
    containerdConfig(paths, {
      pauseImage: options.images[0]?.reference ?? '',
      runc: options.runc,
      cniBin: options.cniBin,
    }),
  );
  await writeFile(join(paths.cniConf, '10-kubedag.conflist'), cniConfig(paths));
  // The shim is found on containerd's PATH.
  const containerd = await launch(
    'containerd',
    options.binaries.containerd,
    ['--config', paths.containerdConfig, '--log-level', 'warn'],
    { ...process.env, PATH: `${dirname(options.binaries.containerdShim)}:${PATH}` },
  );
  await waitFor(
    'containerd',
    async () => isAlive(containerd.pid) && (await ctr(options, ['version'])) !== undefined,
    30_000,
    100,
  );
  for (const image of options.images) await ctr(options, ['-n', 'k8s.io', 'images', 'import', image.archive], true);
  options.log(`containerd ready, images imported: ${options.images.map((i) => i.reference).join(', ')}`);
}

/** The kubelet's serving and client certificates, kube-proxy's, their kubeconfigs and configurations. */
async function writeNodeCredentials(options: RealNodeOptions): Promise<void> {
  const { paths, pki } = options;
  const serving = await ensureLeaf(
    pki,
    { subject: `CN=${NODE_NAME}`, server: { dns: [NODE_NAME], ips: [NODE_IP] } },
    { cert: join(paths.pki, 'kubelet.crt'), key: join(paths.pki, 'kubelet.key') },
  );
  const client = await ensureLeaf(
    pki,
    { subject: `CN=system:node:${NODE_NAME}, O=system:nodes`, client: true },
    { cert: join(paths.pki, 'kubelet-client.crt'), key: join(paths.pki, 'kubelet-client.key') },
  );
  const proxy = await ensureLeaf(
    pki,
    { subject: 'CN=system:kube-proxy', client: true },
    { cert: join(paths.pki, 'kube-proxy.crt'), key: join(paths.pki, 'kube-proxy.key') },
  );
  await writeKubeconfig(paths.kubeletKubeconfig, options.server, pki.ca.cert, client, `system:node:${NODE_NAME}`);
  await writeKubeconfig(paths.kubeProxyKubeconfig, options.server, pki.ca.cert, proxy, 'system:kube-proxy');
  await writeFile(paths.kubeletConfig, kubeletConfig(paths, { ca: pki.ca.cert, ...serving }));
  await writeFile(paths.kubeProxyConfig, kubeProxyConfig(paths));
}

/** CoreDNS, the kubelet and kube-proxy. */
async function startKubelet(options: RealNodeOptions, launch: Launch): Promise<void> {
  const { paths } = options;
  await writeFile(join(paths.dir, 'Corefile'), corefile(options.innerKubeconfig));
  await launch('coredns', options.coredns, ['-conf', join(paths.dir, 'Corefile')]);
  await launch(
    'kubelet',
    options.binaries.kubelet,
    [
      `--config=${paths.kubeletConfig}`,
      `--kubeconfig=${paths.kubeletKubeconfig}`,
      `--root-dir=${paths.kubeletRoot}`,
      `--hostname-override=${NODE_NAME}`,
      `--node-ip=${NODE_IP}`,
    ],
    { ...process.env, PATH },
  );
  await launch('kube-proxy', options.binaries.kubeProxy, [`--config=${paths.kubeProxyConfig}`], {
    ...process.env,
    PATH,
  });
  options.log(`kubelet and kube-proxy started (node ${NODE_NAME} at ${NODE_IP})`);
}

async function ctr(
  options: Pick<RealNodeOptions, 'binaries' | 'paths'>,
  args: readonly string[],
  must = false,
): Promise<string | undefined> {
  try {
    return (
      await exec(options.binaries.ctr, ['--address', options.paths.containerdSocket, ...args], { maxBuffer: 1 << 24 })
    ).stdout;
  } catch (error) {
    if (must)
      throw new Error(
        `ctr ${args.join(' ')} failed: ${(error as { stderr?: string }).stderr ?? (error as Error).message}`,
        { cause: error },
      );
    return undefined;
  }
}

/**
 * After the node's programs stopped (stopControlPlane): kills what runs on in its cgroups and
 * the shims, unmounts, removes the namespace, the cgroups, the fixed host paths it made and its
 * folder, restores the kernel settings. Safe to run again, and on a node that never started.
 */
export async function removeRealNode(clusterDir: string, log: (line: string) => void): Promise<void> {
  const paths = nodePaths(realNodeDir(clusterDir));
  const state = await readFile(paths.state, 'utf8').then(
    (text) => JSON.parse(text) as NodeState,
    () => undefined,
  );
  // What is machine-wide (the cgroups, the fixed host paths, the kernel settings) belongs to
  // another cluster's node when one runs now: then only this node's own folder goes.
  const machine = state !== undefined && (await otherHolder(paths.dir)) === undefined;
  const strays = await killInNetns(paths.netns);
  // The runc shims at least: they outlive containerd by design.
  if (strays > 0)
    log(
      `stopped ${String(strays)} processes left in the real node's network namespace (runc shims and any program a killed start did not record)`,
    );
  if (machine) await removeCgroups(log);
  const shims = await killShims(paths.containerdSocket);
  if (shims > 0) await sleep(200);
  // Mounts under the fixed host paths only when the node made those paths.
  await unmountUnder([paths.dir, ...(machine ? state.host.absent : [])], log);
  await removeNetns(paths.netns);
  if (machine) await restoreHost(state.host, paths.podLogs, log);
  if ((await readFile(MACHINE_LOCK, 'utf8').catch(() => '')) === paths.dir) await rm(MACHINE_LOCK, { force: true });
  await rm(paths.dir, { recursive: true, force: true });
}

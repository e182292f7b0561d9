/**
 * Starts and stops a real Kubernetes control plane on loopback: etcd, kube-apiserver (RBAC and
 * Node authorisation on), kube-controller-manager, kube-scheduler, the volume provisioner, then
 * the node agents; waits until it is ready and the CRDs are Established. Everything lives in one directory, recorded
 * in its state file so that another process can stop it.
 */
import { request } from 'node:https';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LogFormat } from '../core/log.ts';
import type { Binaries } from './binaries.ts';
import { writeKubeconfig } from './kubeconfig.ts';
import { ensurePki, type CertificatePaths, type Pki } from './pki.ts';
import { freePort, isAlive, startProcess, stopProcess, waitFor, type Managed, type OnExit } from './processes.ts';

export interface NodeSpec {
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
}

export interface ClusterState {
  readonly dir: string;
  readonly server: string;
  /** Admin kubeconfig (system:masters). */
  readonly kubeconfig: string;
  readonly processes: Managed[];
  readonly nodes: { readonly name: string; readonly port: number; readonly ledger: string }[];
  /** Where each component listens, all on 127.0.0.1 (node agents: `nodes[].port`). */
  readonly ports?: ControlPlanePorts;
}

export interface ControlPlanePorts {
  readonly etcdClient: number;
  readonly etcdPeer: number;
  readonly kubeApiserver: number;
  readonly controllerManager: number;
  readonly scheduler: number;
}

export interface StartOptions {
  readonly dir: string;
  readonly binaries: Binaries;
  readonly nodes: readonly NodeSpec[];
  /** How node agents are run: argv before the agent's own flags. */
  readonly nodeAgentCommand: readonly string[];
  /** How the volume provisioner is run: argv before its own flags. */
  readonly provisionerCommand: readonly string[];
  /** How node agents and the provisioner write their log: JSON lines unless a person reads it (`make dev`). */
  readonly nodeAgentLogFormat?: LogFormat;
  /**
   * How long a node may go without a heartbeat before the node lifecycle controller calls it
   * unreachable and taints it (kube-controller-manager's --node-monitor-grace-period; its own
   * default, 50 s, when absent). Tests that kill a node agent shorten it.
   */
  readonly nodeMonitorGraceSeconds?: number;
  readonly log?: (line: string) => void;
  /** Told when a process started here ends, while this process lives. */
  readonly onExit?: OnExit;
  /** Where the cluster runs when not on the host's loopback (the real node's namespace). */
  readonly placement?: Placement;
}

/**
 * A control plane inside a network namespace (cluster/real-node): every program started through
 * `wrap`, kube-apiserver listening on all of the namespace's addresses and advertising
 * `advertiseAddress` (the `kubernetes` Service's endpoint), and `forward` opening a port on the
 * host's loopback to it, which the admin kubeconfig names. Programs inside use
 * `inner.kubeconfig`, which names the API server's own port.
 */
export interface Placement {
  readonly wrap: readonly string[];
  readonly advertiseAddress: string;
  readonly forward: (apiPort: number, log: string) => Promise<{ port: number; managed: Managed }>;
}

const STATE = 'cluster.json';

export async function readState(dir: string): Promise<ClusterState | undefined> {
  return readFile(join(dir, STATE), 'utf8').then(
    (text) => JSON.parse(text) as ClusterState,
    () => undefined,
  );
}

/** True when every recorded process is alive and the apiserver answers /readyz. */
export async function isRunning(state: ClusterState, pki: Pki): Promise<boolean> {
  if (!state.processes.every((p) => isAlive(p.pid))) return false;
  return readyz(state.server, pki.admin, pki.ca.cert).catch(() => false);
}

/** Starts one managed process of the cluster (through the placement's wrapper, if any). */
type Launch = (name: string, command: string, args: readonly string[], logFile: string) => Promise<Managed>;

export async function startControlPlane(options: StartOptions): Promise<ClusterState> {
  const { dir } = options;
  await mkdir(join(dir, 'logs'), { recursive: true });
  const pki = await ensurePki(join(dir, 'pki'));
  const [etcdClient, etcdPeer, apiPort, cmPort, schedulerPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const processes: Managed[] = [];
  const ports = { etcdClient, etcdPeer, kubeApiserver: apiPort, controllerManager: cmPort, scheduler: schedulerPort };
  const { placement } = options;
  const forwarded =
    placement === undefined ? undefined : await placement.forward(apiPort, join(dir, 'logs/api-forwarder.log'));
  if (forwarded !== undefined) processes.push(forwarded.managed);
  const server =
    forwarded === undefined ? `https://127.0.0.1:${String(apiPort)}` : `https://127.0.0.1:${String(forwarded.port)}`;
  const state: ClusterState = { dir, server, kubeconfig: join(dir, 'admin.kubeconfig'), processes, nodes: [], ports };
  const wrap = placement?.wrap ?? [];
  const launch: Launch = (name, command, args, logFile) => {
    const [program = command, ...rest] = [...wrap, command, ...args];
    return startProcess(name, program, rest, logFile, options.onExit === undefined ? {} : { onExit: options.onExit });
  };
  try {
    const kubeconfigs = await startKubernetes(options, state, ports, pki, launch);
    await startNodes(options, state, pki, kubeconfigs.inner, launch);
    return state;
  } catch (error) {
    await stopControlPlane(state);
    throw error;
  }
}

/**
 * etcd, kube-apiserver (ready before anything talks to it), kube-controller-manager and
 * kube-scheduler, the state file written after each so that a crash leaves nothing unknown.
 */
async function startKubernetes(
  options: StartOptions,
  state: ClusterState,
  ports: NonNullable<ClusterState['ports']>,
  pki: Pki,
  launch: Launch,
): Promise<Awaited<ReturnType<typeof writeComponentKubeconfigs>>> {
  const { dir, binaries } = options;
  const { processes } = state;
  const logs = (name: string): string => join(dir, `logs/${name}.log`);
  await saveState(state);
  processes.push(await launch('etcd', binaries.etcd, etcdArgs(dir, ports.etcdClient, ports.etcdPeer), logs('etcd')));
  await saveState(state);
  const apiArgs = apiserverArgs(pki, ports.etcdClient, ports.kubeApiserver, options.placement?.advertiseAddress);
  processes.push(await launch('kube-apiserver', binaries.kubeApiserver, apiArgs, logs('kube-apiserver')));
  await saveState(state);
  const inner = `https://127.0.0.1:${String(ports.kubeApiserver)}`;
  const kubeconfigs = await writeComponentKubeconfigs(dir, state.server, inner, pki);
  await waitFor('kube-apiserver /readyz', () => readyz(state.server, pki.admin, pki.ca.cert), 90_000, 200);
  (options.log ?? ((): void => undefined))(`kube-apiserver ready at ${state.server}`);
  const cmArgs = controllerManagerArgs(
    pki,
    kubeconfigs.controllerManager,
    ports.controllerManager,
    options.nodeMonitorGraceSeconds,
  );
  processes.push(
    await launch('kube-controller-manager', binaries.kubeControllerManager, cmArgs, logs('kube-controller-manager')),
  );
  const schedulerArguments = schedulerArgs(kubeconfigs.scheduler, ports.scheduler);
  processes.push(await launch('kube-scheduler', binaries.kubeScheduler, schedulerArguments, logs('kube-scheduler')));
  await saveState(state);
  return kubeconfigs;
}

/** The volume provisioner, then a node agent per node. */
async function startNodes(
  options: StartOptions,
  state: ClusterState,
  pki: Pki,
  kubeconfig: string,
  launch: Launch,
): Promise<void> {
  const { dir } = options;
  const logFormat = options.nodeAgentLogFormat ?? 'json';
  // After kube-controller-manager, whose PV controller hands claims to it and binds its volumes.
  const [provisioner, ...provisionerArgs] = [
    ...options.provisionerCommand,
    `--kubeconfig=${kubeconfig}`,
    `--dir=${join(dir, 'volumes')}`,
    `--log-format=${logFormat}`,
  ];
  state.processes.push(await launch('provisioner', provisioner, provisionerArgs, join(dir, 'logs/provisioner.log')));
  await saveState(state);
  for (const node of options.nodes) {
    const port = await freePort();
    const ledger = join(dir, 'nodes', node.name, 'ledger.jsonl');
    const agent = { port, kubeconfig, dir: join(dir, 'nodes', node.name), clusterDir: dir, logFormat };
    const [command = 'node', ...rest] = [...options.nodeAgentCommand, ...nodeAgentArgs(node, agent, pki)];
    state.processes.push(
      await launch(`node-agent ${node.name}`, command, rest, join(dir, `logs/node-${node.name}.log`)),
    );
    state.nodes.push({ name: node.name, port, ledger });
    await saveState(state);
  }
}

/**
 * Stops one process of a running cluster (SIGKILL to simulate a crash, SIGTERM for a clean
 * stop) and starts it again with the same arguments; the state file follows.
 */
export async function restartProcess(dir: string, name: string, signal: 'SIGKILL' | 'SIGTERM'): Promise<Managed> {
  const state = await readState(dir);
  const old = state?.processes.find((p) => p.name === name);
  if (state === undefined || old === undefined) throw new Error(`no process "${name}" in the cluster at ${dir}`);
  await stopProcess(old, 10_000, signal);
  const fresh = await startProcess(old.name, old.command, old.args, old.log);
  const processes = state.processes.map((p) => (p.name === name ? fresh : p));
  await saveState({ ...state, processes });
  return fresh;
}

/** Stops every process of the cluster, newest first, and forgets the state. */
export async function stopControlPlane(state: ClusterState, removeData = false): Promise<void> {
  for (const managed of [...state.processes].reverse()) await stopProcess(managed);
  await rm(join(state.dir, STATE), { force: true });
  if (removeData) await rm(state.dir, { recursive: true, force: true });
}

export async function saveState(state: ClusterState): Promise<void> {
  await writeFile(join(state.dir, STATE), `${JSON.stringify(state, null, 2)}\n`);
}

function etcdArgs(dir: string, client: number, peer: number): string[] {
  const clientUrl = `http://127.0.0.1:${String(client)}`;
  const peerUrl = `http://127.0.0.1:${String(peer)}`;
  return [
    '--name=default',
    `--data-dir=${join(dir, 'etcd')}`,
    `--listen-client-urls=${clientUrl}`,
    `--advertise-client-urls=${clientUrl}`,
    `--listen-peer-urls=${peerUrl}`,
    `--initial-advertise-peer-urls=${peerUrl}`,
    `--initial-cluster=default=${peerUrl}`,
    // A throwaway test store: durability per write costs seconds per test run for nothing.
    '--unsafe-no-fsync',
    '--log-level=warn',
  ];
}

function apiserverArgs(pki: Pki, etcdClient: number, port: number, advertise: string | undefined): string[] {
  return [
    `--etcd-servers=http://127.0.0.1:${String(etcdClient)}`,
    // In a namespace of its own, its other address is the node's: the kubernetes Service leads there.
    ...(advertise === undefined
      ? ['--bind-address=127.0.0.1', '--advertise-address=127.0.0.1']
      : ['--bind-address=0.0.0.0', `--advertise-address=${advertise}`]),
    `--secure-port=${String(port)}`,
    `--tls-cert-file=${pki.apiserver.cert}`,
    `--tls-private-key-file=${pki.apiserver.key}`,
    `--client-ca-file=${pki.ca.cert}`,
    '--authorization-mode=Node,RBAC',
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${pki.serviceAccount.publicKey}`,
    `--service-account-signing-key-file=${pki.serviceAccount.privateKey}`,
    '--service-cluster-ip-range=10.96.0.0/16',
    `--kubelet-client-certificate=${pki.apiserverKubeletClient.cert}`,
    `--kubelet-client-key=${pki.apiserverKubeletClient.key}`,
    `--kubelet-certificate-authority=${pki.ca.cert}`,
    '--kubelet-preferred-address-types=InternalIP',
    // Endpoints may not hold loopback addresses, so the kubernetes Service is not reconciled there.
    ...(advertise === undefined ? ['--endpoint-reconciler-type=none'] : []),
    '--profiling=false',
  ];
}

/** What kube-controller-manager and kube-scheduler share: identity, serving, no leader election. */
function componentArgs(kubeconfig: string, port: number): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${String(port)}`,
    '--leader-elect=false',
    '--profiling=false',
  ];
}

function controllerManagerArgs(
  pki: Pki,
  kubeconfig: string,
  port: number,
  nodeMonitorGraceSeconds: number | undefined,
): string[] {
  return [
    ...(nodeMonitorGraceSeconds === undefined
      ? []
      : [`--node-monitor-grace-period=${String(nodeMonitorGraceSeconds)}s`]),
    ...componentArgs(kubeconfig, port),
    '--use-service-account-credentials=true',
    `--service-account-private-key-file=${pki.serviceAccount.privateKey}`,
    `--root-ca-file=${pki.ca.cert}`,
    `--cluster-signing-cert-file=${pki.ca.cert}`,
    `--cluster-signing-key-file=${pki.ca.key}`,
    '--controllers=*',
  ];
}

function schedulerArgs(kubeconfig: string, port: number): string[] {
  return componentArgs(kubeconfig, port);
}

interface NodeAgentPlace {
  readonly port: number;
  readonly clusterDir: string;
  readonly kubeconfig: string;
  readonly dir: string;
  readonly logFormat: LogFormat;
}

function nodeAgentArgs(node: NodeSpec, agent: NodeAgentPlace, pki: Pki): string[] {
  const labels = Object.entries(node.labels ?? {}).map(([k, v]) => `${k}=${v}`);
  return [
    `--name=${node.name}`,
    `--kubeconfig=${agent.kubeconfig}`,
    `--port=${String(agent.port)}`,
    `--tls-cert=${pki.nodeAgent.cert}`,
    `--tls-key=${pki.nodeAgent.key}`,
    `--client-ca=${pki.ca.cert}`,
    `--state-dir=${agent.dir}`,
    // Containers see the host as their image, but not the cluster's keys, volumes and other nodes.
    `--hide-paths=${agent.clusterDir}`,
    // Always given, so that a KUBEDAG_LOG_FORMAT in the environment cannot change what tests read.
    `--log-format=${agent.logFormat}`,
    ...(labels.length > 0 ? [`--labels=${labels.join(',')}`] : []),
  ];
}

/** The admin's for `server` (where the host reaches the API server), the rest for `inner` (where the cluster's programs do). */
async function writeComponentKubeconfigs(
  dir: string,
  server: string,
  inner: string,
  pki: Pki,
): Promise<{ controllerManager: string; scheduler: string; inner: string }> {
  const admin = join(dir, 'admin.kubeconfig');
  const innerAdmin = server === inner ? admin : join(dir, 'inner.kubeconfig');
  const controllerManager = join(dir, 'controller-manager.kubeconfig');
  const scheduler = join(dir, 'scheduler.kubeconfig');
  await writeKubeconfig(admin, server, pki.ca.cert, pki.admin, 'kubedag-admin');
  if (innerAdmin !== admin) await writeKubeconfig(innerAdmin, inner, pki.ca.cert, pki.admin, 'kubedag-admin');
  await writeKubeconfig(controllerManager, inner, pki.ca.cert, pki.controllerManager, 'system:kube-controller-manager');
  await writeKubeconfig(scheduler, inner, pki.ca.cert, pki.scheduler, 'system:kube-scheduler');
  return { controllerManager, scheduler, inner: innerAdmin };
}

function readyz(server: string, client: CertificatePaths, ca: string): Promise<boolean> {
  return Promise.all([readFile(client.cert), readFile(client.key), readFile(ca)]).then(
    ([cert, key, caPem]) =>
      new Promise<boolean>((resolve, reject) => {
        const req = request(`${server}/readyz`, { cert, key, ca: caPem, timeout: 5000 }, (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        });
        req.on('error', reject);
        req.on('timeout', () => req.destroy(new Error('timeout')));
        req.end();
      }),
  );
}

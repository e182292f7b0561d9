/**
 * The node agent: a stand-in kubelet that registers a Node and runs the Pods bound to it as
 * local processes. Started by the local control plane, one per node:
 *
 *   node cluster/node-agent/main.ts --name=node-1 --kubeconfig=... --port=... \
 *     --tls-cert=... --tls-key=... --client-ca=... --state-dir=... [--labels=gpu=true,zone=a] \
 *     [--log-level=info] [--log-format=json|pretty]
 */
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { CoordinationV1Api, CoreV1Api, KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { reuseConnections } from '../../core/kube/connections.ts';
import { Informer, informerLog } from '../../core/kube/informer.ts';
import { WorkQueue } from '../../core/kube/queue.ts';
import { systemClock, type Clock } from '../../core/kube/time.ts';
import { createLogger, errorMessage, type Logger } from '../../core/log.ts';
import { parseConfig, type AgentConfig } from './config.ts';
import { Ledger } from './ledger.ts';
import { heartbeatStatus, POD_CAPACITY, registerNode, renewLease, type NodeIdentity } from './node.ts';
import { PodManager } from './pods.ts';
import { Cgroups } from './cgroups.ts';
import type { RuntimeContext } from './containers.ts';
import type { Abilities } from './enforcement.ts';
import { hostSubmounts, probeSandbox } from './sandbox-fs.ts';
import { readImageUsers } from './users.ts';
import { startLogServer } from './server.ts';

/**
 * The queue key of a Pod: its name and its uid, so that a Pod that replaces a deleted one of
 * the same name is worked on apart from it (names and namespaces never contain `/`).
 */
const podKey = (pod: V1Pod): string =>
  `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}/${pod.metadata?.uid ?? ''}`;

function parsePodKey(key: string): { namespace: string; name: string; uid: string } {
  const [namespace = '', name = '', uid = ''] = key.split('/');
  return { namespace, name, uid };
}

/** The Pods bound to this node, cached; started by watchPods. */
function podInformer(kc: KubeConfig, core: CoreV1Api, node: string, logger: Logger): Informer<V1Pod> {
  const fieldSelector = `spec.nodeName=${node}`;
  return new Informer<V1Pod>({
    kc,
    path: '/api/v1/pods',
    list: () => core.listPodForAllNamespaces({ fieldSelector }),
    fieldSelector,
    log: informerLog(logger),
  });
}

/**
 * The Pods bound to this node, worked on one key at a time. A failed reconcile comes back
 * with backoff; every Pod is looked at again now and then, events or not, and the disk of
 * Pods that finished or are gone is freed at the same pace.
 */
async function watchPods(
  informer: Informer<V1Pod>,
  pods: PodManager,
  logger: Logger,
): Promise<{ stop: () => Promise<void> }> {
  const queue = new WorkQueue({
    // A worker holds its Pod for a whole grace period when stopping it: as many workers as the
    // node takes Pods, so that no Pod waits behind another's shutdown, as with the kubelet's
    // per-Pod workers.
    concurrency: POD_CAPACITY,
    worker: async (key) => {
      const { namespace, name, uid } = parsePodKey(key);
      const pod = informer.get(namespace, name);
      // Gone, or the name holds another Pod now: the delete event has already stopped this one.
      if (pod?.metadata?.uid !== uid) return undefined;
      return pods.reconcile(pod);
    },
    onError: (key, error) => {
      const { namespace, name } = parsePodKey(key);
      logger.error({ pod: `${namespace}/${name}`, error: errorMessage(error) }, 'reconcile failed; retrying');
    },
  });
  informer.on((event, pod) => {
    if (event === 'delete') pods.forget(pod.metadata?.uid ?? '');
    else queue.add(podKey(pod));
  });
  await informer.start();
  const housekeep = (): void => {
    pods
      .housekeep(() => informer.list())
      .catch((error: unknown) => {
        logger.warn({ error: errorMessage(error) }, 'housekeeping failed');
      });
  };
  // Pods deleted while no agent ran: their directories go now.
  housekeep();
  const resync = setInterval(() => {
    for (const pod of informer.list()) queue.add(podKey(pod));
    housekeep();
  }, 30_000);
  return {
    stop: async () => {
      clearInterval(resync);
      await informer.stop();
      // Work in flight ends with the process, as before; the Pods' processes are stopped apart.
      void queue.shutdown();
    },
  };
}

/** Registers the Node and keeps its Lease and Ready condition fresh. */
async function keepNodeAlive(
  kc: KubeConfig,
  identity: NodeIdentity,
  clock: Clock,
  logger: Logger,
): Promise<NodeJS.Timeout[]> {
  const core = kc.makeApiClient(CoreV1Api);
  const coordination = kc.makeApiClient(CoordinationV1Api);
  await registerNode(core, identity, clock);
  await renewLease(coordination, identity, clock);
  const warn =
    (what: string) =>
    (error: unknown): void => {
      logger.warn({ error: errorMessage(error) }, what);
    };
  return [
    setInterval(() => void renewLease(coordination, identity, clock).catch(warn('lease renewal failed')), 10_000),
    setInterval(() => void heartbeatStatus(core, identity, clock).catch(warn('node status heartbeat failed')), 60_000),
  ];
}

/** What this machine lets the agent do for containers, found out once. */
function runtimeContext(config: AgentConfig): RuntimeContext {
  mkdirSync(config.stateDir, { recursive: true });
  const real = (path: string): string => (existsSync(path) ? realpathSync(path) : path);
  const mode = probeSandbox(config.stateDir);
  return {
    mode,
    changeUser: process.getuid?.() === 0,
    users: readImageUsers(),
    submounts: hostSubmounts(),
    hide: [...new Set([config.stateDir, ...config.hidePaths].map(real))],
    hostPath: config.hostPath,
    // Limits are joined by the sandbox's wrapper: without one, there is no place to join them.
    cgroups: mode === 'none' ? undefined : Cgroups.detect(config.name),
  };
}

async function run(config: AgentConfig, logger: Logger): Promise<void> {
  const clock = systemClock;
  const kc = new KubeConfig();
  kc.loadFromFile(config.kubeconfig);
  reuseConnections(kc);
  const core = kc.makeApiClient(CoreV1Api);
  const server = new URL(kc.getCurrentCluster()?.server ?? 'https://127.0.0.1:6443');
  const identity: NodeIdentity = {
    name: config.name,
    labels: config.labels,
    port: config.port,
    kubernetesVersion: config.kubernetesVersion,
  };
  const ledger = new Ledger(join(config.stateDir, 'ledger.jsonl'), config.name, clock);
  const sources = { api: core, apiHost: server.hostname, apiPort: server.port };
  const runtime = runtimeContext(config);
  const abilities: Abilities = {
    sandbox: runtime.mode,
    changeUser: runtime.changeUser,
    cgroups: { memory: runtime.cgroups?.memory === true, cpu: runtime.cgroups?.cpu === true },
  };
  logger.info(
    {
      sandbox: runtime.mode,
      changeUser: runtime.changeUser,
      cgroups: runtime.cgroups === undefined ? 'none' : `v${String(runtime.cgroups.version)}`,
      limits: abilities.cgroups,
      hide: runtime.hide,
    },
    'container runtime',
  );
  if (runtime.mode === 'none')
    logger.warn(
      'no container roots here (needs root, mount namespaces, overlayfs and util-linux); containers run in the host file system in a scratch directory, volumes are not mounted at their paths',
    );
  const informer = podInformer(kc, core, config.name, logger);
  const pods = new PodManager({
    node: config.name,
    api: core,
    stateDir: config.stateDir,
    ledger,
    sources,
    runtime,
    abilities,
    lookup: (namespace, name) => informer.get(namespace, name),
    clock,
    logger,
  });
  pods.killLeftovers();
  const timers = await keepNodeAlive(kc, identity, clock, logger);
  const https = await startLogServer({
    port: config.port,
    cert: config.tlsCert,
    key: config.tlsKey,
    clientCa: config.clientCa,
    pods,
    clock,
    logger,
  });
  logger.info({ port: config.port }, `node registered; log and exec endpoint on 127.0.0.1:${String(config.port)}`);
  const watch = await watchPods(informer, pods, logger);

  const stop = async (signal: string): Promise<void> => {
    logger.info({ signal }, 'stopping Pods and exiting');
    timers.forEach(clearInterval);
    await watch.stop();
    await pods.shutdown();
    runtime.cgroups?.close();
    https.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

let config: AgentConfig;
try {
  config = parseConfig(process.argv.slice(2), process.env);
} catch (error) {
  process.stderr.write(`node agent: ${errorMessage(error)}\n`);
  process.exit(1);
}
const logger = createLogger('node-agent', config.log).child({ node: config.name });
run(config, logger).catch((error: unknown) => {
  logger.fatal({ err: error }, 'node agent failed');
  process.exit(1);
});

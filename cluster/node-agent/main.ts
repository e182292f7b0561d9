/**
 * The node agent: a stand-in kubelet that registers a Node and runs the Pods bound to it as
 * local processes. Started by the local control plane, one per node:
 *
 *   node cluster/node-agent/main.ts --name=node-1 --kubeconfig=... --port=... \
 *     --tls-cert=... --tls-key=... --client-ca=... --state-dir=... [--labels=gpu=true,zone=a]
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CoordinationV1Api, CoreV1Api, KubeConfig, ListWatch, Watch, type V1Pod } from '@kubernetes/client-node';
import { Ledger } from './ledger.ts';
import { heartbeatStatus, registerNode, renewLease, type NodeIdentity } from './node.ts';
import { PodManager } from './pods.ts';
import { mountNamespacesAvailable } from './runtime.ts';
import { startLogServer } from './server.ts';
import { reuseConnections } from '../../core/kube/connections.ts';
import { systemClock } from '../../core/kube/time.ts';

const { values } = parseArgs({
  options: {
    name: { type: 'string' },
    kubeconfig: { type: 'string' },
    port: { type: 'string' },
    'tls-cert': { type: 'string' },
    'tls-key': { type: 'string' },
    'client-ca': { type: 'string' },
    'state-dir': { type: 'string' },
    labels: { type: 'string', default: '' },
    'kubernetes-version': { type: 'string', default: 'v1.37.1' },
  },
});

function required(name: keyof typeof values): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new Error(`--${name} is required`);
  return value;
}

const log = (line: string): void => void process.stdout.write(`${new Date().toISOString()} ${line}\n`);

/** Runs `work` for a key at most once at a time; events during a run cause one more run. */
class KeyedQueue {
  private readonly active = new Set<string>();
  private readonly dirty = new Set<string>();

  add(key: string, work: () => Promise<void>): void {
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    this.active.add(key);
    void (async () => {
      do {
        this.dirty.delete(key);
        await work().catch((error: unknown) => {
          log(`reconcile ${key}: ${(error as Error).message}`);
        });
      } while (this.dirty.has(key));
      this.active.delete(key);
    })();
  }
}

async function main(): Promise<void> {
  const name = required('name');
  const stateDir = required('state-dir');
  const kc = new KubeConfig();
  kc.loadFromFile(required('kubeconfig'));
  reuseConnections(kc);
  const core = kc.makeApiClient(CoreV1Api);
  const coordination = kc.makeApiClient(CoordinationV1Api);
  const server = new URL(kc.getCurrentCluster()?.server ?? 'https://127.0.0.1:6443');
  const labels = Object.fromEntries(
    values.labels
      .split(',')
      .filter((pair) => pair.includes('='))
      .map((pair) => pair.split('=', 2) as [string, string]),
  );
  const identity: NodeIdentity = { name, labels, port: Number(required('port')), kubernetesVersion: values['kubernetes-version'] };
  const clock = systemClock;
  const ledger = new Ledger(join(stateDir, 'ledger.jsonl'), name, clock);
  const pods = new PodManager({
    node: name,
    api: core,
    stateDir,
    ledger,
    sources: { api: core, apiHost: server.hostname, apiPort: server.port },
    hostPath: process.env.PATH ?? '/usr/bin:/bin',
    clock,
    log,
  });
  pods.killLeftovers();
  if (!mountNamespacesAvailable()) log('warning: no mount namespaces here (needs root and unshare); volumes will not appear at their mount paths');
  await registerNode(core, identity, clock);
  await renewLease(coordination, identity, clock);
  const https = await startLogServer({ port: identity.port, cert: required('tls-cert'), key: required('tls-key'), clientCa: required('client-ca'), pods, clock });
  log(`node ${name} registered; log endpoint on 127.0.0.1:${String(identity.port)}`);

  const timers = [
    setInterval(() => void renewLease(coordination, identity, clock).catch((e: unknown) => { log(`lease: ${(e as Error).message}`); }), 10_000),
    setInterval(() => void heartbeatStatus(core, identity, clock).catch((e: unknown) => { log(`status: ${(e as Error).message}`); }), 60_000),
  ];
  const queue = new KeyedQueue();
  const fieldSelector = `spec.nodeName=${name}`;
  const informer = new ListWatch<V1Pod>('/api/v1/pods', new Watch(kc), () => core.listPodForAllNamespaces({ fieldSelector }), false, undefined, fieldSelector);
  const enqueue = (pod: V1Pod): void => {
    const key = pod.metadata?.uid ?? '';
    queue.add(key, () => pods.reconcile(informer.get(pod.metadata?.name ?? '', pod.metadata?.namespace) ?? pod));
  };
  informer.on('add', enqueue);
  informer.on('update', enqueue);
  informer.on('delete', (pod) => {
    pods.forget(pod.metadata?.uid ?? '');
  });
  informer.on('error', (error: unknown) => {
    log(`pod watch: ${String(error)}`);
  });
  await informer.start();
  // Level-triggered safety net: look at every Pod again now and then, events or not.
  timers.push(setInterval(() => { informer.list().forEach(enqueue); }, 30_000));

  const stop = async (signal: string): Promise<void> => {
    log(`${signal}: stopping Pods and exiting`);
    timers.forEach(clearInterval);
    await informer.stop();
    await pods.shutdown();
    https.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  log(`node agent failed: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});

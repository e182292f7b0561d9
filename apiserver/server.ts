/**
 * The API server wired to a cluster: clients, cache, writer, log reader, health. Used by
 * main.ts and by tests that want the real thing on a real control plane.
 */
import { CoordinationV1Api, CoreV1Api, KubeConfig, VersionApi } from '@kubernetes/client-node';
import type { FastifyInstance } from 'fastify';
import { kubedagClients } from '../core/kube/client.ts';
import { reuseConnections } from '../core/kube/connections.ts';
import { silentLogger, type Logger } from '../core/log.ts';
import { buildApp } from './app.ts';
import type { AuditLog } from './audit.ts';
import { Cache } from './cache.ts';
import type { Cluster } from './cluster.ts';
import type { ApiConfig } from './config.ts';
import { OperatorArtifacts, OperatorLogs } from './operator-logs.ts';
import { Starter } from './starts.ts';
import { uiBuilt } from './ui.ts';
import { dagEntry } from './views/dags.ts';
import { leaderOf } from './views/leader.ts';
import { Writer } from './writer.ts';
import { RunRecords } from './records.ts';
import { RunDefinitions } from './definitions.ts';
import { NamespacePolicy } from './pod-policy.ts';
import type { HistoryReader } from '../core/history/types.ts';
import { openHistoryReader } from './history-reader.ts';

export interface Server {
  readonly app: FastifyInstance;
  readonly cache: Cache;
  close(): Promise<void>;
}

export interface ServerOptions {
  readonly config: ApiConfig;
  readonly version: string;
  /** Default: nowhere (tests, benchmarks). */
  readonly logger?: Logger;
  /** Hooks every route runs through (auth, remoteNode), given what they may need of the cluster. */
  readonly plugins?: readonly ((app: FastifyInstance, context: { kc: KubeConfig; namespace: string }) => void)[];
  readonly clock?: () => Date;
  /**
   * Where archived runs are read; default: from `config.history` (history-reader.ts). Tests
   * hand in a store they fill themselves. Closed with the server either way.
   */
  readonly history?: HistoryReader;
  /** Where audit records go; default: nowhere. main.ts opens it from `config.audit` (audit.ts openAuditLog). */
  readonly audit?: AuditLog;
}

/** The namespace served (the flag, else the kubeconfig context's, else default) and the operator's Lease namespace (the flag, else the served one). */
export function servedNamespaces(
  config: Pick<ApiConfig, 'namespace' | 'leaseNamespace'>,
  kc: KubeConfig,
): { readonly namespace: string; readonly leaseNamespace: string } {
  const namespace = config.namespace ?? kc.getContextObject(kc.getCurrentContext())?.namespace ?? 'default';
  return { namespace, leaseNamespace: config.leaseNamespace ?? namespace };
}

export function kubeConfig(path: string | undefined): KubeConfig {
  const kc = new KubeConfig();
  if (path === undefined) kc.loadFromDefault();
  else kc.loadFromFile(path);
  reuseConnections(kc);
  return kc;
}

/** Undefined when healthy, else why not: the Kubernetes API unreachable, or no operator leading. */
function healthCheck(versionApi: VersionApi, cache: Cache, clock: () => Date): () => Promise<string | undefined> {
  return async () => {
    try {
      await versionApi.getCode();
    } catch (error) {
      return `the Kubernetes API is unreachable: ${(error as Error).message}`;
    }
    const leader = leaderOf(cache.operatorLease.list()[0], clock());
    if (leader?.status !== 'active') return 'scheduler not responding: no operator holds a current leader Lease';
    return undefined;
  };
}

export async function startServer(options: ServerOptions): Promise<Server> {
  const { config } = options;
  const logger = options.logger ?? silentLogger;
  const kc = kubeConfig(config.kubeconfig);
  const { namespace, leaseNamespace } = servedNamespaces(config, kc);
  const clients = kubedagClients(kc);
  const cache = new Cache({
    kc,
    namespace,
    clients,
    core: kc.makeApiClient(CoreV1Api),
    coordination: kc.makeApiClient(CoordinationV1Api),
    leaseNamespace,
    leaseName: config.leaseName,
    logger,
  });
  await cache.start();
  // Loading every DAG once now keeps the first GET /dags from paying for all of them.
  for (const dag of cache.dags.list(namespace)) dagEntry(dag);
  const writer = new Writer(clients, cache);
  const history =
    options.history ??
    (config.history === undefined ? undefined : await openHistoryReader(config.history, config.operatorUrl));
  const cluster: Cluster = {
    cache,
    writer,
    starter: new Starter(cache, writer),
    logs: new OperatorLogs(config.operatorUrl, namespace),
    artifacts: new OperatorArtifacts(config.operatorUrl, namespace),
    records: new RunRecords(clients.segments),
    definitions: new RunDefinitions(clients.segments),
    policy: new NamespacePolicy(kc.makeApiClient(CoreV1Api), namespace, config.podPolicy),
    ...(history === undefined ? {} : { history }),
  };
  const clock = options.clock ?? ((): Date => new Date());
  const health = healthCheck(kc.makeApiClient(VersionApi), cache, clock);
  const ui = uiBuilt(config.uiDir);
  if (!ui)
    logger.warn({ uiDir: config.uiDir }, `no web UI in ${config.uiDir} (run \`make ui\`); serving the API alone`);
  const audit = options.audit === undefined ? {} : { audit: options.audit };
  const app = buildApp({
    version: options.version,
    clock,
    health,
    bodyLimit: config.bodyLimit,
    logger,
    cluster,
    trustProxy: config.trustProxy,
    ...audit,
    ...(ui ? { uiDir: config.uiDir } : {}),
    plugins: (options.plugins ?? []).map((plugin) => (a: FastifyInstance) => {
      plugin(a, { kc, namespace });
    }),
  });
  return {
    app,
    cache,
    close: async () => {
      await app.close();
      await options.audit?.flush();
      await cache.stop();
      await history?.close();
    },
  };
}

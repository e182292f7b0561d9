/**
 * The API server's configuration, read once at start from flags and `KUBEDAG_*` variables
 * (flags win), and from the files those name: where to listen, the cluster, the log,
 * authentication (docs/api-auth.md) and remote nodes (docs/api-remote-nodes.md). Everything is
 * checked here, shapes against TypeBox schemas, so that a bad setting stops the start with a
 * message that names it; the modules that use a setting are handed it parsed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HISTORY_SETTINGS, historyStoreFrom } from '../core/history/settings.ts';
import type { PolicyLevel } from '../core/policy/pod-standards.ts';
import { POD_POLICY_SETTINGS } from '../core/policy/settings.ts';
import type { HistoryStoreConfig } from '../core/history/open.ts';
import { LOG_SETTINGS, type LogSettings } from '../core/log.ts';
import type { HelpPage } from '../core/settings-help.ts';
import { parseSettings, setting, type SettingName } from '../core/settings.ts';
import { AUDIT_SINK_TEXT, parseAuditSink, type AuditSinkConfig } from './audit.ts';
import type { TrustProxy } from './deps.ts';
import {
  asIs,
  AUTH_SETTINGS,
  commaList,
  parseAuthConfig,
  type AuthConfig,
  type Env,
  type ReadFile,
} from './config-auth.ts';
import { parseRemoteNodes, type RemoteNode } from './config-remote-nodes.ts';

export interface ApiConfig {
  /** The namespace served; default: the kubeconfig's (or in-cluster) namespace. */
  readonly namespace?: string;
  readonly host: string;
  readonly port: number;
  /** The operator's internal endpoint, where step logs are read. */
  readonly operatorUrl: string;
  /** The operator's leader Lease (health, /services). */
  readonly leaseNamespace?: string;
  readonly leaseName: string;
  readonly bodyLimit: number;
  readonly kubeconfig?: string;
  readonly log: LogSettings;
  readonly auth: AuthConfig;
  readonly remoteNodes: readonly RemoteNode[];
  /** The built web UI (index.html and assets/), served at `/`. */
  readonly uiDir: string;
  /** Where archived runs are read (core/history/settings.ts); absent: every run is in etcd. */
  readonly history?: HistoryStoreConfig;
  /** Where audit records go (audit.ts, docs/audit.md). */
  readonly audit: AuditSinkConfig;
  readonly trustProxy: TrustProxy;
  /** The pod policy of the namespace served unless its label says otherwise (pod-policy.ts). */
  readonly podPolicy: PolicyLevel;
}

function integer(min: number): (text: string, s: SettingName) => number {
  return (text, s) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min)
      throw new Error(`${s.name} must be an integer >= ${String(min)}, not "${text}"`);
    return value;
  };
}

function port(text: string, s: SettingName): number {
  const value = integer(0)(text, s);
  if (value > 65_535) throw new Error(`port must be at most 65535, not ${String(value)}`);
  return value;
}

const STDOUT: AuditSinkConfig = { sink: 'stdout' };

/** `--trust-proxy`: false, true, a number of hops, or a comma list of addresses and CIDR ranges. */
function trustProxy(text: string, s: SettingName): TrustProxy {
  const value = text.trim().toLowerCase();
  if (value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  const list = commaList(text);
  const bad = list.find((entry) => !/^[0-9A-Fa-f.:]+(\/\d{1,3})?$/.test(entry));
  if (bad !== undefined)
    throw new Error(
      `${s.name} must be true, false, a number of hops or a comma list of addresses and CIDR ranges; "${bad}" is none of these`,
    );
  return list;
}

/**
 * The API server's flags and variables, the one place each is declared: parseApiConfig reads
 * them from it and `--help` prints it with AUTH_SETTINGS (core/settings.ts).
 */
export const API_SETTINGS = {
  namespace: setting<string | undefined>({
    flag: 'namespace',
    group: 'Server',
    value: 'NAMESPACE',
    default: undefined,
    defaultText: "the kubeconfig's namespace, else default",
    description: 'The namespace served.',
    read: asIs,
  }),
  host: setting({
    flag: 'host',
    variables: ['KUBEDAG_API_HOST'],
    group: 'Server',
    value: 'ADDRESS',
    default: '127.0.0.1',
    description: 'Address to listen on.',
    read: asIs,
  }),
  port: setting({
    flag: 'port',
    variables: ['KUBEDAG_API_PORT'],
    group: 'Server',
    value: 'PORT',
    default: 8080,
    description: 'Port to listen on; 0 takes a free one.',
    read: port,
  }),
  bodyLimit: setting({
    flag: 'body-limit',
    variables: ['KUBEDAG_API_BODY_LIMIT'],
    group: 'Server',
    value: 'BYTES',
    default: 1_048_576 + 65_536,
    description: 'Largest request body (at least 1024).',
    read: integer(1024),
  }),
  // `make ui` builds into dist/ui beside the sources; the image keeps that layout.
  uiDir: setting({
    flag: 'ui-dir',
    group: 'Server',
    value: 'DIR',
    default: join(import.meta.dirname, '../dist/ui'),
    description: 'The built web UI (index.html and assets/), served at /.',
    read: asIs,
  }),
  operatorUrl: setting({
    flag: 'operator-url',
    group: 'Cluster',
    value: 'URL',
    default: 'http://127.0.0.1:8081',
    description: "The operator's internal endpoint, where step logs are read.",
    read: asIs,
  }),
  leaseNamespace: setting<string | undefined>({
    flag: 'lease-namespace',
    group: 'Cluster',
    value: 'NAMESPACE',
    default: undefined,
    defaultText: 'the namespace served',
    description: "Namespace of the operator's leader Lease (health, /services).",
    read: asIs,
  }),
  leaseName: setting({
    flag: 'lease-name',
    group: 'Cluster',
    value: 'NAME',
    default: 'kubedag-operator',
    description: "Name of the operator's leader Lease.",
    read: asIs,
  }),
  kubeconfig: setting<string | undefined>({
    flag: 'kubeconfig',
    group: 'Cluster',
    value: 'PATH',
    variables: ['KUBEDAG_KUBECONFIG', 'KUBECONFIG'],
    default: undefined,
    defaultText: 'in-cluster, else ~/.kube/config',
    description: 'The kubeconfig file to reach the cluster with.',
    read: asIs,
  }),
  trustProxy: setting<TrustProxy>({
    flag: 'trust-proxy',
    group: 'Server',
    value: 'false|true|HOPS|ADDRESSES',
    default: false,
    description:
      'Which peers may say, in X-Forwarded-For, whose request it is (request.ip, the audit source): none, any, this many hops, or these addresses and CIDR ranges.',
    read: trustProxy,
  }),
  ...LOG_SETTINGS,
  auditLog: setting({
    flag: 'audit-log',
    group: 'Log',
    value: AUDIT_SINK_TEXT,
    default: STDOUT,
    defaultText: 'stdout',
    description: 'Where audit records (one JSON line per change asked of the API, docs/audit.md) go.',
    read: (text, s) => parseAuditSink(text, s.name),
  }),
  // The operator's own three settings: the chart gives both processes the same values.
  ...HISTORY_SETTINGS,
  // The operator's: DAGs are validated against the level the operator enforces.
  ...POD_POLICY_SETTINGS,
};

/** What `--help` prints. */
export const API_HELP: HelpPage = {
  usage: 'node apiserver/main.ts [--flag=value ...]',
  about: "The Kubedag API server: Dagu's /api/v2 and web UI over the DAG and DAGRun resources of one namespace.",
  settings: { ...API_SETTINGS, ...AUTH_SETTINGS },
  notes: ['A wrong setting stops the start with a message that names it, and exit status 1.'],
};

const optional = <K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> =>
  value === undefined ? {} : ({ [key]: value } as Record<K, string>);

/** Everything the server needs to start; `readFile` reads the files that variables name. */
export function parseApiConfig(
  argv: readonly string[],
  env: Env,
  readFile: ReadFile = (path) => readFileSync(path, 'utf8'),
): ApiConfig {
  const values = parseSettings(API_SETTINGS, argv, env);
  return {
    ...optional('namespace', values.namespace),
    host: values.host,
    port: values.port,
    operatorUrl: values.operatorUrl,
    ...optional('leaseNamespace', values.leaseNamespace),
    leaseName: values.leaseName,
    bodyLimit: values.bodyLimit,
    ...optional('kubeconfig', values.kubeconfig),
    log: { level: values.logLevel, format: values.logFormat },
    auth: parseAuthConfig(env, readFile),
    remoteNodes: parseRemoteNodes(env, readFile),
    uiDir: values.uiDir,
    audit: values.auditLog,
    trustProxy: values.trustProxy,
    podPolicy: values.podPolicy,
    ...historyOf(historyStoreFrom(values)),
  };
}

const historyOf = (history: HistoryStoreConfig | undefined): { history?: HistoryStoreConfig } =>
  history === undefined ? {} : { history };

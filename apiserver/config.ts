/**
 * The API server's configuration, read once at start from flags and `KUBEDAG_*` variables
 * (flags win), and from the files those name: where to listen, the cluster, the log,
 * authentication (docs/api-auth.md) and remote nodes (docs/api-remote-nodes.md). Everything is
 * checked here, shapes against TypeBox schemas, so that a bad setting stops the start with a
 * message that names it; the modules that use a setting are handed it parsed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Type, { type Static } from 'typebox';
import { HISTORY_SETTINGS, historyStoreFrom } from '../core/history/settings.ts';
import type { PolicyLevel } from '../core/policy/pod-standards.ts';
import { POD_POLICY_SETTINGS } from '../core/policy/settings.ts';
import type { HistoryStoreConfig } from '../core/history/open.ts';
import { LOG_SETTINGS, type LogSettings } from '../core/log.ts';
import type { HelpPage } from '../core/settings-help.ts';
import { parseSettings, resolveSettings, setting, type SettingName } from '../core/settings.ts';
import { AUDIT_SINK_TEXT, parseAuditSink, type AuditSinkConfig } from './audit.ts';
import type { TrustProxy } from './deps.ts';
import { checked, isBlank } from './settings.ts';
import { OIDC_SETTINGS, parseOidcConfig, type OidcConfig } from './oidc/settings.ts';

/** "local" is how a request says "here": a remote node of that name could never be reached. */
export const LOCAL_NODE = 'local';

/** What `new URL` accepts but a remote node's base cannot be; undefined when it is fine. */
function baseUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `"${text}" is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `must be http or https, not ${url.protocol.slice(0, -1)}`;
  // The request's own path and query are appended, so the base can carry neither.
  if (url.search !== '' || url.hash !== '') return 'must not have a query or fragment';
  // fetch refuses such URLs at the first request; saying so at start is kinder.
  if (url.username !== '' || url.password !== '') return 'put credentials in auth, not in baseUrl';
  return undefined;
}

const text = Type.Refine(
  Type.String(),
  (value) => !isBlank(value),
  () => 'must not be blank',
);
// Basic credentials are "user:password"; a colon in the user would shift the split (RFC 7617).
const username = Type.Refine(
  text,
  (value) => !value.includes(':'),
  () => 'must not contain ":"',
);

const remoteAuth = Type.Refine(
  Type.Object(
    {
      basic: Type.Optional(Type.Object({ username, password: Type.String() }, { additionalProperties: false })),
      token: Type.Optional(text),
    },
    { additionalProperties: false },
  ),
  (auth) => auth.basic === undefined || auth.token === undefined,
  () => 'give basic or token, not both',
);

/**
 * Unknown fields are errors, so that a misspelt `baseURL` fails at start, not as a request
 * sent without credentials.
 */
const remoteNode = Type.Object(
  {
    name: Type.Refine(
      text,
      (name) => name !== LOCAL_NODE,
      () => `"${LOCAL_NODE}" is reserved for this server`,
    ),
    baseUrl: Type.Refine(
      text,
      (url) => baseUrlProblem(url) === undefined,
      (url) => baseUrlProblem(url) ?? '',
    ),
    auth: Type.Optional(remoteAuth),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

const duplicate = (names: readonly string[]): string | undefined =>
  names.find((name, index) => names.indexOf(name) !== index);

const remoteNodes = Type.Refine(
  Type.Array(remoteNode),
  (nodes) => duplicate(nodes.map((n) => n.name)) === undefined,
  (nodes) => `duplicate name "${duplicate(nodes.map((n) => n.name)) ?? ''}"`,
);

export type RemoteNode = Readonly<Static<typeof remoteNode>>;

/** What a credential can be granted; `public` needs no credential, so granting it means nothing. */
export const GRANTS = ['read', 'run', 'write', 'delete'] as const;
const grant = Type.Enum([...GRANTS]);
export type Grant = Static<typeof grant>;

const AUTH_MODES = ['none', 'basic', 'bearer', 'kubernetes', 'oidc'] as const;
const authMode = Type.Enum([...AUTH_MODES]);
type AuthMode = Static<typeof authMode>;

const basicUser = Type.Object({ username, password: Type.String({ minLength: 1 }) });
const staticToken = Type.Object({ token: text, permissions: Type.Optional(Type.Array(grant, { minItems: 1 })) });

/** Authentication as configured; no field set means mode none (every request passes). */
export interface AuthConfig {
  readonly basic?: readonly Static<typeof basicUser>[];
  /** What Basic users may do; default everything. */
  readonly basicPermissions?: readonly Grant[];
  /** Static Bearer tokens; a token without permissions has them all. */
  readonly tokens?: readonly Static<typeof staticToken>[];
  /** Tokens are reviewed by the cluster (TokenReview, SubjectAccessReview). */
  readonly kubernetes?: true;
  /** People sign in with an OpenID Connect provider (apiserver/oidc). */
  readonly oidc?: OidcConfig;
}

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

type Env = Readonly<Record<string, string | undefined>>;
type ReadFile = (path: string) => string;

const asIs = (text: string): string => text;
const variable = (name: string, description: string, more: { value?: string; defaultText?: string } = {}) =>
  setting<string | undefined>({
    variables: [name],
    group: 'Authentication and remote nodes (variables only: they hold or name credentials)',
    default: undefined,
    description,
    read: asIs,
    ...more,
  });

/**
 * The settings that hold or name credentials: variables only, so that they never show in a
 * process list. Checked together by parseAuthConfig and parseRemoteNodes, since each depends on
 * the others (docs/api-auth.md, docs/api-remote-nodes.md).
 */
export const AUTH_SETTINGS = {
  mode: variable(
    'KUBEDAG_AUTH_MODE',
    'Comma list of basic, bearer, kubernetes (TokenReview and SubjectAccessReview) and oidc (browser sign-in); none lets every request pass.',
    { value: 'MODES', defaultText: 'none' },
  ),
  basicFile: variable('KUBEDAG_AUTH_BASIC_FILE', 'A file of user:password lines (basic mode).', { value: 'PATH' }),
  basicUsername: variable(
    'KUBEDAG_AUTH_BASIC_USERNAME',
    'One Basic user, with KUBEDAG_AUTH_BASIC_PASSWORD (basic mode).',
  ),
  basicPassword: variable('KUBEDAG_AUTH_BASIC_PASSWORD', 'The password of KUBEDAG_AUTH_BASIC_USERNAME.'),
  basicPermissions: variable(
    'KUBEDAG_AUTH_BASIC_PERMISSIONS',
    'What Basic users may do: comma list of read, run, write, delete.',
    { value: 'LIST', defaultText: 'all' },
  ),
  tokensFile: variable(
    'KUBEDAG_AUTH_TOKENS_FILE',
    'A file of Bearer tokens, one a line, each with an optional comma list of permissions (bearer mode).',
    { value: 'PATH' },
  ),
  token: variable('KUBEDAG_AUTH_TOKEN', 'One Bearer token with every permission (bearer mode).'),
  ...OIDC_SETTINGS,
  remoteNodes: variable('KUBEDAG_REMOTE_NODES', 'Remote nodes as JSON: an array of {name, baseUrl, auth, timeoutMs}.', {
    value: 'JSON',
  }),
  remoteNodesFile: variable(
    'KUBEDAG_REMOTE_NODES_FILE',
    'A file holding the remote nodes JSON (a mounted Secret); not with KUBEDAG_REMOTE_NODES.',
    { value: 'PATH' },
  ),
};

type AuthValues = { readonly [K in keyof typeof AUTH_SETTINGS]: string | undefined };

function read(readFile: ReadFile, variable: string, path: string): string {
  try {
    return readFile(path);
  } catch (error) {
    throw new Error(`${variable}: cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}

/** Lines that carry something: blank lines and `#` comments are skipped, CRLF endings allowed. */
function lines(content: string): { readonly text: string; readonly number: number }[] {
  return content
    .split('\n')
    .map((line, index) => ({ text: line.replace(/\r$/, ''), number: index + 1 }))
    .filter((line) => !isBlank(line.text) && !line.text.trimStart().startsWith('#'));
}

function commaList(value: string): string[] {
  return value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

function permissionList(value: string, where: string): Grant[] {
  const names = commaList(value);
  if (names.length === 0) throw new Error(`${where}: empty permission list`);
  return [...new Set(names.map((name) => checked(grant, name, where)))];
}

function modes(value: string | undefined): ReadonlySet<AuthMode> {
  const on = new Set(commaList(value ?? '').map((name) => checked(authMode, name, 'KUBEDAG_AUTH_MODE')));
  if (on.has('none') && on.size > 1) throw new Error('KUBEDAG_AUTH_MODE: "none" cannot be combined with another mode');
  on.delete('none');
  return on;
}

function basicUsers(values: AuthValues, readFile: ReadFile): Static<typeof basicUser>[] {
  const users: Static<typeof basicUser>[] = [];
  const file = values.basicFile;
  for (const line of file === undefined ? [] : lines(read(readFile, 'KUBEDAG_AUTH_BASIC_FILE', file))) {
    const where = `KUBEDAG_AUTH_BASIC_FILE line ${line.number}`;
    const colon = line.text.indexOf(':');
    if (colon <= 0) throw new Error(`${where}: expected user:password`);
    users.push(
      checked(basicUser, { username: line.text.slice(0, colon), password: line.text.slice(colon + 1) }, where),
    );
  }
  const name = values.basicUsername;
  const password = values.basicPassword;
  if ((name === undefined) !== (password === undefined))
    throw new Error('KUBEDAG_AUTH_BASIC_USERNAME and KUBEDAG_AUTH_BASIC_PASSWORD must be set together');
  if (name !== undefined && password !== undefined)
    users.push({ username: checked(username, name, 'KUBEDAG_AUTH_BASIC_USERNAME'), password });
  const twice = duplicate(users.map((u) => u.username));
  if (twice !== undefined) throw new Error(`basic user "${twice}" is defined twice`);
  return users;
}

function staticTokens(values: AuthValues, readFile: ReadFile): Static<typeof staticToken>[] {
  const tokens: Static<typeof staticToken>[] = [];
  const file = values.tokensFile;
  for (const line of file === undefined ? [] : lines(read(readFile, 'KUBEDAG_AUTH_TOKENS_FILE', file))) {
    const where = `KUBEDAG_AUTH_TOKENS_FILE line ${line.number}`;
    const fields = line.text.trim().split(/\s+/);
    if (fields.length > 2) throw new Error(`${where}: expected a token and an optional comma list of permissions`);
    const [token = '', permissions] = fields;
    tokens.push(
      checked(
        staticToken,
        { token, ...(permissions === undefined ? {} : { permissions: permissionList(permissions, where) }) },
        where,
      ),
    );
  }
  // Trimmed: a value taken from a Secret often ends with a newline that is no part of the token.
  const token = values.token?.trim();
  if (token !== undefined) tokens.push({ token: checked(text, token, 'KUBEDAG_AUTH_TOKEN') });
  if (duplicate(tokens.map((t) => t.token)) !== undefined) throw new Error('a Bearer token is defined twice');
  return tokens;
}

/** Which mode each credential variable belongs to: setting one without its mode is a mistake. */
const AUTH_VARIABLES: readonly (readonly [keyof AuthValues, AuthMode])[] = [
  ['basicFile', 'basic'],
  ['basicUsername', 'basic'],
  ['basicPassword', 'basic'],
  ['basicPermissions', 'basic'],
  ['tokensFile', 'bearer'],
  ['token', 'bearer'],
  ...Object.keys(OIDC_SETTINGS).map((key) => [key as keyof AuthValues, 'oidc'] as const),
];

/**
 * Authentication from the environment. Files are meant for credentials mounted from a Secret.
 * Anything inconsistent throws, so that a server that was meant to be protected never starts
 * open: a mode without credentials, credentials without their mode.
 */
export function parseAuthConfig(env: Env, readFile: ReadFile): AuthConfig {
  const values = resolveSettings(AUTH_SETTINGS, {}, env);
  const on = modes(values.mode);
  for (const [key, mode] of AUTH_VARIABLES) {
    if (values[key] !== undefined && !on.has(mode))
      throw new Error(`${AUTH_SETTINGS[key].name} is set but KUBEDAG_AUTH_MODE does not include ${mode}`);
  }
  const basic = on.has('basic') ? basicUsers(values, readFile) : [];
  if (on.has('basic') && basic.length === 0)
    throw new Error(
      'KUBEDAG_AUTH_MODE includes basic but no user is configured: set KUBEDAG_AUTH_BASIC_FILE or KUBEDAG_AUTH_BASIC_USERNAME and KUBEDAG_AUTH_BASIC_PASSWORD',
    );
  const permissions = values.basicPermissions;
  const tokens = on.has('bearer') ? staticTokens(values, readFile) : [];
  if (on.has('bearer') && tokens.length === 0)
    throw new Error(
      'KUBEDAG_AUTH_MODE includes bearer but no token is configured: set KUBEDAG_AUTH_TOKENS_FILE or KUBEDAG_AUTH_TOKEN',
    );
  return {
    ...(basic.length === 0 ? {} : { basic }),
    ...(permissions === undefined
      ? {}
      : { basicPermissions: permissionList(permissions, 'KUBEDAG_AUTH_BASIC_PERMISSIONS') }),
    ...(tokens.length === 0 ? {} : { tokens }),
    ...(on.has('kubernetes') ? { kubernetes: true as const } : {}),
    ...(on.has('oidc') ? { oidc: parseOidcConfig(values, on.has('kubernetes')) } : {}),
  };
}

/** Remote nodes from their JSON text: an array of nodes; `setting` says where the text came from. */
function remoteNodesFrom(json: string, setting: string): RemoteNode[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new Error(`${setting}: not JSON: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return checked(remoteNodes, parsed, setting).map((node) => ({ ...node, baseUrl: node.baseUrl.replace(/\/+$/, '') }));
}

/**
 * Remote nodes as configured in the environment: KUBEDAG_REMOTE_NODES holds the JSON itself,
 * KUBEDAG_REMOTE_NODES_FILE names a file holding it (a mounted Secret, since it carries
 * credentials). Neither set means no remote nodes; both set is an error, not a silent choice.
 */
export function parseRemoteNodes(env: Env, readFile: ReadFile): RemoteNode[] {
  const { remoteNodes: inline, remoteNodesFile: file } = resolveSettings(AUTH_SETTINGS, {}, env);
  if (inline !== undefined && file !== undefined)
    throw new Error('set KUBEDAG_REMOTE_NODES or KUBEDAG_REMOTE_NODES_FILE, not both');
  if (inline !== undefined) return remoteNodesFrom(inline, 'KUBEDAG_REMOTE_NODES');
  if (file === undefined) return [];
  return remoteNodesFrom(read(readFile, 'KUBEDAG_REMOTE_NODES_FILE', file), `KUBEDAG_REMOTE_NODES_FILE ${file}`);
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

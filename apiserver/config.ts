/**
 * The API server's configuration, read once at start from flags and `KUBEDAG_*` variables
 * (flags win), and from the files those name: where to listen, the cluster, the log,
 * authentication (docs/api-auth.md) and remote nodes (docs/api-remote-nodes.md). Everything is
 * checked here, shapes against TypeBox schemas, so that a bad setting stops the start with a
 * message that names it; the modules that use a setting are handed it parsed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Type, { type Static } from 'typebox';
import { LOG_FLAGS, logSettingsFrom, type LogSettings } from '../core/log.ts';
import { checked, isBlank } from './settings.ts';

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
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `must be http or https, not ${url.protocol.slice(0, -1)}`;
  // The request's own path and query are appended, so the base can carry neither.
  if (url.search !== '' || url.hash !== '') return 'must not have a query or fragment';
  // fetch refuses such URLs at the first request; saying so at start is kinder.
  if (url.username !== '' || url.password !== '') return 'put credentials in auth, not in baseUrl';
  return undefined;
}

const text = Type.Refine(Type.String(), (value) => !isBlank(value), () => 'must not be blank');
// Basic credentials are "user:password"; a colon in the user would shift the split (RFC 7617).
const username = Type.Refine(text, (value) => !value.includes(':'), () => 'must not contain ":"');

const remoteAuth = Type.Refine(
  Type.Object({ basic: Type.Optional(Type.Object({ username, password: Type.String() }, { additionalProperties: false })), token: Type.Optional(text) }, { additionalProperties: false }),
  (auth) => auth.basic === undefined || auth.token === undefined,
  () => 'give basic or token, not both',
);

/**
 * Unknown fields are errors, so that a misspelt `baseURL` fails at start, not as a request
 * sent without credentials.
 */
const remoteNode = Type.Object(
  {
    name: Type.Refine(text, (name) => name !== LOCAL_NODE, () => `"${LOCAL_NODE}" is reserved for this server`),
    baseUrl: Type.Refine(text, (url) => baseUrlProblem(url) === undefined, (url) => baseUrlProblem(url) ?? ''),
    auth: Type.Optional(remoteAuth),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

const duplicate = (names: readonly string[]): string | undefined => names.find((name, index) => names.indexOf(name) !== index);

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

const AUTH_MODES = ['none', 'basic', 'bearer', 'kubernetes'] as const;
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
}

type Env = Readonly<Record<string, string | undefined>>;
type ReadFile = (path: string) => string;

/** A variable's value; an empty one counts as unset. */
function set(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

function read(readFile: ReadFile, variable: string, path: string): string {
  try {
    return readFile(path);
  } catch (error) {
    throw new Error(`${variable}: cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
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

function basicUsers(env: Env, readFile: ReadFile): Static<typeof basicUser>[] {
  const users: Static<typeof basicUser>[] = [];
  const file = set(env, 'KUBEDAG_AUTH_BASIC_FILE');
  for (const line of file === undefined ? [] : lines(read(readFile, 'KUBEDAG_AUTH_BASIC_FILE', file))) {
    const where = `KUBEDAG_AUTH_BASIC_FILE line ${line.number}`;
    const colon = line.text.indexOf(':');
    if (colon <= 0) throw new Error(`${where}: expected user:password`);
    users.push(checked(basicUser, { username: line.text.slice(0, colon), password: line.text.slice(colon + 1) }, where));
  }
  const name = set(env, 'KUBEDAG_AUTH_BASIC_USERNAME');
  const password = set(env, 'KUBEDAG_AUTH_BASIC_PASSWORD');
  if ((name === undefined) !== (password === undefined)) throw new Error('KUBEDAG_AUTH_BASIC_USERNAME and KUBEDAG_AUTH_BASIC_PASSWORD must be set together');
  if (name !== undefined && password !== undefined) users.push({ username: checked(username, name, 'KUBEDAG_AUTH_BASIC_USERNAME'), password });
  const twice = duplicate(users.map((u) => u.username));
  if (twice !== undefined) throw new Error(`basic user "${twice}" is defined twice`);
  return users;
}

function staticTokens(env: Env, readFile: ReadFile): Static<typeof staticToken>[] {
  const tokens: Static<typeof staticToken>[] = [];
  const file = set(env, 'KUBEDAG_AUTH_TOKENS_FILE');
  for (const line of file === undefined ? [] : lines(read(readFile, 'KUBEDAG_AUTH_TOKENS_FILE', file))) {
    const where = `KUBEDAG_AUTH_TOKENS_FILE line ${line.number}`;
    const fields = line.text.trim().split(/\s+/);
    if (fields.length > 2) throw new Error(`${where}: expected a token and an optional comma list of permissions`);
    const [token = '', permissions] = fields;
    tokens.push(checked(staticToken, { token, ...(permissions === undefined ? {} : { permissions: permissionList(permissions, where) }) }, where));
  }
  // Trimmed: a value taken from a Secret often ends with a newline that is no part of the token.
  const token = set(env, 'KUBEDAG_AUTH_TOKEN')?.trim();
  if (token !== undefined) tokens.push({ token: checked(text, token, 'KUBEDAG_AUTH_TOKEN') });
  if (duplicate(tokens.map((t) => t.token)) !== undefined) throw new Error('a Bearer token is defined twice');
  return tokens;
}

/** Which mode each credential variable belongs to: setting one without its mode is a mistake. */
const AUTH_VARIABLES: readonly (readonly [string, AuthMode])[] = [
  ['KUBEDAG_AUTH_BASIC_FILE', 'basic'],
  ['KUBEDAG_AUTH_BASIC_USERNAME', 'basic'],
  ['KUBEDAG_AUTH_BASIC_PASSWORD', 'basic'],
  ['KUBEDAG_AUTH_BASIC_PERMISSIONS', 'basic'],
  ['KUBEDAG_AUTH_TOKENS_FILE', 'bearer'],
  ['KUBEDAG_AUTH_TOKEN', 'bearer'],
];

/**
 * Authentication from the environment. Files are meant for credentials mounted from a Secret.
 * Anything inconsistent throws, so that a server that was meant to be protected never starts
 * open: a mode without credentials, credentials without their mode.
 */
export function parseAuthConfig(env: Env, readFile: ReadFile): AuthConfig {
  const on = modes(env.KUBEDAG_AUTH_MODE);
  for (const [variable, mode] of AUTH_VARIABLES) {
    if (set(env, variable) !== undefined && !on.has(mode)) throw new Error(`${variable} is set but KUBEDAG_AUTH_MODE does not include ${mode}`);
  }
  const basic = on.has('basic') ? basicUsers(env, readFile) : [];
  if (on.has('basic') && basic.length === 0) throw new Error('KUBEDAG_AUTH_MODE includes basic but no user is configured: set KUBEDAG_AUTH_BASIC_FILE or KUBEDAG_AUTH_BASIC_USERNAME and KUBEDAG_AUTH_BASIC_PASSWORD');
  const permissions = set(env, 'KUBEDAG_AUTH_BASIC_PERMISSIONS');
  const tokens = on.has('bearer') ? staticTokens(env, readFile) : [];
  if (on.has('bearer') && tokens.length === 0) throw new Error('KUBEDAG_AUTH_MODE includes bearer but no token is configured: set KUBEDAG_AUTH_TOKENS_FILE or KUBEDAG_AUTH_TOKEN');
  return {
    ...(basic.length === 0 ? {} : { basic }),
    ...(permissions === undefined ? {} : { basicPermissions: permissionList(permissions, 'KUBEDAG_AUTH_BASIC_PERMISSIONS') }),
    ...(tokens.length === 0 ? {} : { tokens }),
    ...(on.has('kubernetes') ? { kubernetes: true as const } : {}),
  };
}

/** Remote nodes from their JSON text: an array of nodes; `setting` says where the text came from. */
function remoteNodesFrom(json: string, setting: string): RemoteNode[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new Error(`${setting}: not JSON: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return checked(remoteNodes, parsed, setting).map((node) => ({ ...node, baseUrl: node.baseUrl.replace(/\/+$/, '') }));
}

/**
 * Remote nodes as configured in the environment: KUBEDAG_REMOTE_NODES holds the JSON itself,
 * KUBEDAG_REMOTE_NODES_FILE names a file holding it (a mounted Secret, since it carries
 * credentials). Neither set means no remote nodes; both set is an error, not a silent choice.
 */
export function parseRemoteNodes(env: Env, readFile: ReadFile): RemoteNode[] {
  const inline = set(env, 'KUBEDAG_REMOTE_NODES');
  const file = set(env, 'KUBEDAG_REMOTE_NODES_FILE');
  if (inline !== undefined && file !== undefined) throw new Error('set KUBEDAG_REMOTE_NODES or KUBEDAG_REMOTE_NODES_FILE, not both');
  if (inline !== undefined) return remoteNodesFrom(inline, 'KUBEDAG_REMOTE_NODES');
  if (file === undefined) return [];
  return remoteNodesFrom(read(readFile, 'KUBEDAG_REMOTE_NODES_FILE', file), `KUBEDAG_REMOTE_NODES_FILE ${file}`);
}

// `make ui` builds into dist/ui beside the sources; the image keeps that layout.
const DEFAULTS = { host: '127.0.0.1', port: 8080, operatorUrl: 'http://127.0.0.1:8081', leaseName: 'kubedag-operator', bodyLimit: 1_048_576 + 65_536, uiDir: join(import.meta.dirname, '../dist/ui') };

function port(value: number): number {
  if (value > 65_535) throw new Error(`port must be at most 65535, not ${String(value)}`);
  return value;
}

function number(text: string | undefined, fallback: number, name: string, min: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${String(min)}, not "${text}"`);
  return value;
}

const optional = <K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> => (value === undefined ? {} : ({ [key]: value } as Record<K, string>));

/** Everything the server needs to start; `readFile` reads the files that variables name. */
export function parseApiConfig(argv: readonly string[], env: Env, readFile: ReadFile = (path) => readFileSync(path, 'utf8')): ApiConfig {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      namespace: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      'operator-url': { type: 'string' },
      'lease-namespace': { type: 'string' },
      'lease-name': { type: 'string' },
      'body-limit': { type: 'string' },
      kubeconfig: { type: 'string' },
      'ui-dir': { type: 'string' },
      ...LOG_FLAGS,
    },
  });
  const pick = (flag: string | undefined, name: string): string | undefined => {
    const value = flag ?? env[`KUBEDAG_${name}`];
    return value === '' ? undefined : value;
  };
  return {
    ...optional('namespace', pick(values.namespace, 'NAMESPACE')),
    host: pick(values.host, 'API_HOST') ?? DEFAULTS.host,
    port: port(number(pick(values.port, 'API_PORT'), DEFAULTS.port, 'port', 0)),
    operatorUrl: pick(values['operator-url'], 'OPERATOR_URL') ?? DEFAULTS.operatorUrl,
    ...optional('leaseNamespace', pick(values['lease-namespace'], 'LEASE_NAMESPACE')),
    leaseName: pick(values['lease-name'], 'LEASE_NAME') ?? DEFAULTS.leaseName,
    bodyLimit: number(pick(values['body-limit'], 'API_BODY_LIMIT'), DEFAULTS.bodyLimit, 'body-limit', 1024),
    ...optional('kubeconfig', pick(values.kubeconfig, 'KUBECONFIG') ?? env.KUBECONFIG),
    log: logSettingsFrom(values, env),
    auth: parseAuthConfig(env, readFile),
    remoteNodes: parseRemoteNodes(env, readFile),
    uiDir: pick(values['ui-dir'], 'UI_DIR') ?? DEFAULTS.uiDir,
  };
}

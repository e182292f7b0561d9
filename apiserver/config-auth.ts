/**
 * Authentication as configured: the variables that hold or name credentials (never flags, so
 * that they never show in a process list), checked together so that a server meant to be
 * protected never starts open (docs/api-auth.md).
 */
import Type, { type Static } from 'typebox';
import { resolveSettings, setting } from '../core/settings.ts';
import { checked, isBlank } from './settings.ts';
import { OIDC_SETTINGS, parseOidcConfig, type OidcConfig } from './oidc/settings.ts';

/** The first name given twice, if any. */
export const duplicate = (names: readonly string[]): string | undefined =>
  names.find((name, index) => names.indexOf(name) !== index);

export const text = Type.Refine(
  Type.String(),
  (value) => !isBlank(value),
  () => 'must not be blank',
);
// Basic credentials are "user:password"; a colon in the user would shift the split (RFC 7617).
export const username = Type.Refine(
  text,
  (value) => !value.includes(':'),
  () => 'must not contain ":"',
);

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

export type Env = Readonly<Record<string, string | undefined>>;
export type ReadFile = (path: string) => string;

export const asIs = (text: string): string => text;
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

export function read(readFile: ReadFile, variable: string, path: string): string {
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

export function commaList(value: string): string[] {
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

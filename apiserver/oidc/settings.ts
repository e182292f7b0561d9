/**
 * The OpenID Connect sign-in settings (KUBEDAG_AUTH_OIDC_*), part of the authentication settings
 * table of config.ts (variables only: they hold a client secret and a session key). Parsed here,
 * apart from config.ts, so that each file stays readable; config.ts calls parseOidcConfig when
 * KUBEDAG_AUTH_MODE includes oidc.
 */
import { setting } from '../../core/settings.ts';
import type { Permission } from '../permissions.ts';

export type OidcGrant = Exclude<Permission, 'public'>;
const OIDC_GRANTS: readonly OidcGrant[] = ['read', 'run', 'write', 'delete'];

export interface OidcConfig {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly scopes: readonly string[];
  /** Where the provider sends the browser back: `<the server's public origin>/auth/oidc/callback`. */
  readonly redirectUrl: string;
  /** The claim whose values the mapping is keyed by (default `groups`). */
  readonly groupsClaim: string;
  /** Claim value to permissions; `*` applies to everyone signed in. Empty with mode kubernetes on. */
  readonly permissions: Readonly<Record<string, readonly OidcGrant[]>>;
  /** Seals the session cookie; every replica needs the same one (at least 32 characters). */
  readonly sessionKey: string;
  /** Cookies are sent over https only; off only for plain-http local development. */
  readonly secureCookie: boolean;
  /** The longest a sign-in lasts, refreshes or not (seconds). */
  readonly sessionTtlSeconds: number;
  /** What the sign-in page calls the provider. */
  readonly providerName: string;
  /** The ConfigMap (in the API server's own namespace) through which replicas share sign-outs; unset: each replica alone. */
  readonly signOutsConfigMap?: string;
}

const group = 'Authentication and remote nodes (variables only: they hold or name credentials)';
const variable = (name: string, description: string, more: { value?: string; defaultText?: string } = {}) =>
  setting<string | undefined>({
    variables: [name],
    group,
    default: undefined,
    description,
    read: (text) => text,
    ...more,
  });

export const OIDC_SETTINGS = {
  oidcIssuer: variable(
    'KUBEDAG_AUTH_OIDC_ISSUER',
    'The OpenID Connect issuer URL (oidc mode); its discovery document is read at start.',
    { value: 'URL' },
  ),
  oidcClientId: variable('KUBEDAG_AUTH_OIDC_CLIENT_ID', 'The client id registered with the provider (oidc mode).'),
  oidcClientSecret: variable(
    'KUBEDAG_AUTH_OIDC_CLIENT_SECRET',
    'The client secret (oidc mode; from a Secret); unset for a public client (PKCE alone).',
  ),
  oidcScopes: variable('KUBEDAG_AUTH_OIDC_SCOPES', 'Space or comma list of scopes asked for.', {
    value: 'LIST',
    defaultText: 'openid profile email groups offline_access',
  }),
  oidcRedirectUrl: variable(
    'KUBEDAG_AUTH_OIDC_REDIRECT_URL',
    'The public URL of /auth/oidc/callback, as registered with the provider; its origin is the one origin cookie-authenticated changes are accepted from.',
    { value: 'URL' },
  ),
  oidcGroupsClaim: variable(
    'KUBEDAG_AUTH_OIDC_GROUPS_CLAIM',
    'The claim whose values KUBEDAG_AUTH_OIDC_PERMISSIONS maps.',
    { value: 'CLAIM', defaultText: 'groups' },
  ),
  oidcPermissions: variable(
    'KUBEDAG_AUTH_OIDC_PERMISSIONS',
    'JSON object: claim value ("*": anyone signed in) to a list of read, run, write, delete. Required unless mode kubernetes decides.',
    { value: 'JSON' },
  ),
  oidcSessionKey: variable(
    'KUBEDAG_AUTH_OIDC_SESSION_KEY',
    'The key the session cookie is encrypted with (from a Secret; at least 32 characters; the same on every replica).',
  ),
  oidcCookieSecure: variable(
    'KUBEDAG_AUTH_OIDC_COOKIE_SECURE',
    'false lets the session cookie travel over plain http (local development only).',
    { value: 'BOOL', defaultText: 'true' },
  ),
  oidcSessionTtl: variable(
    'KUBEDAG_AUTH_OIDC_SESSION_TTL',
    'The longest a sign-in lasts, in seconds, however often its tokens are refreshed.',
    { value: 'SECONDS', defaultText: '28800' },
  ),
  oidcSignOuts: variable(
    'KUBEDAG_AUTH_OIDC_SIGNOUTS_CONFIGMAP',
    "A ConfigMap in the API server's namespace (the operator's Lease namespace) through which replicas share sign-outs, so that a signed-out cookie stops working on every replica; unset, a sign-out holds on the replica that took it.",
    { value: 'NAME' },
  ),
  oidcProviderName: variable(
    'KUBEDAG_AUTH_OIDC_PROVIDER_NAME',
    'What the sign-in page calls the provider ("Sign in with <name>").',
    { defaultText: 'the issuer host' },
  ),
};

type OidcValues = { readonly [K in keyof typeof OIDC_SETTINGS]: string | undefined };

function url(text: string | undefined, name: string): string {
  if (text === undefined) throw new Error(`KUBEDAG_AUTH_MODE includes oidc but ${name} is not set`);
  try {
    const parsed = new URL(text);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new Error('not http(s)');
  } catch {
    throw new Error(`${name}: "${text}" is not an http(s) URL`);
  }
  return text;
}

/** The permission mapping, checked: an unknown permission or a non-list is a start error. */
export function parsePermissionMap(json: string, where: string): Record<string, OidcGrant[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new Error(`${where}: not JSON: ${(error as Error).message}`, { cause: error });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error(`${where}: must be a JSON object of claim value to permission list`);
  const map: Record<string, OidcGrant[]> = {};
  for (const [key, list] of Object.entries(parsed)) {
    if (!Array.isArray(list) || list.some((p) => !OIDC_GRANTS.includes(p as OidcGrant)))
      throw new Error(`${where}: "${key}" must map to a list of ${OIDC_GRANTS.join(', ')}`);
    map[key] = [...new Set(list as OidcGrant[])];
  }
  return map;
}

function required(value: string | undefined, name: string): string {
  if (value === undefined || value === '') throw new Error(`KUBEDAG_AUTH_MODE includes oidc but ${name} is not set`);
  return value;
}

function secureCookie(value: string | undefined): boolean {
  const secure = value ?? 'true';
  if (secure !== 'true' && secure !== 'false')
    throw new Error(`KUBEDAG_AUTH_OIDC_COOKIE_SECURE: must be true or false, not "${secure}"`);
  return secure === 'true';
}

function sessionTtl(value: string | undefined): number {
  const ttl = Number(value ?? '28800');
  if (!Number.isInteger(ttl) || ttl < 60)
    throw new Error('KUBEDAG_AUTH_OIDC_SESSION_TTL: must be a whole number of seconds, at least 60');
  return ttl;
}

/** OIDC as configured; `kubernetes` says whether SubjectAccessReview decides instead of the mapping. */
export function parseOidcConfig(values: OidcValues, kubernetes: boolean): OidcConfig {
  const issuer = url(values.oidcIssuer, 'KUBEDAG_AUTH_OIDC_ISSUER');
  const redirectUrl = url(values.oidcRedirectUrl, 'KUBEDAG_AUTH_OIDC_REDIRECT_URL');
  const clientId = required(values.oidcClientId, 'KUBEDAG_AUTH_OIDC_CLIENT_ID');
  const sessionKey = values.oidcSessionKey;
  if (sessionKey === undefined || sessionKey.length < 32)
    throw new Error('KUBEDAG_AUTH_OIDC_SESSION_KEY must be set, at least 32 characters (the same on every replica)');
  const permissions =
    values.oidcPermissions === undefined
      ? {}
      : parsePermissionMap(values.oidcPermissions, 'KUBEDAG_AUTH_OIDC_PERMISSIONS');
  if (values.oidcPermissions === undefined && !kubernetes)
    throw new Error('KUBEDAG_AUTH_OIDC_PERMISSIONS is required unless KUBEDAG_AUTH_MODE includes kubernetes');
  const scopes = (values.oidcScopes ?? 'openid profile email groups offline_access')
    .split(/[\s,]+/)
    .filter((s) => s !== '');
  if (!scopes.includes('openid')) scopes.unshift('openid');
  return {
    issuer,
    clientId,
    ...(values.oidcClientSecret ? { clientSecret: values.oidcClientSecret } : {}),
    scopes,
    redirectUrl,
    groupsClaim: values.oidcGroupsClaim ?? 'groups',
    permissions,
    sessionKey,
    secureCookie: secureCookie(values.oidcCookieSecure),
    sessionTtlSeconds: sessionTtl(values.oidcSessionTtl),
    providerName: values.oidcProviderName ?? new URL(issuer).host,
    ...(values.oidcSignOuts === undefined || values.oidcSignOuts === ''
      ? {}
      : { signOutsConfigMap: values.oidcSignOuts }),
  };
}

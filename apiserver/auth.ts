/**
 * Who may call the API: an `onRequest` hook that reads the route's declared permission
 * (permissions.ts) and admits the caller by Basic credentials, static Bearer tokens, or a
 * Kubernetes token checked with TokenReview and SubjectAccessReview. With no mode configured
 * every request passes, which is what a developer running the server locally wants. The
 * credentials come parsed and checked from config.ts.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from './caller.ts';
import { GRANTS, type AuthConfig, type Grant } from './config-auth.ts';
import { ApiError } from './errors.ts';
import type { Permission } from './permissions.ts';
import { csrfAllowed, permissionsOf } from './oidc/policy.ts';
import type { OidcProvider } from './oidc/provider.ts';
import { readSession, registerOidcRoutes } from './oidc/routes.ts';
import type { SecurityScheme } from './responses.ts';
import { KubernetesReviewer, type KubernetesAuth, type Verdict } from './kubernetes-review.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The security schemes the served OpenAPI document names; set by registerAuth when credentials are checked. */
    apiSecurity?: Readonly<Record<string, SecurityScheme>>;
  }
}

/** The configured authentication (config.ts's AuthConfig), with the clients mode kubernetes asks. */
export interface AuthOptions {
  readonly basic?: readonly { readonly username: string; readonly password: string }[];
  /** Static Bearer tokens; a token without permissions has them all. */
  readonly tokens?: readonly { readonly token: string; readonly permissions?: readonly Permission[] }[];
  /** What Basic users may do; default everything. */
  readonly basicPermissions?: readonly Permission[];
  readonly kubernetes?: KubernetesAuth;
  /** Browser sign-in (apiserver/oidc): the session cookie, when a request has no Authorization header. */
  readonly oidc?: OidcProvider;
}

export function authEnabled(options: AuthOptions): boolean {
  return (
    (options.basic ?? []).length > 0 ||
    (options.tokens ?? []).length > 0 ||
    options.kubernetes !== undefined ||
    options.oidc !== undefined
  );
}

/** The OpenAPI security schemes of the configured modes: Basic, and Bearer for static and Kubernetes tokens. */
export function securitySchemes(options: AuthOptions): Record<string, SecurityScheme> {
  return {
    ...((options.basic ?? []).length > 0 ? { basicAuth: { type: 'http', scheme: 'basic' } } : {}),
    ...((options.tokens ?? []).length > 0 || options.kubernetes !== undefined
      ? { bearerAuth: { type: 'http', scheme: 'bearer' } }
      : {}),
  };
}

const REALM = 'kubedag';

type Credentials =
  | { readonly scheme: 'basic'; readonly username: string; readonly password: string }
  | { readonly scheme: 'bearer'; readonly token: string };

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** Hashing first gives equal lengths, which timingSafeEqual needs, without revealing the secret's. */
function sameSecret(expected: Buffer, given: Buffer): boolean {
  return timingSafeEqual(expected, given);
}

/**
 * The Authorization header's credentials; undefined when there is none. An unreadable header
 * throws an Error whose message becomes the 401's, so that a bad header is never a 500.
 */
function credentials(header: string | undefined): Credentials | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const match = /^([A-Za-z]+) +(\S+) *$/.exec(header);
  const scheme = match?.[1]?.toLowerCase();
  const value = match?.[2];
  if (value === undefined) throw new Error('the Authorization header is malformed');
  if (scheme === 'bearer') return { scheme, token: value };
  if (scheme !== 'basic') throw new Error(`the Authorization scheme ${match?.[1] ?? ''} is not supported`);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value)) throw new Error('the Basic credentials are not base64');
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  // RFC 7617: the user-id cannot contain a colon, the password can.
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new Error('the Basic credentials lack the ":" between user and password');
  return { scheme, username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

interface Checker {
  readonly challenges: readonly string[];
  verdict(found: Credentials | undefined, permission: Grant): Promise<Verdict>;
  /** An OIDC session's verdict: the mapping, or SubjectAccessReview with mode kubernetes. */
  session?(
    user: string,
    groups: readonly string[],
    claimValues: readonly string[],
    permission: Grant,
  ): Promise<Verdict>;
}

const missing = (permission: Grant): Verdict => ({
  outcome: 'unauthorized',
  message: `credentials are required (this route needs the ${permission} permission)`,
});
const lacking = (who: string, permission: Grant, caller: Caller): Verdict => ({
  outcome: 'forbidden',
  message: `${who} lacks the ${permission} permission`,
  caller,
});

function granted(list: readonly Permission[] | undefined): ReadonlySet<Permission> {
  return new Set(list ?? GRANTS);
}

function checker(options: AuthOptions): Checker {
  const users = (options.basic ?? []).map((user) => ({
    username: sha256(user.username),
    password: sha256(user.password),
  }));
  const basicGrants = granted(options.basicPermissions);
  const tokens = (options.tokens ?? []).map((entry) => ({
    digest: sha256(entry.token),
    grants: granted(entry.permissions),
  }));
  const reviewer = options.kubernetes === undefined ? undefined : new KubernetesReviewer(options.kubernetes);
  const challenges = [
    ...(users.length > 0 ? [`Basic realm="${REALM}"`] : []),
    ...(tokens.length > 0 || reviewer !== undefined ? [`Bearer realm="${REALM}"`] : []),
  ];

  const basic = (username: string, password: string, permission: Grant): Verdict => {
    const user = sha256(username);
    const pass = sha256(password);
    let known = false;
    // Every user is compared, so that the time taken does not say which name exists.
    for (const candidate of users) {
      const sameUser = sameSecret(candidate.username, user);
      const samePassword = sameSecret(candidate.password, pass);
      if (sameUser && samePassword) known = true;
    }
    if (!known) return { outcome: 'unauthorized', message: 'wrong username or password' };
    const caller: Caller = { user: username, groups: [], method: 'basic' };
    return basicGrants.has(permission)
      ? { outcome: 'allowed', caller }
      : lacking(`user ${username}`, permission, caller);
  };

  const bearer = async (token: string, permission: Grant): Promise<Verdict> => {
    const digest = sha256(token);
    let grants: ReadonlySet<Permission> | undefined;
    for (const candidate of tokens) if (sameSecret(candidate.digest, digest)) grants = candidate.grants;
    // A static token has no user: it is named by the start of its digest, which says which token without revealing it.
    const caller: Caller = { user: `token:${digest.toString('hex').slice(0, 12)}`, groups: [], method: 'token' };
    if (grants !== undefined)
      return grants.has(permission) ? { outcome: 'allowed', caller } : lacking('the token', permission, caller);
    if (reviewer !== undefined) return reviewer.verdict(token, permission);
    return { outcome: 'unauthorized', message: 'the token is not valid' };
  };

  const oidc = options.oidc;
  const session =
    oidc === undefined
      ? undefined
      : (user: string, groups: readonly string[], values: readonly string[], permission: Grant): Promise<Verdict> => {
          // The cache key holds the groups too: a user signed in again with other groups is asked again.
          if (reviewer !== undefined)
            return reviewer.decide(
              { username: user, groups: [...groups] },
              `oidc:${user}:${groups.join(',')}`,
              permission,
              'oidc',
            );
          const allowed = permissionsOf(values, oidc.config.permissions).has(permission);
          const caller: Caller = { user, groups, method: 'oidc' };
          return Promise.resolve(allowed ? { outcome: 'allowed', caller } : lacking(user, permission, caller));
        };
  return {
    challenges,
    ...(session === undefined ? {} : { session }),
    verdict: (found, permission) => {
      if (found === undefined) return Promise.resolve(missing(permission));
      if (found.scheme === 'bearer') {
        if (tokens.length === 0 && reviewer === undefined)
          return Promise.resolve({ outcome: 'unauthorized', message: 'Bearer tokens are not accepted here' });
        return bearer(found.token, permission);
      }
      if (users.length === 0)
        return Promise.resolve({ outcome: 'unauthorized', message: 'Basic credentials are not accepted here' });
      return Promise.resolve(basic(found.username, found.password, permission));
    },
  };
}

/**
 * Adds the authentication hook at the root, so it runs before every route and before the
 * not-found handler (an unknown path without credentials is a 401, which says nothing about
 * which paths exist). Call before the app is ready, e.g. from buildApp's `plugins`.
 */
export function registerAuth(app: FastifyInstance, options: AuthOptions): void {
  if (!authEnabled(options)) return;
  // Read by app.ts as routes are registered, which is after this runs (buildApp's `plugins`).
  app.decorate('apiSecurity', securitySchemes(options));
  const check = checker(options);
  if (options.oidc !== undefined)
    registerOidcRoutes(app, options.oidc, { kubernetes: options.kubernetes !== undefined });
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    // A route that forgot to declare its permission is treated as a read, never as public.
    const declared = request.routeOptions.config.permission ?? 'read';
    if (declared === 'public') return;
    let found: Credentials | undefined;
    try {
      found = credentials(request.headers.authorization);
    } catch (error) {
      return deny(reply, check.challenges, { outcome: 'unauthorized', message: (error as Error).message });
    }
    if (found === undefined && options.oidc !== undefined && check.session !== undefined) {
      const read = await readSession(request, reply, options.oidc);
      if (read.outcome === 'invalid')
        return deny(reply, check.challenges, { outcome: 'unauthorized', message: read.message });
      if (read.outcome === 'valid') {
        // The cookie rides along on any request the browser makes, including a forged one: see oidc/policy.ts.
        if (!csrfAllowed(request.method, request.headers.origin, request.headers.referer, options.oidc.origin))
          return deny(reply, check.challenges, {
            outcome: 'forbidden',
            message: `a change made with the session cookie must come from ${options.oidc.origin} (cross-site request refused)`,
          });
        const { user, groups, claimValues } = read.session;
        return admit(request, reply, check.challenges, await check.session(user, groups, claimValues, declared));
      }
    }
    return admit(request, reply, check.challenges, await check.verdict(found, declared));
  });
}

/** Names the caller on the request, or refuses it; a known caller refused is still named, for the audit record (audit.ts). */
function admit(
  request: FastifyRequest,
  reply: FastifyReply,
  challenges: readonly string[],
  verdict: Verdict,
): FastifyReply | undefined {
  if (verdict.outcome === 'forbidden' && verdict.caller !== undefined) request.caller = verdict.caller;
  if (verdict.outcome !== 'allowed') return deny(reply, challenges, verdict);
  request.caller = verdict.caller;
  return undefined;
}

function deny(
  reply: FastifyReply,
  challenges: readonly string[],
  verdict: Exclude<Verdict, { outcome: 'allowed' }>,
): FastifyReply {
  const error = new ApiError(verdict.outcome, verdict.message);
  if (verdict.outcome === 'unauthorized' && challenges.length > 0)
    void reply.header('www-authenticate', challenges.join(', '));
  return reply.code(error.status).send(error.body());
}

/**
 * What registerAuth is given for the configured authentication: `kubernetes` is the clients for
 * mode kubernetes, made by the caller from its kubeconfig.
 */
export function authOptions(config: AuthConfig, kubernetes?: KubernetesAuth, oidc?: OidcProvider): AuthOptions {
  const { kubernetes: reviewed, oidc: wanted, ...withoutOidc } = config;
  if (wanted !== undefined && oidc === undefined)
    throw new Error('KUBEDAG_AUTH_MODE includes oidc but no provider was discovered');
  const rest = { ...withoutOidc, ...(oidc === undefined ? {} : { oidc }) };
  if (reviewed === undefined) return rest;
  if (kubernetes === undefined)
    throw new Error('KUBEDAG_AUTH_MODE includes kubernetes but no Kubernetes clients were given');
  return { ...rest, kubernetes };
}

/**
 * Who may call the API: an `onRequest` hook that reads the route's declared permission
 * (permissions.ts) and admits the caller by Basic credentials, static Bearer tokens, or a
 * Kubernetes token checked with TokenReview and SubjectAccessReview. With no mode configured
 * every request passes, which is what a developer running the server locally wants. The
 * credentials come parsed and checked from config.ts.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AuthenticationV1Api, AuthorizationV1Api, V1UserInfo } from '@kubernetes/client-node';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GROUP } from '../core/resources/constants.ts';
import { KIND_NAMES } from '../core/resources/kinds.ts';
import type { Caller } from './caller.ts';
import { GRANTS, type AuthConfig, type Grant } from './config.ts';
import { ApiError } from './errors.ts';
import type { Permission } from './permissions.ts';
import { csrfAllowed, permissionsOf } from './oidc/policy.ts';
import type { OidcProvider } from './oidc/provider.ts';
import { readSession, registerOidcRoutes } from './oidc/routes.ts';
import type { SecurityScheme } from './responses.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The security schemes the served OpenAPI document names; set by registerAuth when credentials are checked. */
    apiSecurity?: Readonly<Record<string, SecurityScheme>>;
  }
}

export interface KubernetesAuth {
  /** Only the two calls used, so that tests can hand in plain objects. */
  readonly authentication: Pick<AuthenticationV1Api, 'createTokenReview'>;
  readonly authorization: Pick<AuthorizationV1Api, 'createSubjectAccessReview'>;
  /** The namespace served: access is asked for on its Kubedag resources. */
  readonly namespace: string;
  /** How long a review's answer is reused; default 10 s. */
  readonly cacheTtlMs?: number;
  /** Most answers kept; default 1000. */
  readonly cacheEntries?: number;
  /** Milliseconds since the epoch; tests move it to expire cached answers. */
  readonly now?: () => number;
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

/**
 * The Kubernetes access a permission stands for, asked in the served namespace. Each is the
 * request the API server itself makes on the caller's behalf for that kind of route, so that
 * a Role written for kubectl use of the same resources means the same thing here:
 * - read: get dags (every read starts from the DAG resources; a viewer Role grants get)
 * - run: create dagruns (starting a run creates a DAGRun; stop, retry and the rest act on runs)
 * - write: update dags (PUT spec and rename replace a DAG; creating one is the same power)
 * - delete: delete dags
 */
export const KUBERNETES_ACCESS: Readonly<Record<Grant, { readonly verb: string; readonly resource: string }>> = {
  read: { verb: 'get', resource: KIND_NAMES.dag.plural },
  run: { verb: 'create', resource: KIND_NAMES.dagRun.plural },
  write: { verb: 'update', resource: KIND_NAMES.dag.plural },
  delete: { verb: 'delete', resource: KIND_NAMES.dag.plural },
};

const REALM = 'kubedag';

type Credentials =
  | { readonly scheme: 'basic'; readonly username: string; readonly password: string }
  | { readonly scheme: 'bearer'; readonly token: string };

/**
 * Who the caller turned out to be: admitted as whom, or why not. A caller who is known but
 * lacks the permission is named too, so that the audit record of the 403 says who tried.
 */
type Verdict =
  | { readonly outcome: 'allowed'; readonly caller: Caller }
  | { readonly outcome: 'unauthorized'; readonly message: string }
  | { readonly outcome: 'forbidden'; readonly message: string; readonly caller?: Caller };

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

/** A map whose entries expire and whose oldest entry goes first when it is full. */
class ExpiringCache<V> {
  private readonly entries = new Map<string, { readonly value: V; readonly expires: number }>();
  private readonly ttlMs: number;
  private readonly capacity: number;
  private readonly now: () => number;

  constructor(ttlMs: number, capacity: number, now: () => number) {
    this.ttlMs = ttlMs;
    this.capacity = capacity;
    this.now = now;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires > this.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    while (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expires: this.now() + this.ttlMs });
  }

  /** Drops the entry only if it still holds this value: a newer answer stays. */
  forget(key: string, value: V): void {
    if (this.entries.get(key)?.value === value) this.entries.delete(key);
  }
}

/**
 * TokenReview then SubjectAccessReview, each answer reused for a while. Promises are cached,
 * not results, so that a burst of requests with one token shares the reviews in flight; a
 * review that fails is forgotten at once, since the next request may well succeed.
 */
class KubernetesReviewer {
  private readonly users: ExpiringCache<Promise<V1UserInfo | undefined>>;
  private readonly decisions: ExpiringCache<Promise<boolean>>;
  private readonly options: KubernetesAuth;

  constructor(options: KubernetesAuth) {
    this.options = options;
    const ttl = options.cacheTtlMs ?? 10_000;
    const entries = options.cacheEntries ?? 1000;
    const now = options.now ?? Date.now;
    this.users = new ExpiringCache(ttl, entries, now);
    this.decisions = new ExpiringCache(ttl, entries, now);
  }

  async verdict(token: string, permission: Grant): Promise<Verdict> {
    // Keys are digests so that the cache never holds a usable token.
    const key = createHash('sha256').update(token, 'utf8').digest('hex');
    const user = await this.memo(this.users, key, () => this.review(token));
    if (user === undefined) return { outcome: 'unauthorized', message: 'the token is not valid' };
    return this.decide(user, key, permission, 'kubernetes');
  }

  /** SubjectAccessReview for a user already known (a reviewed token, an OIDC session); `key` names the user in the cache. */
  async decide(user: V1UserInfo, key: string, permission: Grant, method: 'kubernetes' | 'oidc'): Promise<Verdict> {
    const allowed = await this.memo(this.decisions, `${key}:${permission}`, () => this.access(user, permission));
    const caller: Caller = { user: user.username ?? '', groups: user.groups ?? [], method };
    if (allowed) return { outcome: 'allowed', caller };
    const { verb, resource } = KUBERNETES_ACCESS[permission];
    return {
      outcome: 'forbidden',
      message: `${user.username ?? 'the caller'} may not ${verb} ${resource}.${GROUP} in namespace ${this.options.namespace}`,
      caller,
    };
  }

  private memo<V>(cache: ExpiringCache<Promise<V>>, key: string, compute: () => Promise<V>): Promise<V> {
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    const pending = compute();
    cache.set(key, pending);
    void pending.catch(() => {
      cache.forget(key, pending);
    });
    return pending;
  }

  private async review(token: string): Promise<V1UserInfo | undefined> {
    const review = await unavailableOnFailure('TokenReview', () =>
      this.options.authentication.createTokenReview({ body: { spec: { token } } }),
    );
    return review.status?.authenticated === true ? (review.status.user ?? {}) : undefined;
  }

  private async access(user: V1UserInfo, permission: Grant): Promise<boolean> {
    const { verb, resource } = KUBERNETES_ACCESS[permission];
    const spec = {
      ...(user.username === undefined ? {} : { user: user.username }),
      ...(user.uid === undefined ? {} : { uid: user.uid }),
      ...(user.groups === undefined ? {} : { groups: user.groups }),
      ...(user.extra === undefined ? {} : { extra: user.extra }),
      resourceAttributes: { group: GROUP, namespace: this.options.namespace, resource, verb },
    };
    const review = await unavailableOnFailure('SubjectAccessReview', () =>
      this.options.authorization.createSubjectAccessReview({ body: { spec } }),
    );
    return review.status?.allowed === true;
  }
}

async function unavailableOnFailure<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new ApiError(
      'service_unavailable',
      `cannot check credentials: ${what} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
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

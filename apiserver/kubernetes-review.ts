/**
 * Mode kubernetes: a Bearer token is reviewed by the cluster (TokenReview) and the user it names
 * asked about the permission on the namespace's Kubedag resources (SubjectAccessReview), with
 * the answers cached for a while. auth.ts calls it for tokens and OIDC sessions.
 */
import { createHash } from 'node:crypto';
import type { AuthenticationV1Api, AuthorizationV1Api, V1UserInfo } from '@kubernetes/client-node';
import { GROUP } from '../core/resources/constants.ts';
import { KIND_NAMES } from '../core/resources/kinds.ts';
import type { Caller } from './caller.ts';
import { type Grant } from './config-auth.ts';
import { ApiError } from './errors.ts';

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

/**
 * Who the caller turned out to be: admitted as whom, or why not. A caller who is known but
 * lacks the permission is named too, so that the audit record of the 403 says who tried.
 */
export type Verdict =
  | { readonly outcome: 'allowed'; readonly caller: Caller }
  | { readonly outcome: 'unauthorized'; readonly message: string }
  | { readonly outcome: 'forbidden'; readonly message: string; readonly caller?: Caller };

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
export class KubernetesReviewer {
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

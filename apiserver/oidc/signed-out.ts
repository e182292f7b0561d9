/**
 * Signed-out sessions, shared by every API server replica through one ConfigMap. A session
 * lives in a sealed cookie that any replica can open, so a sign-out that only one replica
 * remembers leaves the cookie working on the others. Each sign-out adds the session's id and
 * the time it would have ended anyway (`sid: ms`) to the ConfigMap; every replica watches that
 * one object and refuses the ids it lists. Entries past their end are dropped at each write,
 * so the object holds at most the sign-outs of one session lifetime, and never more than
 * MAX_SIGNED_OUT ids (about 60 bytes each, far inside the 1 MiB object limit). The ids are
 * random and open nothing by themselves: a ConfigMap, not a Secret.
 */
import { CoreV1Api, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { isAlreadyExists, isConflict, isNotFound } from '../../core/kube/errors.ts';
import { Informer, informerLog } from '../../core/kube/informer.ts';
import type { Logger } from '../../core/log.ts';

/** Most sign-outs kept at once: beyond it a sign-out holds on the replica that took it only. */
export const MAX_SIGNED_OUT = 10_000;
/** Writes lost to another replica's write, retried this often before giving up. */
const WRITE_ATTEMPTS = 5;

/** The entries still in force, plus one: what the ConfigMap's data becomes. Pure. */
export function withSignOut(
  data: Readonly<Record<string, string>> | undefined,
  sid: string,
  untilMs: number,
  nowMs: number,
): { data: Record<string, string>; full: boolean } {
  const kept = Object.fromEntries(Object.entries(data ?? {}).filter(([, until]) => Number(until) > nowMs));
  if (Object.keys(kept).length >= MAX_SIGNED_OUT && kept[sid] === undefined) return { data: kept, full: true };
  kept[sid] = String(untilMs);
  return { data: kept, full: false };
}

export interface SignedOutOptions {
  readonly kc: KubeConfig;
  readonly core: CoreV1Api;
  readonly namespace: string;
  readonly name: string;
  readonly logger: Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>;
  readonly now?: () => number;
}

export class SignedOutSessions {
  private readonly options: SignedOutOptions;
  private readonly informer: Informer<V1ConfigMap>;
  private readonly now: () => number;

  constructor(options: SignedOutOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
    const { kc, core, namespace, name, logger } = options;
    const fieldSelector = `metadata.name=${name}`;
    this.informer = new Informer<V1ConfigMap>({
      kc,
      path: `/api/v1/namespaces/${namespace}/configmaps`,
      list: () => core.listNamespacedConfigMap({ namespace, fieldSelector }),
      fieldSelector,
      log: informerLog(logger),
    });
  }

  start(): Promise<void> {
    return this.informer.start();
  }

  stop(): Promise<void> {
    return this.informer.stop();
  }

  /** Whether any replica signed the session out (and it has not ended anyway). */
  has(sid: string, nowMs: number): boolean {
    const until = this.informer.get(this.options.namespace, this.options.name)?.data?.[sid];
    return until !== undefined && Number(until) > nowMs;
  }

  /** Records a sign-out for every replica; throws when it could not (the caller still refuses it locally). */
  async add(sid: string, untilMs: number): Promise<void> {
    const { core, namespace, name, logger } = this.options;
    for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
      const current = await core.readNamespacedConfigMap({ name, namespace }).catch((error: unknown) => {
        if (isNotFound(error)) return undefined;
        throw error;
      });
      const next = withSignOut(current?.data, sid, untilMs, this.now());
      if (next.full) {
        logger.warn(
          { signedOut: MAX_SIGNED_OUT },
          `ConfigMap ${namespace}/${name} holds ${String(MAX_SIGNED_OUT)} sign-outs: this one holds on this replica only (shorten KUBEDAG_AUTH_OIDC_SESSION_TTL)`,
        );
        return;
      }
      try {
        // The resource version makes the write fail when another replica wrote in between: read again.
        if (current === undefined)
          await core.createNamespacedConfigMap({
            namespace,
            body: {
              metadata: { name, namespace, labels: { 'app.kubernetes.io/component': 'api-server' } },
              data: next.data,
            },
          });
        else await core.replaceNamespacedConfigMap({ name, namespace, body: { ...current, data: next.data } });
        return;
      } catch (error) {
        // Lost to another replica's replace, or its create: read again.
        if (!(isConflict(error) || isAlreadyExists(error)) || attempt === WRITE_ATTEMPTS) throw error;
      }
    }
  }
}

/**
 * The provider's sign-outs shared through the ConfigMap its settings name (none named: each
 * replica alone), listed before this returns so that no sign-out is missed once the server
 * answers. The caller stops the returned store when the server closes.
 */
/** What of the provider sharing reads and calls (an interface here keeps provider.ts the only importer). */
export interface SignOutSharing {
  readonly config: { readonly signOutsConfigMap?: string | undefined };
  shareSignOuts(store: SignedOutSessions, onError: (error: Error) => void): void;
}

export async function shareSignOuts(
  provider: SignOutSharing,
  kc: KubeConfig,
  namespace: string,
  logger: SignedOutOptions['logger'],
): Promise<SignedOutSessions | undefined> {
  const name = provider.config.signOutsConfigMap;
  if (name === undefined) return undefined;
  const store = new SignedOutSessions({ kc, core: kc.makeApiClient(CoreV1Api), namespace, name, logger });
  await store.start();
  provider.shareSignOuts(store, (error) => {
    logger.error(
      { err: error },
      `a sign-out could not be shared with the other replicas (ConfigMap ${namespace}/${name}): ${error.message}; it holds on this replica`,
    );
  });
  return store;
}

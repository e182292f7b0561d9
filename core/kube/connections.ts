/**
 * Connection reuse for @kubernetes/client-node. Its generated API clients build a new undici
 * Agent for every request (config.js, applySecurityAuthentication), so every call pays a TCP
 * connect, a TLS handshake and a new SecureContext: in the operator benchmark that was the
 * largest single CPU cost. Keeping the first Agent per (cluster, user) lets undici pool and
 * keep alive its connections. Authorization headers are still set per request, so rotating
 * tokens keep working; a rotated client certificate needs a restart, as with client-go.
 *
 * undici speaks HTTP/2 to the kube-apiserver, so every request and watch of a process shares
 * one connection. When that connection dies silently (a peer gone without a FIN), aborting a
 * request only resets its stream and the next one goes down the same dead connection;
 * `dropConnections` throws the kept Agents away so that the next request connects afresh.
 */
import type { KubeConfig } from '@kubernetes/client-node';

type Context = Parameters<KubeConfig['applySecurityAuthentication']>[0];
type Dispatcher = NonNullable<ReturnType<Context['getDispatcher']>>;

/** The kept Agents of each wrapped config; wrapping twice would close the first wrapper's. */
const kept = new WeakMap<KubeConfig, Map<string, Dispatcher>>();

export function reuseConnections(kc: KubeConfig): KubeConfig {
  if (kept.has(kc)) return kc;
  const shared = new Map<string, Dispatcher>();
  kept.set(kc, shared);
  const original = kc.applySecurityAuthentication.bind(kc);
  kc.applySecurityAuthentication = async (context: Context): Promise<void> => {
    await original(context);
    const made = context.getDispatcher();
    if (made === undefined) return;
    const key = JSON.stringify([
      kc.getCurrentCluster()?.name,
      kc.getCurrentCluster()?.server,
      kc.getCurrentUser()?.name,
    ]);
    const existing = shared.get(key);
    if (existing === undefined) {
      shared.set(key, made);
      return;
    }
    context.setDispatcher(existing);
    // The fresh Agent never opened a connection; closing it releases nothing but is tidy.
    void made.close().catch(() => undefined);
  };
  return kc;
}

/**
 * Destroys the connections kept for `kc`: requests under way on them fail (their callers
 * retry), and the next request opens a new connection. For a connection presumed dead.
 */
export function dropConnections(kc: KubeConfig): void {
  const shared = kept.get(kc);
  if (shared === undefined) return;
  const dispatchers = [...shared.values()];
  shared.clear();
  for (const dispatcher of dispatchers) void dispatcher.destroy().catch(() => undefined);
}

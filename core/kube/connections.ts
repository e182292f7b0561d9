/**
 * Connection reuse for @kubernetes/client-node. Its generated API clients build a new undici
 * Agent for every request (config.js, applySecurityAuthentication), so every call pays a TCP
 * connect, a TLS handshake and a new SecureContext: in the operator benchmark that was the
 * largest single CPU cost. Keeping the first Agent per (cluster, user) lets undici pool and
 * keep alive its connections. Authorization headers are still set per request, so rotating
 * tokens keep working; a rotated client certificate needs a restart, as with client-go.
 */
import type { KubeConfig } from '@kubernetes/client-node';

type Context = Parameters<KubeConfig['applySecurityAuthentication']>[0];
type Dispatcher = NonNullable<ReturnType<Context['getDispatcher']>>;

/** Wrapping twice would close the first wrapper's kept Agent: a config is wrapped once. */
const wrapped = new WeakSet<KubeConfig>();

export function reuseConnections(kc: KubeConfig): KubeConfig {
  if (wrapped.has(kc)) return kc;
  wrapped.add(kc);
  const original = kc.applySecurityAuthentication.bind(kc);
  const shared = new Map<string, Dispatcher>();
  kc.applySecurityAuthentication = async (context: Context): Promise<void> => {
    await original(context);
    const made = context.getDispatcher();
    if (made === undefined) return;
    const key = JSON.stringify([kc.getCurrentCluster()?.name, kc.getCurrentCluster()?.server, kc.getCurrentUser()?.name]);
    const kept = shared.get(key);
    if (kept === undefined) {
      shared.set(key, made);
      return;
    }
    context.setDispatcher(kept);
    // The fresh Agent never opened a connection; closing it releases nothing but is tidy.
    void made.close().catch(() => undefined);
  };
  return kc;
}

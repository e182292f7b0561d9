/**
 * Reaching an installed Kubedag from the e2e tests: clients for the cluster of
 * KUBEDAG_E2E_KUBECONFIG, and the API server's Service forwarded to a loopback port through the
 * Kubernetes API (as `kubectl port-forward` does), so no Ingress or NodePort is needed.
 */
import { createServer, type AddressInfo, type Server } from 'node:net';
import { CoreV1Api, CustomObjectsApi, KubeConfig, PortForward } from '@kubernetes/client-node';
import { inject } from 'vitest';

export function e2eClients(): { kc: KubeConfig; core: CoreV1Api; custom: CustomObjectsApi } {
  const kc = new KubeConfig();
  kc.loadFromFile(inject('e2e').kubeconfig);
  return { kc, core: kc.makeApiClient(CoreV1Api), custom: kc.makeApiClient(CustomObjectsApi) };
}

export interface Forwarded {
  readonly url: string;
  close(): Promise<void>;
}

/** A loopback port whose every connection is forwarded to `port` of a ready Pod behind the Service. */
export async function forwardService(kc: KubeConfig, namespace: string, service: string, port: number): Promise<Forwarded> {
  const forward = new PortForward(kc);
  const server: Server = createServer((socket) => {
    forward.portForwardService(namespace, service, [port], socket, null, socket).catch(() => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: local } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(local)}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** Polls `check` until it holds or `timeoutMs` passes. */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${String(timeoutMs / 1000)} s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

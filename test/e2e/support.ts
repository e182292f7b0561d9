/**
 * Reaching an installed Kubedag from the e2e tests: clients for the cluster of
 * KUBEDAG_E2E_KUBECONFIG, and the API server's Service forwarded to a loopback port through the
 * Kubernetes API (as `kubectl port-forward` does), so no Ingress or NodePort is needed.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
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
export async function forwardService(
  kc: KubeConfig,
  namespace: string,
  service: string,
  port: number,
): Promise<Forwarded> {
  const forward = new PortForward(kc);
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    forward.portForwardService(namespace, service, [port], socket, null, socket).catch(() => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: local } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(local)}`,
    // fetch keeps connections alive: the server's close would wait for each to time out.
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
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

/** A run's node (one step) as Dagu's API shows it. */
export interface ApiNode {
  readonly step: { readonly name: string };
  readonly statusLabel: string;
  readonly retryCount?: number;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly subRuns?: readonly { readonly dagRunId: string }[];
}

export interface ApiRun {
  readonly statusLabel: string;
  readonly nodes: readonly ApiNode[];
  readonly onCancel?: ApiNode | null;
}

/** Dagu's API of the installed release, through its forwarded Service. */
export class DaguApi {
  readonly url: string;

  constructor(url: string) {
    this.url = url;
  }

  call(method: string, path: string, body?: object): Promise<Response> {
    return fetch(`${this.url}/api/v2${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
  }

  /** Creates the DAG and starts one run of it; fails the test on any refusal. */
  async start(name: string, spec: string, dagRunId: string): Promise<void> {
    const created = await this.call('POST', '/dags', { name, spec });
    if (created.status !== 201)
      throw new Error(`POST /dags ${name}: ${String(created.status)} ${await created.text()}`);
    const started = await this.call('POST', `/dags/${name}/start`, { dagRunId });
    if (started.status !== 200) throw new Error(`start ${name}: ${String(started.status)} ${await started.text()}`);
  }

  async run(name: string, dagRunId: string): Promise<ApiRun | undefined> {
    const response = await this.call('GET', `/dag-runs/${name}/${dagRunId}`);
    return response.status === 200 ? ((await response.json()) as { dagRunDetails: ApiRun }).dagRunDetails : undefined;
  }

  /** The run once it has ended (any final label). */
  async finished(name: string, dagRunId: string, timeoutMs = 180_000): Promise<ApiRun> {
    let last: ApiRun | undefined;
    await until(
      `${name}/${dagRunId} to end`,
      async () => {
        last = await this.run(name, dagRunId);
        return last !== undefined && !['running', 'queued', 'not_started'].includes(last.statusLabel);
      },
      timeoutMs,
    );
    if (last === undefined) throw new Error(`${name}/${dagRunId} vanished`);
    return last;
  }

  /** Waits until the step runs. */
  async running(name: string, dagRunId: string, step: string, timeoutMs = 120_000): Promise<void> {
    await until(
      `${step} of ${name}/${dagRunId} to run`,
      async () => (await this.run(name, dagRunId))?.nodes.find((n) => n.step.name === step)?.statusLabel === 'running',
      timeoutMs,
    );
  }

  /** A step's log as the API serves it; any other answer than 200 throws with its body. */
  async log(name: string, dagRunId: string, step: string): Promise<string> {
    const response = await this.call('GET', `/dag-runs/${name}/${dagRunId}/steps/${step}/log`);
    if (response.status !== 200)
      throw new Error(`log of ${step} in ${name}/${dagRunId}: ${String(response.status)} ${await response.text()}`);
    return ((await response.json()) as { content?: string }).content ?? '';
  }

  /** Polls a step's log until it is `expected`; on timeout says what it last was. */
  async logBecomes(name: string, dagRunId: string, step: string, expected: string, timeoutMs = 60_000): Promise<void> {
    let last = '';
    await until(
      `the log of ${step} in ${name}/${dagRunId} to be ${JSON.stringify(expected)}`,
      async () => {
        last = await this.log(name, dagRunId, step).catch((error: unknown) => String(error));
        return last === expected;
      },
      timeoutMs,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; last: ${JSON.stringify(last)}`);
    });
  }
}

/** Each step's final label, by name. */
export const labels = (run: ApiRun): Record<string, string> =>
  Object.fromEntries(run.nodes.map((n) => [n.step.name, n.statusLabel]));

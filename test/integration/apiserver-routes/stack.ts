/**
 * The one stack the suites of apiserver-routes.test.ts share: a namespace, an API server reading
 * it and a contract client. No operator runs: where a case needs a run in some state, the test
 * writes that status through the status subresource, as the operator would. One stack for all
 * the suites because CI's integration stage pays for every start-up, and because later suites
 * read what earlier ones made (the listings count the runs the run operations left).
 */
import { afterAll, beforeAll } from 'vitest';
import type { Server } from '../../../apiserver/server.ts';
import type { KubedagClients } from '../../../core/kube/client.ts';
import { dagRunResourceName } from '../../../core/resources/names.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import { ContractClient, startApi } from '../api-support.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from '../support.ts';

export interface RoutesStack {
  readonly ns: string;
  readonly server: Server;
  /** Checks answers against the API server's `/api/v2` document. */
  readonly api: ContractClient;
  readonly kube: KubedagClients;
  /** A DAGRun resource as the Kubernetes API holds it. */
  readonly getRun: (name: string) => Promise<DagRunResource>;
  /** Writes a run's status as the operator would, and waits until the API server has seen it. */
  readonly setStatus: (dag: string, id: string, status: Record<string, unknown>) => Promise<void>;
}

/** The stack, read inside a test or hook: it is up from the file's beforeAll to its afterAll. */
export type RoutesStackRef = () => RoutesStack;

/**
 * Starts the stack before the file's tests and stops it after them; `use` adds what the suites
 * share (their DAGs) once it is up.
 */
export function withRoutesStack(prefix: string, use: (stack: RoutesStack) => Promise<void>): RoutesStackRef {
  const { core, kube } = clients();
  let made: Partial<{ ns: string; server: Server }> = {};
  let stack: RoutesStack | undefined;
  beforeAll(async () => {
    const ns = await createNamespace(core, prefix);
    made = { ns };
    const server = await startApi(ns);
    made = { ns, server };
    const api = new ContractClient(server.app);
    await api.load();
    stack = {
      ns,
      server,
      api,
      kube,
      getRun: (name) => kube.runs.get(ns, name),
      setStatus: async (dag, id, status) => {
        await kube.runs.mergePatchStatus(ns, dagRunResourceName(dag, id), { status });
        await waitFor(
          `the API to see ${id} in status ${String(status.status)}`,
          async () => {
            const res = await api.call('GET', `/api/v2/dag-runs/${dag}/${id}`);
            return (res.body as { dagRunDetails?: { status: number } }).dagRunDetails?.status === status.status;
          },
          10_000,
          50,
        );
      },
    };
    await use(stack);
  });
  afterAll(async () => {
    await made.server?.close();
    if (made.ns !== undefined) await deleteNamespace(core, made.ns);
  });
  return () => {
    if (stack === undefined) throw new Error('the routes stack is not up: read it inside a test or a hook');
    return stack;
  };
}

/** A finished run's status with the given nodes, at fixed times. */
export const finishedStatus = (
  status: number,
  label: string,
  nodes: Record<string, unknown>[],
): Record<string, unknown> => ({
  status,
  statusLabel: label,
  startedAt: '2026-11-22T10:00:00Z',
  finishedAt: '2026-11-22T10:00:05Z',
  nodes,
});

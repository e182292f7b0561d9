/**
 * The stack most API e2e files start: a namespace of their own, an operator watching it, an
 * API server reading it, and a contract client checking answers against one served document.
 * Made before the file's tests, torn down after them.
 */
import { afterAll, beforeAll } from 'vitest';
import type { Server } from '../../apiserver/server.ts';
import { ContractClient, startApi } from './api-support.ts';
import { startOperator, type RunningOperator } from './operator-support.ts';
import { clients, createNamespace, deleteNamespace } from './support.ts';

export interface ApiStack {
  readonly ns: string;
  readonly operator: RunningOperator;
  readonly server: Server;
  /** Checks answers against the stack's OpenAPI document. */
  readonly api: ContractClient;
}

/**
 * `use` gets the stack once it is up and may set up more (DAGs the tests share, a second
 * client); the stack goes down after the tests whatever `use` did.
 */
export function withApiStack(
  prefix: string,
  document: '/api/v2/openapi.json' | '/api/v1/openapi.json',
  use: (stack: ApiStack) => void | Promise<void>,
): void {
  const { core } = clients();
  let made: Partial<{ ns: string; operator: RunningOperator; server: Server }> = {};
  beforeAll(async () => {
    const ns = await createNamespace(core, prefix);
    made = { ns };
    const operator = await startOperator(ns);
    made = { ns, operator };
    const server = await startApi(ns, operator.url);
    made = { ns, operator, server };
    const api = new ContractClient(server.app);
    await api.load(document);
    await use({ ns, operator, server, api });
  });
  afterAll(async () => {
    await made.server?.close();
    await made.operator?.stop();
    if (made.ns !== undefined) await deleteNamespace(core, made.ns);
  });
}

/**
 * What every browser test of the web UI stands on: a namespace of its own, the operator, the
 * API server serving the built UI on a loopback port, and a contract client for making DAGs
 * and runs through the API. The browser is launched by each file once its data is made.
 */
import type { Browser } from 'playwright-core';
import type { Server } from '../../apiserver/server.ts';
import { ContractClient, startApi } from './api-support.ts';
import { serve } from './browser-support.ts';
import { startOperator, type RunningOperator } from './operator-support.ts';
import { clients, createNamespace, deleteNamespace } from './support.ts';

export interface UiStack {
  readonly ns: string;
  readonly operator: RunningOperator;
  readonly server: Server;
  readonly api: ContractClient;
  /** The UI's base URL. */
  readonly base: string;
}

export async function startUiStack(namespacePrefix: string): Promise<UiStack> {
  const ns = await createNamespace(clients().core, namespacePrefix);
  const operator = await startOperator(ns);
  const server = await startApi(ns, operator.url);
  const api = new ContractClient(server.app);
  await api.load();
  return { ns, operator, server, api, base: await serve(server) };
}

/** Closes the browser and stops what startUiStack started. */
export async function stopUiStack(
  stack: Pick<UiStack, 'ns' | 'operator' | 'server'>,
  browser: Browser | undefined,
): Promise<void> {
  await browser?.close();
  await stack.server.close();
  await stack.operator.stop();
  await deleteNamespace(clients().core, stack.ns);
}

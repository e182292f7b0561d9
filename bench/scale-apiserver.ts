/**
 * The API server of the scale benchmark, in a process of its own (as it is deployed) so that
 * its RSS is its own: `node bench/scale-apiserver.ts <kubeconfig> <operator-url>` started by
 * startBenchApiServer. It tells its parent, over IPC, its port and how long its informer
 * caches took to sync; the parent reads its memory from /proc.
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseApiConfig } from '../apiserver/config.ts';
import { startServer } from '../apiserver/server.ts';
import { signalAndWait, waitFor } from '../cluster/processes.ts';

export interface BenchApiServer {
  readonly base: string;
  readonly process: ChildProcess;
  /** From fork to caches synced and listening (includes loading its sources). */
  readonly readyMs: number;
  /** startServer (its informers' list and sync) alone, timed inside the process. */
  readonly syncMs: number;
  stop(): Promise<void>;
}

export async function startBenchApiServer(kubeconfig: string, operatorUrl: string, extraArgs: readonly string[] = []): Promise<BenchApiServer> {
  const started = performance.now();
  const child = fork(import.meta.filename, [kubeconfig, operatorUrl, ...extraArgs], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const ready = await new Promise<{ port: number; syncMs: number }>((resolve, reject) => {
    child.once('message', (message: { port: number; syncMs: number }) => {
      resolve(message);
    });
    child.once('exit', (code) => {
      reject(new Error(`the API server exited (${String(code)})`));
    });
  });
  return {
    base: `http://127.0.0.1:${String(ready.port)}/api/v2`,
    process: child,
    readyMs: performance.now() - started,
    syncMs: ready.syncMs,
    stop: () => signalAndWait(child),
  };
}

async function serve(kubeconfig: string, operatorUrl: string, extraArgs: readonly string[]): Promise<void> {
  const config = parseApiConfig(['--namespace=default', `--kubeconfig=${kubeconfig}`, `--operator-url=${operatorUrl}`, '--lease-namespace=default', ...extraArgs], {});
  const started = performance.now();
  const server = await startServer({ config, version: 'bench' });
  await waitFor('the API server cache', () => Promise.resolve(server.cache.synced()), 600_000, 50);
  const syncMs = performance.now() - started;
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  process.once('SIGTERM', () => {
    void server.close().finally(() => process.exit(0));
  });
  process.send?.({ port: (server.app.server.address() as AddressInfo).port, syncMs });
}

if (process.argv[1] === import.meta.filename) await serve(process.argv[2] ?? '', process.argv[3] ?? '', process.argv.slice(4));

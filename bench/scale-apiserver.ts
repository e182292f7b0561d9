/**
 * The API server of the scale benchmark as the chart runs it: its bundle (build/bundles.ts)
 * in a process of its own, with the chart's Node.js flags and malloc cap, so that its RSS is
 * the deployed one. It listens once its informers have listed (apiserver/server.ts), so the time
 * to its first answer is its start and sync.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { freePort, signalAndWait, waitFor } from '../cluster/processes.ts';
import { chartLaunch } from '../build/bundles.ts';

export interface BenchApiServer {
  readonly base: string;
  readonly process: ChildProcess;
  /** From spawn to caches synced and answering. */
  readonly readyMs: number;
  stop(): Promise<void>;
}

export async function startBenchApiServer(
  bundle: string,
  kubeconfig: string,
  operatorUrl: string,
  extraArgs: readonly string[] = [],
): Promise<BenchApiServer> {
  const launch = chartLaunch('apiServer');
  const port = await freePort();
  const args = [
    '--namespace=default',
    `--kubeconfig=${kubeconfig}`,
    `--operator-url=${operatorUrl}`,
    '--lease-namespace=default',
    '--host=127.0.0.1',
    `--port=${String(port)}`,
    ...extraArgs,
  ];
  const started = performance.now();
  const child = spawn(process.execPath, [...launch.flags, bundle, ...args], {
    env: { ...process.env, ...launch.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr.on('data', (chunk: Buffer) => void process.stderr.write(`[api-server] ${chunk.toString()}`));
  const base = `http://127.0.0.1:${String(port)}/api/v2`;
  let exited: number | null | undefined;
  child.once('exit', (code) => {
    exited = code;
  });
  await waitFor(
    'the API server to answer',
    async () => {
      if (exited !== undefined) throw new Error(`the API server exited (${String(exited)})`);
      // Any answer: it listens only once synced (health may say no operator leads yet).
      return fetch(`${base}/health`).then(
        () => true,
        () => false,
      );
    },
    600_000,
    50,
  );
  return { base, process: child, readyMs: performance.now() - started, stop: () => signalAndWait(child) };
}

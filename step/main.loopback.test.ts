/**
 * kubedag-step as a process, stopped by a signal: SIGTERM and SIGINT always, and the step's
 * signalOnStop from the spec, whatever it is. The http step here holds a request open on a
 * local server, so a stop is seen from both ends. ssh-stop.test.ts does the same for a remote
 * command, which must get exactly the step's signal.
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXECUTOR_ENV, type ExecutorSpec } from '../core/runner/spec.ts';

let server: Server;
let url = '';
/** Requests as they arrive; each resolves when its client goes away. */
const requests: { readonly closed: Promise<void> }[] = [];
let arrived: () => void = () => undefined;

beforeAll(async () => {
  // Never answers: the request is open until the runner stops.
  server = createServer((request: IncomingMessage) => {
    requests.push({ closed: new Promise((done) => request.socket.once('close', done)) });
    arrived();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

/** Starts the runner on an http step that waits for the server, and waits for its request. */
async function startRunner(spec: ExecutorSpec): Promise<{
  readonly kill: (signal: NodeJS.Signals) => void;
  readonly done: Promise<{ code: number | null; signal: string | null; err: string }>;
  readonly request: { readonly closed: Promise<void> };
}> {
  const seen = new Promise<void>((done) => {
    arrived = done;
  });
  const child = spawn(process.execPath, [resolve(import.meta.dirname, 'main.ts'), 'executor'], {
    env: { ...process.env, [EXECUTOR_ENV]: JSON.stringify(spec) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const err: Buffer[] = [];
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const done = new Promise<{ code: number | null; signal: string | null; err: string }>((finish) => {
    child.on('close', (code, signal) => {
      finish({ code, signal, err: Buffer.concat(err).toString('utf8') });
    });
  });
  await Promise.race([
    seen,
    done.then((end) => {
      throw new Error(`the runner ended before its request: ${JSON.stringify(end)}`);
    }),
  ]);
  const request = requests.at(-1);
  if (request === undefined) throw new Error('no request');
  return { kill: (signal) => child.kill(signal), done, request };
}

const httpStep = (signalOnStop?: string): ExecutorSpec => ({
  type: 'http',
  command: `GET ${url}`,
  config: {},
  ...(signalOnStop === undefined ? {} : { stop: { signal: signalOnStop, graceMs: 2_000 } }),
});

describe('kubedag-step executor, stopped by a signal', () => {
  it.each([
    {
      name: "the step's signalOnStop SIGUSR1, without starting Node's inspector",
      signalOnStop: 'SIGUSR1',
      send: 'SIGUSR1',
      want: { code: 138, err: 'kubedag-step: stopped\n' },
    },
    {
      name: "the step's signalOnStop SIGHUP",
      signalOnStop: 'SIGHUP',
      send: 'SIGHUP',
      want: { code: 129, err: 'kubedag-step: stopped\n' },
    },
    {
      name: "the step's signalOnStop SIGQUIT, written as Dagu allows (QUIT)",
      signalOnStop: 'QUIT',
      send: 'SIGQUIT',
      want: { code: 131, err: 'kubedag-step: stopped\n' },
    },
    {
      name: 'SIGTERM, the stop of its Pod, whatever signalOnStop says',
      signalOnStop: 'SIGUSR2',
      send: 'SIGTERM',
      want: { code: 143, err: 'kubedag-step: stopped\n' },
    },
    {
      name: 'SIGINT, as at a terminal',
      signalOnStop: undefined,
      send: 'SIGINT',
      want: { code: 130, err: 'kubedag-step: interrupted\n' },
    },
  ] as const)('$name', async ({ signalOnStop, send, want }) => {
    const runner = await startRunner(httpStep(signalOnStop));
    try {
      runner.kill(send);
      // The runner ends by itself and says so (a signal it does not handle leaves code null;
      // one that starts the inspector leaves it running, until the timeout here).
      const timeout = new Promise((done) =>
        setTimeout(() => {
          done('still running after 8 s');
        }, 8_000),
      );
      expect(await Promise.race([runner.done, timeout])).toEqual({ ...want, signal: null });
      await runner.request.closed;
    } finally {
      runner.kill('SIGKILL');
    }
  });
});

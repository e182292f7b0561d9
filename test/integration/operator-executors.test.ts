/**
 * Steps of the step runner's executors (issue 13), end to end on the local control plane: the
 * operator runs `kubedag-step` in the step Pod, which the node agent finds on its PATH
 * (cluster/step-runner.ts). The HTTP server runs here, on loopback, which the node agent's
 * Pods (host processes) reach.
 */
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp, type LoopbackHttp } from '../servers/http.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';
import {
  finishedRun,
  givenDag,
  runningStep,
  startOperator,
  stepLog,
  stepStates,
  stopRun,
  whenRun,
  type RunningOperator,
} from './operator-support.ts';

const { core } = clients();

let ns = '';
let operator: RunningOperator;
let http: LoopbackHttp;
let base = '';
/** Requests to /slow, and whether each was closed by the client before it was answered. */
const slow: { request: IncomingMessage; closed: Promise<void> }[] = [];

beforeAll(async () => {
  http = await serveHttp((request, response) => {
    if (request.url === '/greeting?lang=en') {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ greeting: 'hello', from: request.headers['x-caller'] }));
    } else if (request.url === '/slow') {
      slow.push({
        request,
        closed: new Promise((resolve) => {
          response.once('close', () => {
            resolve();
          });
        }),
      });
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('no such page');
    }
  });
  base = http.base;
  ns = await createNamespace(core, 'executors');
  operator = await startOperator(ns);
});

afterAll(async () => {
  await operator.stop();
  await http.close();
  await deleteNamespace(core, ns);
});

describe('http and jq steps', () => {
  it('an http response body becomes the output a jq step filters and a later command reads', async () => {
    await givenDag(
      ns,
      'fetch',
      `
env:
  - CALLER: kubedag-test
steps:
  - name: fetch
    executor:
      type: http
      config:
        silent: true
        query: {lang: en}
        headers: {X-Caller: "\${CALLER}"}
    command: GET ${base}/greeting
    output: RESPONSE
  - name: pick
    depends: fetch
    executor: {type: jq, config: {raw: true}}
    command: .greeting + " " + .from
    script: "\${RESPONSE}"
    output: GREETING
  - name: say
    depends: pick
    command: echo "said $GREETING"
`,
    );
    await whenRun(ns, 'fetch-1', 'fetch');
    const done = await finishedRun(ns, 'fetch-1');
    expect([done.status?.statusLabel, done.status?.error, stepStates(done)]).toEqual([
      'succeeded',
      undefined,
      { fetch: 'succeeded', pick: 'succeeded', say: 'succeeded' },
    ]);
    expect(done.status?.nodes?.[0]?.outputs).toEqual({ RESPONSE: '{"greeting":"hello","from":"kubedag-test"}' });
    expect(await stepLog(operator, done, 'say')).toBe('said hello kubedag-test\n');
  });

  it("a jq step with only its input pretty-prints it, as in Dagu's documentation", async () => {
    await givenDag(
      ns,
      'pretty',
      'steps:\n  - name: format\n    executor: jq\n    script: |\n      {"id": "sample", "10": {"b": 42}}',
    );
    await whenRun(ns, 'pretty-1', 'pretty');
    const done = await finishedRun(ns, 'pretty-1');
    expect([done.status?.statusLabel, done.status?.error, stepStates(done)]).toEqual([
      'succeeded',
      undefined,
      { format: 'succeeded' },
    ]);
    expect(await stepLog(operator, done, 'format')).toBe(
      '{\n    "10": {\n        "b": 42\n    },\n    "id": "sample"\n}\n',
    );
  });

  it('a status outside 2xx fails the step, with the status line, headers and body in its log', async () => {
    await givenDag(ns, 'missing', `steps:\n  - {name: get, executor: http, command: GET ${base}/missing}`);
    await whenRun(ns, 'missing-1', 'missing');
    const done = await finishedRun(ns, 'missing-1');
    expect([done.status?.statusLabel, stepStates(done)]).toEqual(['failed', { get: 'failed' }]);
    const stdout = await stepLog(operator, done, 'get');
    expect(stdout?.split('\n')[0]).toBe('404 Not Found');
    expect(stdout).toContain('Content-Type: text/plain\r\n');
    expect(stdout).toMatch(/no such page\n$/);
    expect(await stepLog(operator, done, 'get', 'stderr')).toBe('http status code not 2xx: 404\n');
  });

  it('a stop aborts a request the server has not answered', async () => {
    await givenDag(ns, 'waiting', `steps:\n  - {name: wait, executor: http, command: GET ${base}/slow}`);
    await whenRun(ns, 'waiting-1', 'waiting');
    await runningStep(ns, 'waiting-1', 'wait');
    await waitFor('the request to reach the server', () => Promise.resolve(slow.length === 1), 30_000, 50);
    await stopRun(ns, 'waiting-1');
    const done = await finishedRun(ns, 'waiting-1');
    expect([done.status?.statusLabel, stepStates(done)]).toEqual(['canceled', { wait: 'canceled' }]);
    // The runner closed its connection: the server learns the client is gone.
    await expect(slow[0]?.closed).resolves.toBeUndefined();
  });
});

/** wait.http against a real server on loopback: it polls until the status it waits for, and a stop ends it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import { serveHttp, type LoopbackHttp } from '../../test/servers/http.ts';
import { captureIO } from '../../test/step-io.ts';
import { runWait } from './wait.ts';

let server: LoopbackHttp;
const seen: { method: string; url: string; probe: string | undefined; body: string }[] = [];
/** The health endpoint answers 503 until `ready` is set. */
let ready = false;

beforeAll(async () => {
  server = await serveHttp((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      seen.push({
        method: request.method ?? '',
        url: request.url ?? '',
        probe: request.headers['x-probe'] as string | undefined,
        body,
      });
      if (request.url === '/slow') return; // never answered
      response.writeHead(request.url === '/health' && ready ? 204 : 503).end();
    });
  });
});

afterAll(async () => {
  await server.close();
});

const spec = (config: Record<string, unknown>): ExecutorSpec => ({ type: 'wait', command: 'http', config });

describe('wait.http', () => {
  it('polls until the server answers the status it waits for, with its method, headers and body', async () => {
    seen.length = 0;
    const waiting = runWait(
      spec({
        url: `${server.base}/health`,
        method: 'post',
        status: 204,
        headers: { 'X-Probe': '${WHO}' },
        body: 'ping',
        poll_interval: '30ms',
      }),
      captureIO({ env: { WHO: 'kubedag' } }),
    );
    setTimeout(() => (ready = true), 150);
    await expect(waiting).resolves.toBe(0);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen[0]).toEqual({ method: 'POST', url: '/health', probe: 'kubedag', body: 'ping' });
  });

  it('takes a request that times out as not yet, and ends on a stop', async () => {
    seen.length = 0;
    const io = captureIO();
    const waiting = runWait(spec({ url: `${server.base}/slow`, request_timeout: '50ms', poll_interval: '20ms' }), io);
    await new Promise((resolve) => setTimeout(resolve, 300));
    io.stop();
    await expect(waiting).rejects.toThrow();
    expect(seen.length).toBeGreaterThan(1);
  });

  it('takes a refused connection as not yet', async () => {
    const closed = await serveHttp(() => {});
    const url = `${closed.base}/health`;
    await closed.close();
    const io = captureIO();
    const waiting = runWait(spec({ url, poll_interval: '20ms' }), io);
    const outcome = await Promise.race([
      waiting.then(() => 'over'),
      new Promise((r) =>
        setTimeout(() => {
          r('waiting');
        }, 150),
      ),
    ]);
    io.stop();
    await waiting.catch(() => undefined);
    expect(outcome).toBe('waiting');
  });
});

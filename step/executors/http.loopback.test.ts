/**
 * The http executor against real servers on loopback: node:http, and node:https with a
 * self-signed certificate made here, so that skipTLSVerify has something to skip.
 */
import { webcrypto } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { deflateSync, gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import { httpRequest, runHttp } from './http.ts';
import { captureIO } from '../../test/step-io.ts';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

let seen: Seen[] = [];

function handle(request: IncomingMessage, response: ServerResponse): void {
  let body = '';
  request.on('data', (chunk: Buffer) => (body += chunk.toString()));
  request.on('end', () => {
    seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
    if (request.url === '/slow') return; // never answered: only a timeout or a stop ends it
    response.sendDate = false;
    if (request.url === '/moved') {
      response.writeHead(302, { location: '/' }).end();
      return;
    }
    // Compressed only for a client that says it takes gzip, as most servers do.
    if (request.url === '/maybe-gzip' && (request.headers['accept-encoding'] ?? '').includes('gzip')) {
      const zipped = gzipSync('plain words');
      response.writeHead(200, { 'content-encoding': 'gzip', 'content-length': String(zipped.length) }).end(zipped);
      return;
    }
    if (request.url === '/deflate') {
      response.writeHead(200, { 'content-encoding': 'deflate' }).end(deflateSync('plain words'));
      return;
    }
    if (request.url === '/bad-gzip') {
      response.writeHead(200, { 'content-encoding': 'gzip' }).end('not gzip at all');
      return;
    }
    if (request.url === '/teapot') {
      response
        .writeHead(418, { 'content-type': 'text/plain', 'x-b': 'two', 'content-length': '15' })
        .end('short and stout');
      return;
    }
    // A chunked body: Go's client takes Transfer-Encoding out of the headers, and so do we.
    response
      .writeHead(200, {
        'content-type': 'application/json',
        'x-multi': ['a', 'b'],
        date: 'Mon, 01 Jan 2024 00:00:00 GMT',
      })
      .end(JSON.stringify({ ok: true }));
  });
}

async function selfSigned(): Promise<{ cert: string; key: string }> {
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=127.0.0.1',
    notBefore: new Date(Date.now() - 3600_000),
    notAfter: new Date(Date.now() + 3600_000),
    signingAlgorithm: algorithm,
    keys,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'ip', value: '127.0.0.1' }])],
  });
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return {
    cert: cert.toString('pem'),
    key: `-----BEGIN PRIVATE KEY-----\n${der.toString('base64')}\n-----END PRIVATE KEY-----\n`,
  };
}

let plain: Server;
let tls: Server;
let http = '';
let https = '';
const listen = async (server: Server): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

beforeAll(async () => {
  plain = createServer(handle);
  tls = createTlsServer(await selfSigned(), handle);
  http = `http://127.0.0.1:${String(await listen(plain))}`;
  https = `https://127.0.0.1:${String(await listen(tls))}`;
});

afterAll(async () => {
  for (const server of [plain, tls]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

interface Outcome {
  readonly code: number | string;
  readonly stdout: string;
  readonly stderr: string;
}

async function run(
  spec: Partial<ExecutorSpec> & { command: string },
  env: Record<string, string> = {},
  signal = new AbortController().signal,
): Promise<Outcome> {
  seen = [];
  const io = captureIO({ env, signal });
  const code = await runHttp({ type: 'http', config: {}, ...spec }, io).catch(
    (error: unknown) => `error: ${(error as Error).message}`,
  );
  return { code, stdout: io.out(), stderr: io.err() };
}

describe('the http executor', () => {
  it('sends each method with the body, headers and query it is given, variables expanded', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'PURGE']) {
      const done = await run(
        {
          command: `${method.toLowerCase()} ${http}/items?page=1`,
          config: {
            headers: { 'X-Token': '${TOKEN}' },
            query: { b: '2', a: '${NAME}' },
            body: '{"n": "${NAME}"}',
            silent: true,
          },
        },
        { TOKEN: 't-1', NAME: 'x y' },
      );
      expect(done).toEqual({ code: 0, stdout: '{"ok":true}', stderr: '' });
      expect(seen.map((s) => [s.method, s.url, s.headers['x-token'], s.body])).toEqual([
        [method, '/items?page=1&a=x+y&b=2', 't-1', '{"n": "x y"}'],
      ]);
    }
  });

  it('prints the status line and the headers as Go writes them before the body unless silent', async () => {
    const done = await run({ command: `GET ${http}/` });
    expect(done.code).toBe(0);
    const [status, ...rest] = done.stdout.split('\n');
    expect(status).toBe('200 OK');
    // Canonical names, sorted; one line per value; CRLF endings; the body follows directly.
    expect(rest.join('\n')).toBe(
      'Connection: keep-alive\r\nContent-Type: application/json\r\nDate: Mon, 01 Jan 2024 00:00:00 GMT\r\nKeep-Alive: timeout=5\r\nX-Multi: a\r\nX-Multi: b\r\n{"ok":true}',
    );
  });

  it('fails on a status outside 2xx and prints the head even when silent', async () => {
    const done = await run({ command: `GET ${http}/teapot`, config: { silent: 'true' } });
    expect(done.code).toBe(1);
    expect(done.stdout).toBe(
      "418 I'm a Teapot\nConnection: keep-alive\r\nContent-Length: 15\r\nContent-Type: text/plain\r\nKeep-Alive: timeout=5\r\nX-B: two\r\nshort and stout",
    );
    expect(done.stderr).toBe('http status code not 2xx: 418\n');
  });

  it('writes status, headers and the parsed body as one JSON document with json', async () => {
    const done = await run({ command: `GET ${http}/`, config: { json: true, silent: true } });
    expect(done.code).toBe(0);
    expect(done.stdout).toBe('{\n "status_code": 0,\n "headers": null,\n "body": {\n  "ok": true\n }\n}');
  });

  it('reads its settings from the script as JSON when there is one', async () => {
    const done = await run({ command: `POST ${http}/`, script: '{"body": "from script", "silent": true}' });
    expect([done.code, seen[0]?.body]).toEqual([0, 'from script']);
  });

  it('gives up after the timeout in seconds', async () => {
    const started = Date.now();
    const done = await run({ command: `GET ${http}/slow`, config: { timeout: 1 } });
    expect(done.code).toBe(`error: GET ${http}/slow: no complete response within the timeout of 1 s`);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('ends the request when the step is stopped', async () => {
    const stop = new AbortController();
    const pending = run({ command: `GET ${http}/slow` }, {}, stop.signal);
    await new Promise((resolve) => setTimeout(resolve, 300));
    stop.abort(new Error('stopped by SIGTERM'));
    expect((await pending).code).toBe('error: stopped by SIGTERM');
  });

  it('refuses a self-signed certificate unless skipTLSVerify, then talks to it', async () => {
    const refused = await run({ command: `GET ${https}/`, config: { silent: true } });
    expect(refused.code).toMatch(/^error: GET https:\/\/127\.0\.0\.1:\d+\/: .*self[- ]signed certificate/);
    const skipped = await run({ command: `GET ${https}/`, config: { silent: true, skipTLSVerify: true } });
    expect(skipped).toEqual({ code: 0, stdout: '{"ok":true}', stderr: '' });
  });
});

describe("what Go's client does unasked, against a real server", () => {
  it('asks for gzip and prints the unzipped body without the headers about the compression', async () => {
    const done = await run({ command: `GET ${http}/maybe-gzip` });
    expect(seen[0]?.headers['accept-encoding']).toBe('gzip');
    expect(done).toEqual({
      code: 0,
      stdout: '200 OK\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nplain words',
      stderr: '',
    });
  });

  it('still unzips a gzip body when the step set Accept-Encoding itself, and keeps its headers', async () => {
    const done = await run({ command: `GET ${http}/maybe-gzip`, config: { headers: { 'accept-encoding': 'gzip' } } });
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(
      /^200 OK\nConnection: keep-alive\r\nContent-Encoding: gzip\r\nContent-Length: \d+\r\nKeep-Alive: timeout=5\r\nplain words$/,
    );
  });

  it('passes a deflate body through as sent, as Go does', async () => {
    const done = await run({
      command: `GET ${http}/deflate`,
      config: { silent: true, headers: { 'Accept-Encoding': 'deflate' } },
    });
    expect([done.code, done.stdout]).toEqual([0, deflateSync('plain words').toString('utf8')]);
  });

  it('fails the step on a body that says gzip but is not', async () => {
    const done = await run({ command: `GET ${http}/bad-gzip` });
    expect(done.code).toMatch(
      /^error: GET http:\/\/127\.0\.0\.1:\d+\/bad-gzip: the response body is not valid gzip \(/,
    );
  });

  it('sends a User-Agent, and the Content-Type Go sniffs from the body for methods that carry one', async () => {
    const cases = [
      { method: 'POST', body: '{"n": 1}', headers: {}, want: ['kubedag-step', 'text/plain; charset=utf-8', undefined] },
      {
        method: 'DELETE',
        body: '<?xml version="1.0"?><a/>',
        headers: {},
        want: ['kubedag-step', 'text/xml; charset=utf-8', undefined],
      },
      {
        method: 'PUT',
        body: '{"n": 1}',
        headers: { 'content-type': 'application/json', 'User-Agent': 'mine' },
        want: ['mine', 'application/json', 'application/json'],
      },
      { method: 'GET', body: '', headers: {}, want: ['kubedag-step', undefined, undefined] },
    ];
    for (const { method, body, headers, want } of cases) {
      await run({ command: `${method} ${http}/`, config: { body, headers, silent: true } });
      expect([seen[0]?.headers['user-agent'], seen[0]?.headers['content-type'], seen[0]?.headers.accept]).toEqual(want);
    }
  });

  it('follows a redirect, a POST becoming a GET as in Go', async () => {
    const done = await run({ command: `POST ${http}/moved`, config: { body: 'data', silent: true } });
    expect(done).toEqual({ code: 0, stdout: '{"ok":true}', stderr: '' });
    expect(seen.map((s) => [s.method, s.url, s.body])).toEqual([
      ['POST', '/moved', 'data'],
      ['GET', '/', ''],
    ]);
  });
});

describe('reading the step into a request', () => {
  it.each([
    {
      name: 'a command without a URL is refused',
      spec: { command: 'GET' },
      want: 'command: must be "<METHOD> <URL>", not "GET"',
    },
    {
      name: 'a method that is not an HTTP token is refused',
      spec: { command: 'GE(T http://x' },
      want: 'command: not an HTTP method: "GE(T"',
    },
    {
      name: 'a URL of another scheme is refused',
      spec: { command: 'GET ftp://x/' },
      want: 'command: only http and https URLs, not "ftp:"',
    },
    {
      name: 'a timeout that is not a number is refused',
      spec: { command: 'GET http://x', config: { timeout: 'soon' } },
      want: 'timeout: must be a whole number, not "soon"',
    },
    {
      name: 'headers that are not a mapping are refused',
      spec: { command: 'GET http://x', config: { headers: ['a'] } },
      want: 'headers: must be a mapping of names to values, not ["a"]',
    },
    {
      name: 'a body beside form or files is refused, as Dagu refuses it',
      spec: { command: 'POST http://x', config: { body: 'a', files: { f: 'x' } } },
      want: 'body: cannot be combined with form or files',
    },
    {
      name: 'a format other than json or text is refused, not read as text',
      spec: { command: 'GET http://x', config: { format: 'yaml' } },
      want: 'format: must be json or text, not "yaml"',
    },
    {
      name: 'a script that is not a JSON object is refused',
      spec: { command: 'GET http://x', script: 'silent: true' },
      want: 'script: the http executor reads its settings from script as a JSON object',
    },
  ])('$name', ({ spec, want }) => {
    expect(() => httpRequest({ type: 'http', config: {}, ...spec }, {}, '/work')).toThrow(want);
  });

  it('takes text spellings of numbers and booleans, as Dagu does', () => {
    const req = httpRequest(
      { type: 'http', command: 'GET http://x', config: { timeout: '5', silent: 'true', skipTLSVerify: 1 } },
      {},
      '/work',
    );
    expect([req.timeout, req.silent, req.skipTLSVerify]).toEqual([5, true, true]);
  });
});

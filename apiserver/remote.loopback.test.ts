import { createServer } from 'node:net';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import Type from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from './app.ts';
import type { RemoteNode } from './config-remote-nodes.ts';
import { registerRemoteNodes } from './remote.ts';

interface Echo {
  readonly method: string;
  readonly url: string;
  readonly body: unknown;
  readonly authorization: string | null;
  readonly accept: string | null;
  readonly contentType: string | null;
}

/** The other node: echoes what reached it, and answers the ways a remote can go wrong. */
function remoteServer(hits: string[]): FastifyInstance {
  const remote = Fastify({ forceCloseConnections: true });
  const echo = (request: {
    method: string;
    url: string;
    body: unknown;
    headers: Record<string, string | string[] | undefined>;
  }): Echo => {
    hits.push(`${request.method} ${request.url}`);
    const header = (name: string): string | null => (request.headers[name] as string | undefined) ?? null;
    return {
      method: request.method,
      url: request.url,
      body: request.body ?? null,
      authorization: header('authorization'),
      accept: header('accept'),
      contentType: header('content-type'),
    };
  };
  remote.get('/api/v2/dags', (request) => echo(request));
  remote.post('/api/v2/dags', (request, reply) => reply.code(201).send(echo(request)));
  remote.delete('/api/v2/dags/:fileName', (request) => echo(request));
  remote
    .withTypeProvider<TypeBoxTypeProvider>()
    .get(
      '/api/v2/dags/:fileName',
      { schema: { params: Type.Object({ fileName: Type.String() }) } },
      async (request, reply) => {
        const { fileName } = request.params;
        if (fileName === 'broken') return reply.code(500).send({ code: 'internal_error', message: 'remote fault' });
        if (fileName === 'missing')
          return reply.code(404).send({ code: 'not_found', message: 'DAG "missing" not found', details: { fileName } });
        if (fileName === 'proxied')
          return reply.code(502).type('text/html').send('<html><body>Bad Gateway</body></html>');
        if (fileName === 'moved')
          return reply.code(301).header('location', 'https://elsewhere/api/v2/dags/moved').send();
        if (fileName === 'slow') await new Promise((resolve) => setTimeout(resolve, 1_000));
        return echo(request);
      },
    );
  remote.get('/api/v2/metrics', (_request, reply) =>
    reply.type('text/plain; version=0.0.4').send('# HELP remote_up 1\nremote_up 1\n'),
  );
  return remote;
}

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const hits: string[] = [];
let remote: FastifyInstance;
let local: FastifyInstance;

/**
 * This node with its real contract routes and no cluster: whatever it serves itself is a 503,
 * and its POST /dags body schema refuses a name that is not text, so a relayed body provably
 * skips local validation.
 */
function localApp(nodes: readonly RemoteNode[]): FastifyInstance {
  // Stands in for the auth hook: the caller must be admitted here before anything is relayed.
  const auth = (app: FastifyInstance): void => {
    app.addHook('onRequest', async (request, reply) => {
      if (request.headers.authorization !== 'Bearer caller')
        return reply.code(401).send({ code: 'unauthorized', message: 'who are you' });
    });
  };
  return buildApp({
    version: 't',
    clock: () => new Date(),
    health: () => Promise.resolve(undefined),
    plugins: [
      auth,
      (app) => {
        registerRemoteNodes(app, nodes);
      },
    ],
  });
}

beforeAll(async () => {
  remote = remoteServer(hits);
  const base = await remote.listen({ port: 0, host: '127.0.0.1' });
  const down = await closedPort();
  local = localApp([
    { name: 'peer', baseUrl: base, auth: { basic: { username: 'ops', password: 's3cret' } } },
    { name: 'tokened', baseUrl: `${base}/`, auth: { token: 'node-token' } },
    { name: 'open', baseUrl: base },
    { name: 'sluggish', baseUrl: base, timeoutMs: 100 },
    { name: 'down', baseUrl: `http://127.0.0.1:${down}` },
    { name: 'nowhere', baseUrl: 'http://no-such-host.invalid' },
  ]);
  await local.ready();
});

afterAll(async () => {
  await local.close();
  await remote.close();
});

const caller = { authorization: 'Bearer caller' };

async function call(
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  options: { body?: object; headers?: Record<string, string> } = {},
): Promise<{ status: number; type: string | undefined; body: string }> {
  const res = await local.inject({
    method,
    url,
    headers: { ...caller, ...options.headers },
    ...(options.body === undefined ? {} : { payload: options.body }),
  });
  return { status: res.statusCode, type: res.headers['content-type'], body: res.body };
}

describe('a request without a remote node', () => {
  it.each([
    { name: 'no remoteNode', url: '/api/v2/dags' },
    { name: 'an empty remoteNode', url: '/api/v2/dags?remoteNode=' },
    { name: 'remoteNode=local', url: '/api/v2/dags?remoteNode=local' },
  ])('is served here when it has $name', async ({ url }) => {
    const before = hits.length;
    const res = await call('GET', url);
    expect([res.status, (JSON.parse(res.body) as { code: string }).code]).toEqual([503, 'service_unavailable']);
    expect(hits.length).toBe(before);
  });

  it('is validated here, so a body of the wrong type is refused', async () => {
    const res = await call('POST', '/api/v2/dags', { body: { name: 5 } });
    expect([res.status, (JSON.parse(res.body) as { code: string }).code]).toEqual([400, 'bad_request']);
  });
});

describe('a request naming a node', () => {
  it.each([
    {
      name: 'an unknown node is a bad request',
      url: '/api/v2/dags?remoteNode=ghost',
      message: 'unknown remote node "ghost"',
    },
    {
      name: 'a node given twice is a bad request',
      url: '/api/v2/dags?remoteNode=peer&remoteNode=open',
      message: 'remoteNode must be given once',
    },
  ])('$name', async ({ url, message }) => {
    const res = await call('GET', url);
    expect([res.status, JSON.parse(res.body)]).toEqual([400, { code: 'bad_request', message }]);
  });

  it('is authenticated here before anything is relayed', async () => {
    const before = hits.length;
    const res = await local.inject({ method: 'GET', url: '/api/v2/dags?remoteNode=peer' });
    expect(res.statusCode).toBe(401);
    expect(hits.length).toBe(before);
  });

  it('keeps its local 404 when the route does not exist here', async () => {
    const before = hits.length;
    const res = await call('GET', '/api/v2/nope?remoteNode=peer');
    expect([res.status, (JSON.parse(res.body) as { code: string }).code]).toEqual([404, 'not_found']);
    expect(hits.length).toBe(before);
  });
});

describe('a relayed request', () => {
  it.each([
    { name: 'remoteNode alone is dropped', url: '/api/v2/dags?remoteNode=peer', remoteUrl: '/api/v2/dags' },
    {
      name: 'remoteNode first is dropped and the rest kept byte for byte',
      url: '/api/v2/dags?remoteNode=peer&name=a%20b&tag=x+y',
      remoteUrl: '/api/v2/dags?name=a%20b&tag=x+y',
    },
    {
      name: 'remoteNode last is dropped',
      url: '/api/v2/dags?page=2&remoteNode=peer',
      remoteUrl: '/api/v2/dags?page=2',
    },
    {
      name: 'an encoded remoteNode key is dropped too',
      url: '/api/v2/dags?remote%4Eode=peer&page=2',
      remoteUrl: '/api/v2/dags?page=2',
    },
    { name: 'a path parameter is kept', url: '/api/v2/dags/my-dag?remoteNode=peer', remoteUrl: '/api/v2/dags/my-dag' },
  ])('reaches the same path: $name', async ({ url, remoteUrl }) => {
    const res = await call('GET', url);
    expect(res.status).toBe(200);
    expect((JSON.parse(res.body) as Echo).url).toBe(remoteUrl);
  });

  it.each([
    { name: 'basic credentials', node: 'peer', authorization: `Basic ${Buffer.from('ops:s3cret').toString('base64')}` },
    { name: 'a bearer token', node: 'tokened', authorization: 'Bearer node-token' },
    { name: "no credentials, and never the caller's", node: 'open', authorization: null },
  ])("carries the node's own $name", async ({ node, authorization }) => {
    const res = await call('GET', `/api/v2/dags?remoteNode=${node}`);
    expect((JSON.parse(res.body) as Echo).authorization).toBe(authorization);
  });

  it('carries the method and the body, even one the local schema would reject', async () => {
    const body = { name: 5, extra: true };
    const res = await call('POST', '/api/v2/dags?remoteNode=peer', { body, headers: { accept: 'application/json' } });
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body)).toMatchObject({
      method: 'POST',
      url: '/api/v2/dags',
      body,
      accept: 'application/json',
      contentType: 'application/json',
    });
  });

  it('carries a method without a body as it came', async () => {
    const res = await call('DELETE', '/api/v2/dags/old?remoteNode=peer');
    expect([res.status, JSON.parse(res.body)]).toEqual([
      200,
      expect.objectContaining({ method: 'DELETE', url: '/api/v2/dags/old', body: null, contentType: null }),
    ]);
  });

  it('returns a text/plain answer as-is', async () => {
    const res = await call('GET', '/api/v2/metrics?remoteNode=peer');
    expect([res.status, res.type, res.body]).toEqual([
      200,
      'text/plain; version=0.0.4',
      '# HELP remote_up 1\nremote_up 1\n',
    ]);
  });
});

describe('a remote that fails', () => {
  it.each([
    {
      name: 'a 500 with an error object is relayed with its status',
      path: 'broken',
      status: 500,
      body: { code: 'internal_error', message: 'remote fault' },
    },
    {
      name: 'a 404 with an error object is relayed with its details',
      path: 'missing',
      status: 404,
      body: { code: 'not_found', message: 'DAG "missing" not found', details: { fileName: 'missing' } },
    },
  ])('$name', async ({ path, status, body }) => {
    const res = await call('GET', `/api/v2/dags/${path}?remoteNode=peer`);
    expect([res.status, res.type, JSON.parse(res.body)]).toEqual([status, 'application/json; charset=utf-8', body]);
  });

  it.each([
    {
      name: 'an HTML error page is a bad gateway',
      path: 'proxied',
      status: 502,
      message: 'remote node "peer" answered HTTP 502 without an API error',
    },
    {
      name: 'a redirect is a bad gateway, not followed',
      path: 'moved',
      status: 301,
      message: 'remote node "peer" answered a redirect (HTTP 301); check its baseUrl',
    },
  ])('$name', async ({ path, status, message }) => {
    const res = await call('GET', `/api/v2/dags/${path}?remoteNode=peer`);
    expect([res.status, JSON.parse(res.body)]).toEqual([502, { code: 'bad_gateway', message, details: { status } }]);
  });

  it.each([
    { name: 'a closed port', node: 'down', reason: /ECONNREFUSED/ },
    { name: 'a host that does not resolve', node: 'nowhere', reason: /ENOTFOUND|EAI_AGAIN/ },
    {
      name: "no answer within the node's timeout",
      node: 'sluggish',
      path: '/slow',
      reason: /no answer within 100 ms$/,
    },
  ])('is unreachable at $name', async ({ node, path, reason }) => {
    const res = await call('GET', `/api/v2/dags${path ?? ''}?remoteNode=${node}`);
    const body = JSON.parse(res.body) as { code: string; message: string };
    expect([res.status, body.code]).toEqual([502, 'remote_node_error']);
    expect(body.message).toMatch(new RegExp(`^remote node "${node}" is unreachable: `));
    expect(body.message).toMatch(reason);
  });
});

describe('the OpenAPI document', () => {
  it('names remoteNode on every operation, as the name of a configured node', async () => {
    const document = JSON.parse((await call('GET', '/api/v2/openapi.json')).body) as {
      paths: Record<
        string,
        Record<string, { parameters?: { name: string; in: string; description?: string; schema: { type: string } }[] }>
      >;
    };
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        at: `${method} ${path}`,
        parameter: operation.parameters?.find((p) => p.in === 'query' && p.name === 'remoteNode'),
      })),
    );
    expect(operations.length).toBeGreaterThan(40);
    expect(
      operations
        .filter(
          (o) =>
            o.parameter?.schema.type !== 'string' ||
            o.parameter.description?.includes('remote node configured on this server') !== true,
        )
        .map((o) => o.at),
    ).toEqual([]);
  });
});

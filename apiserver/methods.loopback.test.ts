import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { buildApp } from './app.ts';
import { allowHeader, pathMethods } from './methods.ts';
import { registerRemoteNodes } from './remote.ts';
import { builtUi, testApp } from '../test/apiserver-app.ts';

describe('the Allow header', () => {
  it.each([
    { name: 'GET brings HEAD', methods: ['GET'], want: 'GET, HEAD' },
    { name: 'methods come in a fixed order', methods: ['DELETE', 'POST', 'GET'], want: 'GET, HEAD, POST, DELETE' },
    { name: 'a path without GET has no HEAD', methods: ['POST'], want: 'POST' },
    { name: 'PUT and PATCH keep their places', methods: ['PATCH', 'PUT'], want: 'PUT, PATCH' },
  ])('$name', ({ methods, want }) => {
    expect(allowHeader(new Set(methods))).toBe(want);
  });
});

describe("a path's methods", () => {
  const routes = [
    { url: '/api/v2/dags', method: 'GET' as const, config: { permission: 'read' as const } },
    { url: '/api/v2/dags', method: 'POST' as const, config: { permission: 'write' as const } },
    { url: '/api/v2/dags', method: 'HEAD' as const, config: { permission: 'read' as const } },
    { url: '/api/v2/health', method: 'GET' as const, config: { permission: 'public' as const } },
    { url: '/api/*', method: 'GET' as const, config: { permission: 'read' as const } },
    { url: '/assets/*', method: ['GET', 'HEAD'] as ('GET' | 'HEAD')[], config: { permission: 'public' as const } },
  ];
  const found = pathMethods(routes, '/api/v2');

  it('gathers every method registered at one path', () => {
    expect(found.find((p) => p.url === '/api/v2/dags')?.methods).toEqual(new Set(['GET', 'POST', 'HEAD']));
  });

  it('leaves out catch-alls and paths outside the API', () => {
    expect(found.map((p) => p.url).sort()).toEqual(['/api/v2/dags', '/api/v2/health']);
  });

  it.each([
    { name: 'a path whose routes are all public is public', url: '/api/v2/health', want: 'public' },
    { name: 'a path with any guarded route asks for read', url: '/api/v2/dags', want: 'read' },
  ])('$name', ({ url, want }) => {
    expect(found.find((p) => p.url === url)?.permission).toBe(want);
  });
});

const TOKEN = { authorization: 'Bearer secret' };
let remote: Server;
let remoteHits = 0;

function app(): ReturnType<typeof buildApp> {
  const { port } = remote.address() as AddressInfo;
  return testApp({
    auth: { tokens: [{ token: 'secret' }] },
    uiDir: builtUi(),
    plugins: [
      (a) => {
        registerRemoteNodes(a, [{ name: 'peer', baseUrl: `http://127.0.0.1:${String(port)}` }]);
      },
    ],
  });
}

beforeAll(async () => {
  // A remote node that would answer anything it is asked: nothing may reach it here.
  remote = createServer((_request, response) => {
    remoteHits += 1;
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await new Promise((resolve) => remote.close(resolve));
});

describe('a method a known path does not have', () => {
  type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'TRACE' | 'QUERY';
  it.each<{ name: string; method: Method; url: string; allow: string; body?: string }>([
    { name: 'DELETE on the DAG list', method: 'DELETE', url: '/api/v2/dags', allow: 'GET, HEAD, POST' },
    { name: 'PUT on a DAG', method: 'PUT', url: '/api/v2/dags/etl', allow: 'GET, HEAD, DELETE' },
    { name: 'GET on a start', method: 'GET', url: '/api/v2/dags/etl/start', allow: 'POST' },
    {
      name: 'HEAD on a start (fastify serves HEAD beside GET only)',
      method: 'HEAD',
      url: '/api/v2/dags/etl/start',
      allow: 'POST',
    },
    { name: 'OPTIONS, which is not served', method: 'OPTIONS', url: '/api/v2/dags', allow: 'GET, HEAD, POST' },
    { name: 'TRACE, which is not served', method: 'TRACE', url: '/api/v2/dags', allow: 'GET, HEAD, POST' },
    {
      name: 'QUERY without the Content-Type it must carry',
      method: 'QUERY',
      url: '/api/v2/dag-runs/etl/r1',
      allow: 'GET, HEAD',
    },
    {
      name: 'DELETE on a fixed path is not the {fileName} route',
      method: 'DELETE',
      url: '/api/v2/dags/search',
      allow: 'GET, HEAD',
    },
    { name: 'POST on health', method: 'POST', url: '/api/v2/health', allow: 'GET, HEAD' },
    {
      name: 'PATCH on a sub run under its old spelling',
      method: 'PATCH',
      url: '/api/v2/dag-runs/etl/r1/children/c1',
      allow: 'GET, HEAD',
    },
    {
      name: 'a query string, remoteNode included, changes nothing',
      method: 'DELETE',
      url: '/api/v2/dags?remoteNode=peer',
      allow: 'GET, HEAD, POST',
    },
    {
      name: 'a malformed body is not read',
      method: 'PUT',
      url: '/api/v2/dags',
      allow: 'GET, HEAD, POST',
      body: '{"x": ',
    },
  ])('answers 405 with Allow and the error object: $name', async ({ method, url, allow, body }) => {
    const hits = remoteHits;
    const res = await app().inject({
      method,
      url,
      headers: { ...TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body }),
    });
    expect([res.statusCode, res.headers.allow]).toEqual([405, allow]);
    if (method !== 'HEAD')
      expect(res.json()).toEqual({
        code: 'method_not_allowed',
        message: expect.stringContaining(allow) as string,
        details: { allow: allow.split(', ') },
      });
    expect(remoteHits).toBe(hits);
  });

  it('asks for credentials first on a guarded path, as an unknown path does', async () => {
    const res = await app().inject({ method: 'DELETE', url: '/api/v2/dags' });
    expect([res.statusCode, res.json<{ code: string }>().code]).toEqual([401, 'unauthorized']);
  });

  it('needs no credentials on a public path', async () => {
    const res = await app().inject({ method: 'POST', url: '/api/v2/health' });
    expect(res.statusCode).toBe(405);
  });
});

describe('paths that are not known', () => {
  it.each([
    { name: 'an unknown API path with any method', method: 'POST' as const, url: '/api/v2/nope' },
    { name: 'an unknown path under a known one', method: 'DELETE' as const, url: '/api/v2/dags/etl/nope' },
    { name: 'a path outside the API', method: 'POST' as const, url: '/somewhere' },
  ])('still answer 404: $name', async ({ method, url }) => {
    const res = await app().inject({ method, url, headers: TOKEN });
    expect([res.statusCode, res.json<{ code: string }>().code]).toEqual([404, 'not_found']);
  });
});

describe('methods a path has', () => {
  it('are served as before: GET on the DAG list reaches its route (503 here: no cluster)', async () => {
    const res = await app().inject({ method: 'GET', url: '/api/v2/dags', headers: TOKEN });
    expect(res.statusCode).toBe(503);
  });
});

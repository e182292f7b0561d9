import type { RouteOptions } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../audit-record.ts';
import { memoryAudit } from '../audit.ts';
import { routeThrows } from '../../test/route-throws.ts';
import { testApp } from '../../test/apiserver-app.ts';
import { NOT_SERVED } from './not-served-table.ts';
import { pathParams, REASONS } from './not-served.ts';

const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const ALICE = { authorization: basic('alice', 'pw') };
const toOpenApi = (path: string): string => path.replace(/:(\w+)/g, '{$1}');

type Document = { paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[] }>> };
let v1: Document;
let v2: Document;
const routes: RouteOptions[] = [];
const records: AuditRecord[] = [];
const app = testApp({ auth: { basic: [{ username: 'alice', password: 'pw' }] }, audit: memoryAudit(records), routes });

beforeAll(async () => {
  v1 = (await app.inject({ url: '/api/v1/openapi.json' })).json();
  v2 = (await app.inject({ url: '/api/v2/openapi.json' })).json();
}, 120_000);

describe('/api/v1 beside /api/v2', () => {
  it('documents every v2 operation under /api/v1 too, and only its own paths in each document', () => {
    const v2Operations = Object.entries(v2.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m} ${path.replace('/api/v2', '/api/v1')}`),
    );
    const v1Operations = new Set(
      Object.entries(v1.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m} ${path}`)),
    );
    expect(v2Operations.filter((op) => !v1Operations.has(op))).toEqual([]);
    expect(Object.keys(v1.paths).every((path) => path.startsWith('/api/v1/'))).toBe(true);
    expect(Object.keys(v2.paths).some((path) => path.startsWith('/api/v1/'))).toBe(false);
  });

  it('lists every operation it does not serve with its 501, its path parameters and its credentials', () => {
    const missing = NOT_SERVED.filter(
      ([method, path]) => v1.paths[`/api/v1${toOpenApi(path)}`]?.[method.toLowerCase()]?.responses['501'] === undefined,
    );
    expect(missing).toEqual([]);
    const users = v1.paths['/api/v1/users/{userId}']?.get;
    expect([users?.security, JSON.stringify(users)]).toEqual([
      [{ basicAuth: [] }],
      expect.stringContaining('"name":"userId","required":true'),
    ]);
    expect(pathParams('/a/:x/b/:y')).toEqual(['x', 'y']);
    expect(new Set(NOT_SERVED.map(([, , , group]) => group)).size).toBeLessThanOrEqual(Object.keys(REASONS).length);
  });

  it('documents the v1 shapes of the shared answers', () => {
    const details = JSON.stringify(v1.paths['/api/v1/dag-runs/{name}/{dagRunId}']?.get?.responses['200']);
    expect(details).toContain('"onAbort"');
    expect(details).toContain('"commands"');
    expect(details).not.toContain('"onCancel"');
    expect(JSON.stringify(v2.paths['/api/v2/dag-runs/{name}/{dagRunId}']?.get?.responses['200'])).toContain(
      '"onCancel"',
    );
    const runs = JSON.stringify(v1.paths['/api/v1/dag-runs']?.get);
    // The paged list's own query keeps what `remoteNode` may be (found by schemathesis).
    expect([
      runs.includes('"nextCursor"'),
      runs.includes('"name":"remoteNode"'),
      runs.includes('"enum":["","local"]'),
    ]).toEqual([true, true, true]);
  });

  it('authenticates v1 as v2: 401 without credentials, then the route answers', async () => {
    for (const url of ['/api/v1/users', '/api/v1/dags', '/api/v1/events/stream'])
      expect((await app.inject({ url })).statusCode).toBe(401);
    const refused = await app.inject({ url: '/api/v1/users/u1', headers: ALICE });
    expect([refused.statusCode, refused.json()]).toEqual([
      501,
      {
        code: 'not_implemented',
        message: expect.stringContaining('GET /users/{userId} is not served by Kubedag') as unknown,
        details: { operationId: 'getUser', group: 'users' },
      },
    ]);
    expect((await app.inject({ url: '/api/v1/dags', headers: ALICE })).json()).toMatchObject({
      code: 'service_unavailable',
    });
    expect((await app.inject({ url: '/api/v1/health' })).statusCode).toBe(200);
  });

  it('audits a v1 write as a v2 write, under its own path', async () => {
    records.length = 0;
    await app.inject({ method: 'POST', url: '/api/v1/dags/etl/start', headers: ALICE, payload: {} });
    await app.inject({ method: 'DELETE', url: '/api/v1/dag-runs/etl/r1' });
    expect(records).toMatchObject([
      {
        identity: { user: 'alice' },
        operation: 'POST /api/v1/dags/{fileName}/start',
        target: { fileName: 'etl' },
        outcome: { status: 503 },
      },
      {
        identity: { user: 'anonymous' },
        operation: 'DELETE /api/v1/dag-runs/{name}/{dagRunId}',
        outcome: { status: 401 },
      },
    ]);
  });

  it('answers a bad request and a method a path lacks in the error shape', async () => {
    const bad = await app.inject({ url: '/api/v1/dag-runs?limit=0', headers: ALICE });
    expect([bad.statusCode, bad.json<{ code: string }>().code]).toEqual([400, 'bad_request']);
    // The HEAD beside a paged list is the paged list's too: its query is v1's.
    const head = await app.inject({ method: 'HEAD', url: '/api/v1/dag-runs?cursor=!', headers: ALICE });
    expect(head.statusCode).toBe(400);
    const wrong = await app.inject({ method: 'PUT', url: '/api/v1/dag-runs', headers: ALICE });
    expect([wrong.statusCode, wrong.json<{ code: string }>().code]).toEqual([405, 'method_not_allowed']);
    expect(routes.filter((r) => r.url.startsWith('/api/v1/') && r.config?.permission === undefined)).toEqual([]);
  });

  it("takes every run status of v1's filter, waiting (7) and rejected (8) included, and refuses 9", async () => {
    // Dagu 2.x's dashboard asks for all of them at once; the test app has no cluster, so a
    // query that passes validation answers 503.
    const all = [0, 1, 2, 3, 4, 5, 6, 7, 8].map((s) => `status=${String(s)}`).join('&');
    for (const url of [`/api/v1/dag-runs?${all}`, '/api/v1/dag-runs/greet?status=7', '/api/v1/dag-runs?status=8']) {
      const answer = await app.inject({ url, headers: ALICE });
      expect([url, answer.statusCode]).toEqual([url, 503]);
    }
    const nine = await app.inject({ url: '/api/v1/dag-runs?status=9', headers: ALICE });
    expect([nine.statusCode, nine.json<{ code: string }>().code]).toEqual([400, 'bad_request']);
  });

  it("documents every error v1's own handlers can throw, with its status", () => {
    const found = routeThrows(['apiserver/v1/runs.ts', 'apiserver/v1/lists.ts']);
    const missing = found.flatMap(({ route, throws }) => {
      const [method = '', url = ''] = route.split(' ');
      const responses = v1.paths[`/api/v1${toOpenApi(url)}`]?.[method.toLowerCase()]?.responses ?? {};
      // Each error status documents the codes it stands for on that route (responses.ts).
      return [...throws]
        .filter((t) => {
          const [code = '', status = ''] = t.split('@');
          return !JSON.stringify(responses[status] ?? '').includes(code);
        })
        .map((t) => `${route} throws ${t}`);
    });
    expect(found.length).toBeGreaterThan(5);
    expect(missing).toEqual([]);
  }, 120_000);
});

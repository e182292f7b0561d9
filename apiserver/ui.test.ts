import type { RouteOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { buildApp } from './app.ts';
import { builtUi, testApp } from '../test/apiserver-app.ts';

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const BASIC = { authorization: `Basic ${Buffer.from('u:p').toString('base64')}` };

function app(options: { auth?: boolean; routes?: RouteOptions[] } = {}): ReturnType<typeof buildApp> {
  return testApp({
    uiDir: builtUi(),
    ...(options.routes === undefined ? {} : { routes: options.routes }),
    ...(options.auth === true ? { auth: { basic: [{ username: 'u', password: 'p' }] } } : {}),
  });
}

describe('the web UI served by the API server', () => {
  it('serves index.html at / uncached, with a content security policy', async () => {
    const res = await app().inject({ url: '/', headers: HTML });
    expect([res.statusCode, res.headers['content-type'], res.headers['cache-control'], res.body]).toEqual([
      200,
      'text/html; charset=utf-8',
      'no-cache',
      '<!doctype html><div id="root"></div>',
    ]);
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
  });

  it('answers a deep link that asks for HTML with index.html', async () => {
    const res = await app().inject({ url: '/dags/nightly?tab=spec', headers: HTML });
    expect([res.statusCode, res.body]).toEqual([200, '<!doctype html><div id="root"></div>']);
  });

  it('answers a path that does not ask for HTML with the contract 404', async () => {
    const res = await app().inject({ url: '/dags/nightly', headers: { accept: 'application/json' } });
    expect([res.statusCode, res.json()]).toEqual([404, { code: 'not_found', message: 'no route GET /dags/nightly' }]);
  });

  it('serves assets with a year-long immutable cache', async () => {
    const res = await app().inject({ url: '/assets/index-Ab12.js' });
    expect([res.statusCode, res.headers['content-type'], res.headers['cache-control'], res.body]).toEqual([
      200,
      'application/javascript; charset=utf-8',
      'public, max-age=31536000, immutable',
      'console.log(1)',
    ]);
  });

  it('answers a missing asset with the contract 404, even when HTML is asked for', async () => {
    const res = await app().inject({ url: '/assets/index-Gone.js', headers: HTML });
    expect([res.statusCode, res.json<{ code: string }>().code]).toEqual([404, 'not_found']);
  });

  it('leaves /api/v2 as it was: routes answer JSON and unknown API paths 404, even when HTML is asked for', async () => {
    const server = app();
    const health = await server.inject({ url: '/api/v2/health', headers: HTML });
    expect([health.statusCode, health.json<{ status: string }>().status]).toEqual([200, 'healthy']);
    const unknown = await server.inject({ url: '/api/v2/nothing-here', headers: HTML });
    expect([unknown.statusCode, unknown.json()]).toEqual([
      404,
      { code: 'not_found', message: 'no route GET /api/v2/nothing-here' },
    ]);
    expect((await server.inject({ url: '/api', headers: HTML })).statusCode).toBe(404);
  });

  it('adds nothing to the OpenAPI document', async () => {
    const plain = testApp();
    const paths = async (a: ReturnType<typeof buildApp>): Promise<string[]> =>
      Object.keys((await a.inject({ url: '/api/v2/openapi.json' })).json<{ paths: object }>().paths);
    expect(await paths(app())).toEqual(await paths(plain));
  });

  it('serves the app without credentials when auth is on, and still guards the API', async () => {
    const server = app({ auth: true });
    const codes = await Promise.all(
      ['/', '/dags/nightly', '/assets/index-Ab12.js', '/api/v2/dags'].map(
        async (url) => (await server.inject({ url, headers: HTML })).statusCode,
      ),
    );
    expect(codes).toEqual([200, 200, 200, 401]);
  });

  it('answers an unknown API path 401 without credentials and 404 with them when auth is on', async () => {
    const server = app({ auth: true });
    const without = await server.inject({ url: '/api/v2/nothing-here', headers: HTML });
    const withCredentials = await server.inject({ url: '/api/v2/nothing-here', headers: { ...HTML, ...BASIC } });
    expect([without.statusCode, withCredentials.statusCode]).toEqual([401, 404]);
  });

  it('declares a permission on every route it adds', async () => {
    const routes: RouteOptions[] = [];
    await app({ routes }).ready();
    const ui = routes.filter((r) => !r.url.startsWith('/api/v2/') && !r.url.startsWith('/api/v1/'));
    expect(ui.map((r) => `${String(r.method)} ${r.url} ${String(r.config?.permission)}`).sort()).toEqual([
      'GET /* public',
      'GET /api/* read',
      'HEAD /* public',
      'HEAD /api/* read',
      'HEAD,GET /assets/* public',
    ]);
  });
});

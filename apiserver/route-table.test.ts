import type { RouteOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { buildApp } from './app.ts';
import { testApp } from '../test/apiserver-app.ts';

/** The app with Basic auth on, and every route it registers, as fastify saw them. */
function appWithRoutes(): { app: ReturnType<typeof buildApp>; routes: RouteOptions[] } {
  const routes: RouteOptions[] = [];
  const app = testApp({ auth: { basic: [{ username: 'u', password: 'p' }] }, routes });
  return { app, routes };
}

/** A concrete URL for a route path: every parameter filled with a valid value. */
const concrete = (url: string): string => url.replace(/:[A-Za-z]+/g, 'x1');

describe('the route table', () => {
  it('declares a permission on every route', async () => {
    const { app, routes } = appWithRoutes();
    await app.ready();
    const undeclared = routes
      .filter((r) => r.method !== 'HEAD' && r.config?.permission === undefined)
      .map((r) => `${String(r.method)} ${r.url}`);
    expect(undeclared).toEqual([]);
    expect(routes.length).toBeGreaterThan(40);
  });

  it('answers 401 with the error shape on every non-public route when no credentials are sent', async () => {
    const { app, routes } = appWithRoutes();
    await app.ready();
    const guarded = routes.filter((r) => r.config?.permission !== 'public' && r.method !== 'HEAD');
    const answers = await Promise.all(
      guarded.map(async (r) => {
        const method = String(Array.isArray(r.method) ? r.method[0] : r.method) as
          'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
        const res = await app.inject({
          method,
          url: concrete(r.url),
          ...(method === 'GET' || method === 'DELETE' ? {} : { payload: {} }),
        });
        return `${method} ${r.url} ${String(res.statusCode)} ${res.json<{ code: string }>().code}`;
      }),
    );
    expect(answers.filter((a) => !a.endsWith(' 401 unauthorized'))).toEqual([]);
  });

  it('answers only statuses the served document declares for the route, whoever asks and however badly', async () => {
    // A small body limit, so that an oversized body is cheap to send.
    const app = testApp({
      auth: { tokens: [{ token: 'all' }, { token: 'reader', permissions: ['read'] }] },
      bodyLimit: 256,
    });
    const doc = (await app.inject({ method: 'GET', url: '/api/v2/openapi.json' })).json<{
      paths: Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown }>>;
    }>();
    const json = { 'content-type': 'application/json' };
    const undeclared: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const url = path.replace(/\{[A-Za-z]+\}/g, 'x1');
        const attempts: { name: string; headers: Record<string, string>; body?: string }[] = [
          { name: 'no credentials', headers: {} },
          { name: 'a token that may only read', headers: { authorization: 'Bearer reader' } },
          {
            name: 'a token that may do anything (no cluster behind)',
            headers: { authorization: 'Bearer all' },
            ...(operation.requestBody === undefined ? {} : { body: '{}' }),
          },
          { name: 'a bad path parameter', headers: { authorization: 'Bearer all' } },
          ...(operation.requestBody === undefined
            ? []
            : [
                { name: 'malformed JSON', headers: { authorization: 'Bearer all', ...json }, body: '{"a": ' },
                {
                  name: 'a body over the limit',
                  headers: { authorization: 'Bearer all', ...json },
                  body: JSON.stringify({ pad: 'x'.repeat(300) }),
                },
                { name: 'a body of the wrong type', headers: { authorization: 'Bearer all', ...json }, body: '[1]' },
              ]),
        ];
        for (const attempt of attempts) {
          const target = attempt.name === 'a bad path parameter' ? path.replace(/\{[A-Za-z]+\}/g, 'bad.name%20x') : url;
          const res = await app.inject({
            method: method.toUpperCase() as 'GET',
            url: target,
            headers: { ...(attempt.body === undefined ? {} : json), ...attempt.headers },
            ...(attempt.body === undefined ? {} : { body: attempt.body }),
          });
          if (operation.responses[String(res.statusCode)] === undefined)
            undeclared.push(`${method.toUpperCase()} ${path} with ${attempt.name}: ${String(res.statusCode)}`);
        }
      }
    }
    expect(undeclared).toEqual([]);
  });

  it('serves health, metrics and the OpenAPI document without credentials', async () => {
    const { app } = appWithRoutes();
    const codes = await Promise.all(
      ['/api/v2/health', '/api/v2/metrics', '/api/v2/openapi.json'].map(
        async (url) => (await app.inject({ method: 'GET', url })).statusCode,
      ),
    );
    expect(codes).toEqual([200, 200, 200]);
  });
});

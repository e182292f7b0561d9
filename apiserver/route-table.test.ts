import type { RouteOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { buildApp } from './app.ts';
import { registerAuth } from './auth.ts';

/** The app with Basic auth on, and every route it registers, as fastify saw them. */
function appWithRoutes(): { app: ReturnType<typeof buildApp>; routes: RouteOptions[] } {
  const routes: RouteOptions[] = [];
  const app = buildApp({
    version: 't',
    clock: () => new Date(),
    health: () => Promise.resolve(undefined),
    plugins: [
      (a) => {
        a.addHook('onRoute', (route) => {
          routes.push(route);
        });
        registerAuth(a, { basic: [{ username: 'u', password: 'p' }] });
      },
    ],
  });
  return { app, routes };
}

/** A concrete URL for a route path: every parameter filled with a valid value. */
const concrete = (url: string): string => url.replace(/:[A-Za-z]+/g, 'x1');

describe('the route table', () => {
  it('declares a permission on every route', async () => {
    const { app, routes } = appWithRoutes();
    await app.ready();
    const undeclared = routes.filter((r) => r.method !== 'HEAD' && r.config?.permission === undefined).map((r) => `${String(r.method)} ${r.url}`);
    expect(undeclared).toEqual([]);
    expect(routes.length).toBeGreaterThan(40);
  });

  it('answers 401 with the error shape on every non-public route when no credentials are sent', async () => {
    const { app, routes } = appWithRoutes();
    await app.ready();
    const guarded = routes.filter((r) => r.config?.permission !== 'public' && r.method !== 'HEAD');
    const answers = await Promise.all(
      guarded.map(async (r) => {
        const method = String(Array.isArray(r.method) ? r.method[0] : r.method) as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
        const res = await app.inject({ method, url: concrete(r.url), ...(method === 'GET' || method === 'DELETE' ? {} : { payload: {} }) });
        return `${method} ${r.url} ${String(res.statusCode)} ${res.json<{ code: string }>().code}`;
      }),
    );
    expect(answers.filter((a) => !a.endsWith(' 401 unauthorized'))).toEqual([]);
  });

  it('serves health, metrics and the OpenAPI document without credentials', async () => {
    const { app } = appWithRoutes();
    const codes = await Promise.all(['/api/v2/health', '/api/v2/metrics', '/api/v2/openapi.json'].map(async (url) => (await app.inject({ method: 'GET', url })).statusCode));
    expect(codes).toEqual([200, 200, 200]);
  });
});

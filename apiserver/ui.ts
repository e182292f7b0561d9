/**
 * The web UI (ui/, built by `make ui`) at `/`, beside the API. Content-hashed files under
 * `/assets/` are cached for a year; any other GET outside `/api/` that asks for HTML gets
 * index.html, uncached, so every page of the app is a deep link and a new build is picked up
 * at the next load. The app's files are public like the OpenAPI document: they hold no data,
 * and the app must load before it can ask anyone to sign in (docs/decisions/2026-11-24-web-ui.md).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginCallback, FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';

export interface UiOptions {
  /** The built UI: index.html and assets/. */
  readonly root: string;
}

/** Whether `root` holds a built UI. */
export function uiBuilt(root: string): boolean {
  return existsSync(join(root, 'index.html'));
}

/**
 * Only this origin's scripts, styles and connections. Inline styles are allowed for the code
 * editor to come (CodeMirror writes its own <style> elements); inline scripts never.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Browsers navigating name text/html in Accept; fetch, curl and image requests do not. */
function wantsHtml(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').split(',').some((range) => {
    const [type = '', ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    return type === 'text/html' && !parameters.some((p) => /^q=0(\.0*)?$/.test(p));
  });
}

const notFound = (request: FastifyRequest): ApiError =>
  new ApiError('not_found', `no route ${request.method} ${request.url.split('?')[0] ?? ''}`);

export const uiRoutes: FastifyPluginCallback<UiOptions> = (app, { root }, done) => {
  // Every route here is public unless it says otherwise, @fastify/static's own included.
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, permission: route.config?.permission ?? 'public' };
  });
  void app.register(fastifyStatic, {
    root: join(root, 'assets'),
    prefix: '/assets/',
    index: false,
    maxAge: '365d',
    immutable: true,
  });

  app.get('/*', { schema: { hide: true } }, (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    if (path === '/api' || path.startsWith('/api/') || !wantsHtml(request)) throw notFound(request);
    void reply
      .header('cache-control', 'no-cache')
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('x-content-type-options', 'nosniff');
    return reply.sendFile('index.html', root, { cacheControl: false });
  });

  // An unknown API path answers as it did before the UI: 401 without credentials when auth is
  // on (saying nothing about which paths exist), else 404. The catch-all above is public, so
  // without this it would take such paths and answer 404 to anyone.
  app.get('/api/*', { config: { permission: 'read' }, schema: { hide: true } }, (request) => {
    throw notFound(request);
  });
  done();
};

/** System routes: health, metrics and the OpenAPI document; none needs credentials. */
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { AppDeps } from '../app.ts';
import { S } from '../schemas.ts';

export function systemRoutes(app: FastifyInstance, deps: AppDeps, metrics: Registry): void {
  const started = deps.clock().getTime();
  const open = { permission: 'public' as const };
  app.get('/health', { config: open, schema: { tags: ['system'], response: { 200: S.health, 503: S.health } } }, async (_request, reply) => {
    const now = deps.clock();
    const base = { version: deps.version, uptime: Math.floor((now.getTime() - started) / 1000), timestamp: now.toISOString() };
    const problem = await deps.health();
    if (problem === undefined) return { status: 'healthy', ...base };
    return reply.code(503).send({ status: 'unhealthy', ...base, error: problem });
  });
  app.get('/metrics', { config: open, schema: { tags: ['system'], produces: ['text/plain'] } }, async (_request, reply) => {
    const text = await metrics.metrics();
    return reply.type(metrics.contentType).send(text);
  });
  app.get('/openapi.json', { config: open, schema: { hide: true } }, () => app.swagger());
}

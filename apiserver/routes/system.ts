/** System routes: health, metrics and the OpenAPI document; none needs credentials. */
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from 'prom-client';
import Type from 'typebox';
import { S } from '../schemas.ts';

export interface SystemRouteOptions {
  readonly version: string;
  readonly clock: () => Date;
  readonly health: () => Promise<string | undefined>;
  readonly metrics: Registry;
  /** This API's OpenAPI document, cut from the app's (documents.ts). */
  readonly document: (full: object) => object;
}

export const systemRoutes: FastifyPluginCallbackTypebox<SystemRouteOptions> = (
  app,
  { version, clock, health, metrics, document },
  done,
) => {
  const started = clock().getTime();
  const open = { permission: 'public' as const };

  app.get(
    '/health',
    { config: open, schema: { tags: ['system'], response: { 200: S.health, 503: S.health } } },
    async (_request, reply) => {
      const now = clock();
      const base = { version, uptime: Math.floor((now.getTime() - started) / 1000), timestamp: now.toISOString() };
      const problem = await health();
      if (problem === undefined) return { status: 'healthy', ...base };
      return reply.code(503).send({ status: 'unhealthy', ...base, error: problem });
    },
  );

  app.get(
    '/metrics',
    {
      config: open,
      schema: {
        tags: ['system'],
        produces: ['text/plain'],
        response: { 200: Type.String({ description: 'Metrics in the Prometheus text format.' }) },
      },
    },
    async (_request, reply) => {
      const text = await metrics.metrics();
      return reply.type(metrics.contentType).send(text);
    },
  );

  app.get('/openapi.json', { config: open, schema: { hide: true } }, () => document(app.swagger()));
  done();
};

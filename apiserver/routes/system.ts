/** System routes: health. */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../app.ts';

export function systemRoutes(app: FastifyInstance, deps: AppDeps): void {
  const started = deps.clock().getTime();
  app.get('/health', async (_request, reply) => {
    const now = deps.clock();
    const base = { version: deps.version, uptime: Math.floor((now.getTime() - started) / 1000), timestamp: now.toISOString() };
    const problem = await deps.health();
    if (problem === undefined) return { status: 'healthy', ...base };
    return reply.code(503).send({ status: 'unhealthy', ...base, error: problem });
  });
}

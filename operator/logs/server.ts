/**
 * The operator's internal HTTP endpoint, a small fastify app: liveness, readiness (the leader
 * is ready, a standby is not), metrics, and step logs as the contract's chunks for the API
 * server, archived ones from the store, running ones live from their Pod; a run's artifacts.
 */
import type { CoreV1Api } from '@kubernetes/client-node';
import { fastify, type FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { logChunk } from '../../core/logs/chunk.ts';
import type { Registry } from 'prom-client';
import { serveHistory } from '../../core/history/http/serve.ts';
import type { HistoryStore } from '../../core/history/types.ts';
import { serveArtifacts } from './artifacts-route.ts';
import { liveLog } from './live.ts';
import type { LogStore } from './store.ts';

export interface OperatorServerDeps {
  readonly store: LogStore;
  readonly core: CoreV1Api;
  readonly registry: Registry;
  readonly isLeader: () => boolean;
  /**
   * The history store the operator opened (undefined with history-store none). The API server
   * reads the embedded SQLite store through this endpoint (core/history/http); a PostgreSQL
   * store it reaches itself, so that one is not served here.
   */
  readonly history?: HistoryStore;
}

const logParams = Type.Object({
  namespace: Type.String(),
  dagName: Type.String(),
  dagRunId: Type.String(),
  step: Type.String(),
  attempt: Type.String(),
});
const number = Type.Optional(Type.String());
const logQuery = Type.Object({
  stream: Type.Optional(Type.String()),
  tail: number,
  head: number,
  offset: number,
  limit: number,
});

export function operatorServer(deps: OperatorServerDeps): FastifyInstance {
  const app = fastify({ logger: false });
  app.get('/healthz', (_request, reply) => reply.type('text/plain').send('ok\n'));
  app.get('/readyz', (_request, reply) =>
    deps.isLeader() ? reply.type('text/plain').send('leader\n') : reply.code(503).type('text/plain').send('standby\n'),
  );
  app.get('/metrics', async (_request, reply) =>
    reply.type(deps.registry.contentType).send(await deps.registry.metrics()),
  );
  app.get<{ Params: Static<typeof logParams>; Querystring: Static<typeof logQuery> }>(
    '/logs/:namespace/:dagName/:dagRunId/:step/:attempt',
    { schema: { params: logParams, querystring: logQuery } },
    async (request, reply) => {
      const { attempt, ...names } = request.params;
      if (!/^\d+$/.test(attempt)) return reply.code(404).type('text/plain').send('not found\n');
      const stream = request.query.stream === 'stderr' ? 'stderr' : 'stdout';
      const ref = { ...names, attempt: Number(attempt) };
      // The store again after a live read: the Pod may have been archived and its log removed by
      // its node between the two, which leaves the live read empty.
      const log =
        (await deps.store.read(ref, stream)) ??
        (await liveLog(deps.core, ref, stream).then(async (live) => (await deps.store.read(ref, stream)) ?? live));
      if (log === undefined)
        return reply.code(404).send({ code: 'not_found', message: 'no log for this step attempt' });
      const { tail, head, offset, limit } = request.query;
      const number = (text: string | undefined): number | undefined => (text === undefined ? undefined : Number(text));
      return logChunk(log, { tail: number(tail), head: number(head), offset: number(offset), limit: number(limit) });
    },
  );
  serveArtifacts(app, deps.store);
  if (deps.history?.kind === 'sqlite') serveHistory(app, deps.history);
  app.setNotFoundHandler((_request, reply) => reply.code(404).type('text/plain').send('not found\n'));
  app.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) =>
    reply
      .code(error.statusCode ?? 500)
      .type('text/plain')
      .send(error.message),
  );
  return app;
}

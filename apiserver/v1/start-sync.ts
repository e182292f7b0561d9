/**
 * /api/v1's `POST /dags/{fileName}/start-sync` (deprecated in Dagu 2.x, kept for its clients):
 * starts a run as `/start` does, then holds the request until the run ends (or waits for a
 * person's approval) or `timeout` seconds pass, and answers the run's details. The wait watches
 * the informer cache (no polling of the cluster): one small waiter per open request. Past the timeout the run goes on
 * and the answer is 408 `timeout` with its `dagRunId`, as in Dagu; a caller that hangs up ends
 * the wait, not the run.
 */
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { isActiveRun } from '../../core/resources/queue.ts';
import { RunStatus } from '../../core/resources/status.ts';
import { withRecords } from '../archive-reads.ts';
import type { ResourceRouteOptions } from '../deps.ts';
import { fileStart } from '../routes/execution.ts';
import { detailsOf } from '../routes/runs.ts';
import { NAMES, requestBody } from '../schemas.ts';
import { V1 } from './schemas.ts';
import { v1Details } from './views.ts';

export const MAX_SYNC_SECONDS = 86_400;

const params = Type.Object({ fileName: NAMES.fileName });
const body = requestBody(
  {
    params: Type.Optional(Type.String()),
    dagRunId: Type.Optional(NAMES.dagRunId),
    singleton: Type.Optional(Type.Boolean()),
    dagName: Type.Optional(NAMES.dagName),
    timeout: Type.Integer({
      minimum: 1,
      maximum: MAX_SYNC_SECONDS,
      description: 'Seconds to wait for the run to end; after them the answer is 408 and the run goes on.',
    }),
  },
  { timeout: 60 },
);
const timedOut = Type.Object({
  code: Type.Literal('timeout'),
  message: Type.String(),
  dagRunId: Type.String({ description: 'The run, which goes on.' }),
});

export const v1StartSyncRoutes: FastifyPluginCallbackTypebox<ResourceRouteOptions> = (app, { cluster }, done) => {
  app.post(
    '/dags/:fileName/start-sync',
    {
      config: {
        permission: 'run',
        errors: ['bad_request', 'not_found', 'already_exists', 'already_running', 'max_run_reached'],
      },
      schema: {
        tags: ['dags'],
        deprecated: true,
        params,
        body,
        response: { 200: Type.Object({ dagRun: V1.dagRunDetailsWrapped.properties.dagRunDetails }), 408: timedOut },
      },
    },
    async (request, reply) => {
      const start = fileStart(cluster, request.params.fileName, request.body, false, request.caller);
      const { dagRunId } = await cluster.starter.start(start);
      const run = () => cluster.cache.runIndex.run(start.name, dagRunId);
      const hangUp = new AbortController();
      reply.raw.once('close', () => {
        hangUp.abort();
      });
      const ended = await cluster.cache.until(
        () => {
          const seen = run();
          // As in Dagu, a run that waits for a person is answered at once: nothing ends it but them.
          return seen !== undefined && (!isActiveRun(seen) || seen.status?.status === RunStatus.Waiting);
        },
        request.body.timeout * 1000,
        hangUp.signal,
      );
      const seen = run();
      if (!ended || seen === undefined)
        return reply.code(408).send({
          code: 'timeout',
          message: `timeout waiting for DAG ${start.name} to complete after ${String(request.body.timeout)} seconds; the run continues`,
          dagRunId,
        });
      return { dagRun: v1Details(await detailsOf(cluster, await withRecords(cluster, seen))) };
    },
  );
  done();
};

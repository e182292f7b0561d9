/**
 * The run operations /api/v1 has and /api/v2 has not: paged run lists (in place of v2's
 * handlers for the same paths: lists.ts applies them), run deletion, a run's stored spec, its
 * outputs (its artifacts: artifacts.ts), and the approval of a waiting step. They read runs the way the shared
 * routes do (cluster.ts, archive-reads.ts).
 */
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { isNotFound, isConflict } from '../../core/kube/errors.ts';
import { isActiveRun } from '../../core/resources/queue.ts';
import { isArchived } from '../archive-reads.ts';
import { recordedRunAt, runAt, runDefinition, type Cluster } from '../cluster.ts';
import type { ResourceRouteOptions } from '../deps.ts';
import { ApiError, rethrowAs } from '../errors.ts';
import { SUB_RUN_SEGMENTS } from '../paths.ts';
import { S } from '../schemas.ts';
import { renderYaml } from '../views/dags.ts';
import { iso } from '../views/format.ts';
import { runIdentity } from '../views/identity.ts';
import { ACTIONS, answer, answered, approvalBody, stepParams, subStepParams } from './approval-routes.ts';
import { runOutputs } from './run-outputs.ts';
import { V1 } from './schemas.ts';

const runParams = Type.Object({ name: Type.String(), dagRunId: Type.String() });
const subParams = Type.Object({ name: Type.String(), dagRunId: Type.String(), subDAGRunId: Type.String() });

async function deleteRun(cluster: Cluster, at: { name: string; dagRunId: string }): Promise<void> {
  const run = await runAt(cluster, at);
  const id = runIdentity(run);
  if (isActiveRun(run))
    throw new ApiError('bad_request', `run "${id.dagRunId}" is active; stop it (or dequeue it) before deleting it`);
  // The API server only reads the history store; the operator's retention removes what it keeps.
  if (isArchived(run))
    throw new ApiError(
      'bad_request',
      `run "${id.dagRunId}" is archived in the history store, which removes runs by its retention (docs/history.md); only runs still in the cluster are deleted here`,
    );
  // Gone meanwhile, or another run under its name (the uid guard): either way this run is no more.
  await cluster.writer.deleteRun(run).catch(
    rethrowAs(
      (error) => isNotFound(error) || isConflict(error),
      () => new ApiError('not_found', `run "${id.dagRunId}" not found`),
    ),
  );
}

async function runSpec(
  cluster: Cluster,
  at: { name: string; dagRunId: string; subDAGRunId?: string },
): Promise<{ spec: string }> {
  const run = await runAt(cluster, at);
  const source = await cluster.definitions.source(run);
  if (source === undefined)
    throw new ApiError('not_found', `the definition of run "${runIdentity(run).dagRunId}" is not kept any more`);
  return { spec: renderYaml(source) };
}

export const v1RunRoutes: FastifyPluginCallbackTypebox<ResourceRouteOptions> = (app, { cluster, clock }, done) => {
  const read = { permission: 'read' as const, errors: ['not_found'] as const };
  const tags = ['runs'];

  app.delete(
    '/dag-runs/:name/:dagRunId',
    {
      config: { permission: 'delete', errors: ['not_found', 'bad_request'] },
      schema: { tags, params: runParams, response: { 204: S.noContent } },
    },
    async (request, reply) => {
      await deleteRun(cluster, request.params);
      return reply.code(204).send();
    },
  );

  app.get(
    '/dag-runs/:name/:dagRunId/spec',
    { config: read, schema: { tags, params: runParams, response: { 200: V1.runSpec } } },
    async (request) => runSpec(cluster, request.params),
  );
  app.get(
    '/dag-runs/:name/:dagRunId/outputs',
    { config: read, schema: { tags, params: runParams, response: { 200: V1.outputs } } },
    async (request) => {
      const run = await recordedRunAt(cluster, request.params);
      const id = runIdentity(run);
      const status = run.status ?? {};
      return {
        metadata: {
          dagName: id.name,
          dagRunId: id.dagRunId,
          attemptId: run.metadata?.uid ?? '',
          status: status.statusLabel ?? '',
          completedAt: iso(status.finishedAt),
          params: status.params ?? run.spec.params ?? '',
        },
        outputs: runOutputs(status, await runDefinition(cluster, run)),
      };
    },
  );

  for (const segment of SUB_RUN_SEGMENTS) {
    app.get(
      `/dag-runs/:name/:dagRunId/${segment}/spec`,
      { config: read, schema: { tags, params: subParams, response: { 200: V1.runSpec } } },
      async (request) => runSpec(cluster, request.params),
    );
  }

  const approval = { permission: 'run' as const, errors: ['not_found', 'bad_request'] as const };
  for (const [segment, action] of ACTIONS) {
    app.post(
      `/dag-runs/:name/:dagRunId/steps/:stepName/${segment}`,
      { config: approval, schema: { tags, params: stepParams, body: approvalBody, response: { 200: answered } } },
      async (request) => answer({ cluster, by: request.caller, now: clock }, request.params, action, request.body),
    );
    app.post(
      `/dag-runs/:name/:dagRunId/sub-dag-runs/:subDAGRunId/steps/:stepName/${segment}`,
      { config: approval, schema: { tags, params: subStepParams, body: approvalBody, response: { 200: answered } } },
      async (request) => answer({ cluster, by: request.caller, now: clock }, request.params, action, request.body),
    );
  }
  done();
};

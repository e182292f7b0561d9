/**
 * DAG runs: listings, details, stop, retry, reschedule, dequeue, step status edits and sub
 * runs. Sub-run paths exist under `sub-dag-runs/{id}` (the contract) and `children/{id}`
 * (older clients).
 */
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { isConflict, isNotFound } from '../../core/kube/errors.ts';
import { RunStatus, runActive } from '../../core/resources/status.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { recordedRunAt, resolverFor, runAt, runDefinition, type Cluster } from '../cluster.ts';
import type { ResourceRouteOptions } from '../deps.ts';
import { ApiError, rethrowAs } from '../errors.ts';
import { SUB_RUN_SEGMENTS } from '../paths.ts';
import { queryInteger, remoteNodeQuery, requestBody, S } from '../schemas.ts';
import { parseRequestedBy, type Requester } from '../../core/resources/requested-by.ts';
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import { runIdentity } from '../views/identity.ts';
import { iso } from '../views/format.ts';
import { sendJsonStream } from '../responses.ts';
import { summaryStream } from '../views/run-listing.ts';
import { matchingRuns } from '../archive-reads.ts';
import { runDetails, runStatusOf, runSummary, type RunDetails } from '../views/runs.ts';

import { reschedule, rescheduleBody, retry, retryBody, setStepStatus } from './run-edits.ts';
const runParams = Type.Object({ name: Type.String(), dagRunId: Type.String() });
const subParams = Type.Object({ name: Type.String(), dagRunId: Type.String(), subDAGRunId: Type.String() });
const stepParams = Type.Object({ name: Type.String(), dagRunId: Type.String(), stepName: Type.String() });
const subStepParams = Type.Object({
  name: Type.String(),
  dagRunId: Type.String(),
  subDAGRunId: Type.String(),
  stepName: Type.String(),
});
const listQuery = Type.Object({
  name: Type.Optional(Type.String()),
  status: Type.Optional(queryInteger({ minimum: 0, maximum: 6 })),
  fromDate: Type.Optional(queryInteger({ description: 'Unix seconds, inclusive.' })),
  toDate: Type.Optional(queryInteger({ description: 'Unix seconds, inclusive.' })),
  dagRunId: Type.Optional(Type.String()),
  remoteNode: remoteNodeQuery,
});
const stepStatusBody = requestBody({ status: Type.Integer({ minimum: 0, maximum: 5 }) }, { status: 4 });
const rescheduled = Type.Object({ dagRunId: Type.String(), queued: Type.Boolean() });

const requester = (description: string) =>
  Type.Union([Type.Object({ user: Type.String(), method: Type.String() }), Type.Null()], { description });
/** Kubedag's own, beside the contract's run details (which may not grow): docs/audit.md. */
const origin = Type.Object(
  {
    trigger: Type.String({
      description: 'What made the run: api, schedule, retry, sub-run, restart, kubectl, or empty when unknown.',
    }),
    startedBy: requester('Who asked the API for the run (kubedag.io/started-by); null for runs the operator made.'),
    requestedBy: requester('Who asked the API for its latest change (kubedag.io/requested-by): a stop, a retry.'),
  },
  { description: 'Who started a run and who last changed it (a Kubedag extension).' },
);

/** The app as a route plugin of this file sees it: TypeBox schemas type each route. */
type RunsApp = Parameters<FastifyPluginCallbackTypebox<ResourceRouteOptions>>[0];

const read = { permission: 'read' as const };
const run = { permission: 'run' as const };
const stepStatus = { ...run, errors: ['not_found', 'bad_request'] as const };

export const runRoutes: FastifyPluginCallbackTypebox<ResourceRouteOptions> = (app, { cluster }, done) => {
  listingRoutes(app, cluster);
  actionRoutes(app, cluster);
  originRoutes(app, cluster);
  subRunRoutes(app, cluster);
  stepStatusRoutes(app, cluster);
  done();
};

/** The run listings, all and of one DAG, and one run's details. */
function listingRoutes(app: RunsApp, cluster: Cluster): void {
  app.get(
    '/dag-runs',
    { config: read, schema: { tags: ['runs'], querystring: listQuery, response: { 200: S.runSummaries } } },
    async (request, reply) => {
      const { remoteNode: _node, ...query } = request.query;
      // A stream is sent as it is: the summaries are exactly the schema's fields (runSummary).
      sendJsonStream(reply, summaryStream(await matchingRuns(cluster, query)));
      return reply;
    },
  );

  app.get(
    '/dag-runs/:name',
    {
      config: read,
      schema: {
        tags: ['runs'],
        params: Type.Object({ name: Type.String() }),
        querystring: listQuery,
        response: { 200: S.runSummaries },
      },
    },
    async (request, reply) => {
      const { name } = request.params;
      const { remoteNode: _node, name: _name, ...query } = request.query;
      sendJsonStream(reply, summaryStream(await matchingRuns(cluster, { ...query, name, exactName: true })));
      return reply;
    },
  );

  app.get(
    '/dag-runs/:name/:dagRunId',
    {
      config: { ...read, errors: ['not_found'] },
      schema: { tags: ['runs'], params: runParams, response: { 200: S.dagRunDetailsWrapped } },
    },
    async (request) => {
      return { dagRunDetails: await detailsOf(cluster, await recordedRunAt(cluster, request.params)) };
    },
  );
}

/** A run (with its records) as GET /dag-runs/{name}/{dagRunId} answers it, its definition and sub-run resolver read. */
export async function detailsOf(cluster: Cluster, run: DagRunResource): Promise<RunDetails> {
  return runDetails(run, await runDefinition(cluster, run), await resolverFor(cluster, run));
}

/** What a caller does to a run: stop, retry, reschedule, dequeue. */
function actionRoutes(app: RunsApp, cluster: Cluster): void {
  app.post(
    '/dag-runs/:name/:dagRunId/stop',
    {
      config: { ...run, errors: ['not_found', 'not_running'] },
      schema: { tags: ['runs'], params: runParams, response: { 200: S.empty } },
    },
    async (request, reply) => {
      const r = await runAt(cluster, request.params);
      if (!runActive(runStatusOf(r)))
        throw new ApiError('not_running', `run "${runIdentity(r).dagRunId}" is not running`);
      if (r.spec.stop !== true) await cluster.writer.stopRun(r, request.caller);
      return reply.code(200).send();
    },
  );

  app.post(
    '/dag-runs/:name/:dagRunId/retry',
    {
      config: { ...run, errors: ['not_found', 'already_running@400', 'already_exists', 'max_run_reached'] },
      schema: { tags: ['runs'], params: runParams, body: retryBody, response: { 200: S.empty } },
    },
    async (request, reply) => {
      await retry(cluster, request.params, request.body, request.caller);
      return reply.code(200).send();
    },
  );

  app.post(
    '/dag-runs/:name/:dagRunId/reschedule',
    {
      config: { ...run, errors: ['not_found', 'already_exists', 'already_running', 'max_run_reached'] },
      schema: { tags: ['runs'], params: runParams, body: rescheduleBody, response: { 200: rescheduled } },
    },
    async (request) => {
      return reschedule(cluster, await runAt(cluster, request.params), request.body, request.caller);
    },
  );

  app.get(
    '/dag-runs/:name/:dagRunId/dequeue',
    {
      config: { ...run, errors: ['not_found'] },
      schema: { tags: ['runs'], params: runParams, response: { 200: S.empty } },
    },
    async (request, reply) => {
      const r = await runAt(cluster, request.params);
      if (runStatusOf(r) !== RunStatus.Queued)
        throw new ApiError('not_found', `run "${runIdentity(r).dagRunId}" is not queued`);
      // Gone, or another run under its name (the uid guard): either way it is not queued any more.
      await cluster.writer.deleteRun(r).catch(
        rethrowAs(
          (error) => isNotFound(error) || isConflict(error),
          () => new ApiError('not_found', `run "${runIdentity(r).dagRunId}" is not queued`),
        ),
      );
      return reply.code(200).send();
    },
  );
}

function originRoutes(app: RunsApp, cluster: Cluster): void {
  // Kubedag's: who started the run, for the run page (docs/decisions/2026-11-29-audit.md).
  app.get(
    '/dag-runs/:name/:dagRunId/origin',
    {
      config: { ...read, errors: ['not_found'] },
      schema: { tags: ['runs'], params: runParams, response: { 200: origin } },
    },
    async (request) => runOrigin(await runAt(cluster, request.params)),
  );
  app.get(
    '/dag-runs/:name/:dagRunId/sub-dag-runs/:subDAGRunId/origin',
    {
      config: { ...read, errors: ['not_found'] },
      schema: { tags: ['runs'], params: subParams, response: { 200: origin } },
    },
    async (request) => runOrigin(await runAt(cluster, request.params)),
  );
}

/** A run's sub runs, listed and each in detail, under both of their path segments. */
function subRunRoutes(app: RunsApp, cluster: Cluster): void {
  app.get(
    '/dag-runs/:name/:dagRunId/sub-dag-runs',
    {
      config: { ...read, errors: ['not_found'] },
      schema: { tags: ['runs'], params: runParams, response: { 200: S.subRuns } },
    },
    async (request) => {
      const r = await recordedRunAt(cluster, request.params);
      return { subRuns: await subRunList(cluster, r) };
    },
  );

  for (const segment of SUB_RUN_SEGMENTS) {
    app.get(
      `/dag-runs/:name/:dagRunId/${segment}`,
      {
        config: { ...read, errors: ['not_found'] },
        schema: { tags: ['runs'], params: subParams, response: { 200: S.dagRunDetailsWrapped } },
      },
      async (request) => {
        return { dagRunDetails: await detailsOf(cluster, await recordedRunAt(cluster, request.params)) };
      },
    );
    app.patch(
      `/dag-runs/:name/:dagRunId/${segment}/steps/:stepName/status`,
      {
        config: stepStatus,
        schema: { tags: ['runs'], params: subStepParams, body: stepStatusBody, response: { 200: S.empty } },
      },
      async (request, reply) => {
        await setStepStatus(cluster, request.params, request.body.status, request.caller);
        return reply.code(200).send();
      },
    );
  }
}

function stepStatusRoutes(app: RunsApp, cluster: Cluster): void {
  app.patch(
    '/dag-runs/:name/:dagRunId/steps/:stepName/status',
    {
      config: stepStatus,
      schema: { tags: ['runs'], params: stepParams, body: stepStatusBody, response: { 200: S.empty } },
    },
    async (request, reply) => {
      await setStepStatus(cluster, request.params, request.body.status, request.caller);
      return reply.code(200).send();
    },
  );
}

/** Who started a run and who last changed it, from its annotations (core/resources/requested-by.ts). */
export function runOrigin(run: DagRunResource): {
  trigger: string;
  startedBy: Requester | null;
  requestedBy: Requester | null;
} {
  const annotations = run.metadata?.annotations ?? {};
  return {
    trigger: run.spec.trigger ?? '',
    startedBy: parseRequestedBy(annotations[ANNOTATIONS.startedBy]) ?? null,
    requestedBy: parseRequestedBy(annotations[ANNOTATIONS.requestedBy]) ?? null,
  };
}

/** The sub runs a run's nodes name, in node order; ones that cannot be found are left out. */
async function subRunList(
  cluster: Cluster,
  r: DagRunResource,
): Promise<
  { dagRunId: string; params: string; status: number; statusLabel: string; startedAt: string; finishedAt: string }[]
> {
  const resolve = await resolverFor(cluster, r);
  const refs = (r.status?.nodes ?? []).flatMap((n) => [...(n.subRuns ?? []), ...(n.subRunsRepeated ?? [])]);
  return refs.flatMap((ref) => {
    const child = resolve(ref.dagRunId);
    if (child === undefined) return [];
    const summary = runSummary(child);
    return [
      {
        dagRunId: ref.dagRunId,
        params: ref.params ?? summary.params,
        status: summary.status,
        statusLabel: summary.statusLabel,
        startedAt: iso(child.status?.startedAt),
        finishedAt: iso(child.status?.finishedAt),
      },
    ];
  });
}

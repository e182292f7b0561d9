/**
 * v1's lists where they page differently from v2's: GET /dag-runs and GET /dag-runs/{name} take
 * `limit`, `cursor` and a repeatable `status` (v2: every match, one status), and answer
 * `nextCursor`. The v2 route is registered under /api/v1 as every other, and its handler and
 * query schema are replaced here (api.ts), so its permission and its place in the audit stay.
 * Queue details and items, and DAG labels, are v1's alone.
 */
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest, RouteOptions } from 'fastify';
import Type, { type Static } from 'typebox';
import { queueName } from '../../core/resources/queue.ts';
import { matchingRuns } from '../archive-reads.ts';
import { allDags, type Cluster } from '../cluster.ts';
import type { ResourceRouteOptions } from '../deps.ts';
import { ApiError } from '../errors.ts';
import { queryInteger, remoteNodeQuery } from '../schemas.ts';
import { isStoredRow, storedSummary, type ListedRun } from '../views/archived.ts';
import { uniqueTags } from '../views/dags.ts';
import { queues, type Queue } from '../views/queues.ts';
import { runSummary, type RunSummary } from '../views/runs.ts';
import { decodeCursor, DEFAULT_LIMIT, pageOf, statusFilter } from './paging.ts';
import { PAGE_QUERY, V1 } from './schemas.ts';
import { v1Queue, v1Summary } from './views.ts';

/**
 * v1's run status goes to 8 (7 waiting for approval, 8 rejected), and Dagu 2.x's dashboard asks
 * for every one of them at once: a filter on a status no Kubedag run has yet matches nothing,
 * it is not a bad request.
 */
const V1_STATUS_MAX = 8;

const runListQuery = Type.Object({
  name: Type.Optional(Type.String()),
  status: Type.Optional(
    Type.Array(queryInteger({ minimum: 0, maximum: V1_STATUS_MAX }), { description: 'Repeat for several statuses.' }),
  ),
  fromDate: Type.Optional(queryInteger({ description: 'Unix seconds, inclusive.' })),
  toDate: Type.Optional(queryInteger({ description: 'Unix seconds, inclusive.' })),
  dagRunId: Type.Optional(Type.String()),
  ...PAGE_QUERY,
  remoteNode: remoteNodeQuery,
});
type RunListQuery = Static<typeof runListQuery>;

async function* summaries(runs: Iterable<ListedRun> | AsyncIterable<ListedRun>): AsyncGenerator<RunSummary> {
  for await (const run of runs) yield isStoredRow(run) ? storedSummary(run) : runSummary(run);
}

async function runPage(
  cluster: Cluster,
  query: RunListQuery,
  exactName?: string,
): Promise<{ dagRuns: ReturnType<typeof v1Summary>[]; nextCursor?: string }> {
  const { status, limit, cursor, remoteNode: _node, name, ...filter } = query;
  const offset = decodeCursor(cursor);
  const statuses = status ?? [];
  const only = statuses.length === 1 ? { status: statuses[0] } : {};
  const named = exactName === undefined ? (name === undefined ? {} : { name }) : { name: exactName, exactName: true };
  const runs = await matchingRuns(cluster, { ...filter, ...only, ...named });
  const keep = statusFilter(statuses);
  const page = await pageOf(summaries(runs), {
    offset,
    limit: limit ?? DEFAULT_LIMIT,
    ...(keep === undefined ? {} : { keep }),
  });
  return {
    dagRuns: page.items.map(v1Summary),
    ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
  };
}

/** The v1 handler and query of a shared route, by its key (edges.ts edgeKey). */
export function listOverrides(
  cluster: Cluster,
): Readonly<Record<string, Pick<RouteOptions, 'handler'> & { querystring: { properties: object }; response: object }>> {
  return {
    'GET /dag-runs': {
      querystring: runListQuery,
      response: V1.runsPage,
      handler: (request: FastifyRequest) => runPage(cluster, request.query as RunListQuery),
    },
    'GET /dag-runs/:name': {
      querystring: runListQuery,
      response: V1.runsPage,
      handler: (request: FastifyRequest) =>
        runPage(cluster, request.query as RunListQuery, (request.params as { name: string }).name),
    },
  };
}

/** The listed queues; one that has no run and no DAGQueue resource is not listed (v2's rule). */
function listedQueues(cluster: Cluster): Queue[] {
  const { cache } = cluster;
  return queues({
    queues: cache.queues.list(cache.namespace),
    runs: cache.runs.list(cache.namespace),
    dagQueue: queueName,
  });
}

function queueNamed(cluster: Cluster, name: string): Queue {
  const found = listedQueues(cluster).find((queue) => queue.name === name);
  if (found === undefined)
    throw new ApiError('not_found', `queue "${name}" not found (a queue is listed while it is defined or has runs)`);
  return found;
}

const queueParams = Type.Object({ name: Type.String() });
const itemsQuery = Type.Object({ limit: PAGE_QUERY.limit, cursor: PAGE_QUERY.cursor, remoteNode: remoteNodeQuery });

export const v1ListRoutes: FastifyPluginCallbackTypebox<ResourceRouteOptions> = (app, { cluster }, done) => {
  const read = { permission: 'read' as const, errors: ['not_found'] as const };
  app.get(
    '/queues/:name',
    { config: read, schema: { tags: ['queues'], params: queueParams, response: { 200: V1.queue } } },
    (request) => v1Queue(queueNamed(cluster, request.params.name)),
  );
  app.get(
    '/queues/:name/items',
    {
      config: read,
      schema: { tags: ['queues'], params: queueParams, querystring: itemsQuery, response: { 200: V1.queueItems } },
    },
    async (request) => {
      const offset = decodeCursor(request.query.cursor);
      const page = await pageOf(queueNamed(cluster, request.params.name).queued, {
        offset,
        limit: request.query.limit ?? DEFAULT_LIMIT,
      });
      return {
        items: page.items.map(v1Summary),
        ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
      };
    },
  );
  app.get(
    '/dags/labels',
    { config: { permission: 'read' }, schema: { tags: ['dags'], response: { 200: V1.labels } } },
    () => ({ labels: uniqueTags(allDags(cluster)), errors: [] }),
  );
  done();
};

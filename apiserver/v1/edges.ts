/**
 * The edge between the shared route handlers and /api/v1: for each operation whose answer has
 * another shape in Dagu 2.x, its v1 success schema and the pure function (views.ts) that turns
 * the handler's v2 answer into it. Applied by an `onRoute` hook of the v1 plugin (api.ts), so
 * the v2 routes are registered once more under /api/v1 and nothing else about them changes:
 * validation, permissions, audit and errors are theirs. An operation absent from the table
 * answers the same in both versions.
 */
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import Type, { type TProperties, type TSchema } from 'typebox';
import type { DagDetails } from '../../core/dag/api.ts';
import type { DagDetailsView, DagListItem } from '../views/dags.ts';
import type { Queue } from '../views/queues.ts';
import type { GridRow, RunDetails } from '../views/runs.ts';
import { SUB_RUN_SEGMENTS } from '../paths.ts';
import { appendPreSerialization } from '../responses.ts';
import { V1 } from './schemas.ts';
import { v1Dag, v1DagDetails, v1DagListItem, v1DagSummary, v1Details, v1Grid, v1Queue } from './views.ts';

export interface Edge {
  /** The v1 schema of the success answer. */
  readonly schema: TSchema;
  /** The v2 answer as v1 has it, given the request's path parameters. Pure. */
  readonly map: (payload: never, params: Readonly<Record<string, string>>) => unknown;
  /** Query parameters v1 adds, which the shared handler reads. */
  readonly query?: TProperties;
}

const details: Edge = {
  schema: V1.dagRunDetailsWrapped,
  map: (p: { dagRunDetails: RunDetails }) => ({ dagRunDetails: v1Details(p.dagRunDetails) }),
};

/** `METHOD /path` (fastify's form, without the prefix) -> its edge. */
export const EDGES: Readonly<Record<string, Edge>> = {
  'GET /dags': {
    schema: V1.dagList,
    map: (p: { dags: DagListItem[] }) => ({ ...p, dags: p.dags.map(v1DagListItem) }),
    query: {
      labels: Type.Optional(
        Type.String({ description: 'Comma-separated labels (tags): only DAGs that have every one.' }),
      ),
    },
  },
  'GET /dags/:fileName': {
    schema: V1.dagDetails,
    map: (p: DagDetailsView, params) => v1DagDetails(p, params.fileName ?? ''),
  },
  'GET /dags/:fileName/spec': {
    schema: V1.dagSpec,
    map: (p: { dag: DagDetails }) => ({ ...p, dag: v1Dag(p.dag), valueReferenceNotices: [] }),
  },
  'POST /dags/validate': { schema: V1.validation, map: (p: { dag: DagDetails }) => ({ ...p, dag: v1Dag(p.dag) }) },
  'GET /dags/search': {
    schema: V1.searchResults,
    map: (p: { results: { dag: DagDetails }[] }) => ({
      ...p,
      results: p.results.map((r) => ({ ...r, dag: v1DagSummary(r.dag) })),
    }),
  },
  'GET /dags/:fileName/dag-runs': {
    schema: V1.dagRunsWithGrid,
    map: (p: { dagRuns: RunDetails[]; gridData: GridRow[] }) => ({
      dagRuns: p.dagRuns.map(v1Details),
      gridData: v1Grid(p.gridData),
    }),
  },
  'GET /dags/:fileName/dag-runs/:dagRunId': {
    schema: V1.dagRunWrapped,
    map: (p: { dagRun: RunDetails }) => ({ dagRun: v1Details(p.dagRun) }),
  },
  'GET /dag-runs/:name/:dagRunId': details,
  ...Object.fromEntries(SUB_RUN_SEGMENTS.map((segment) => [`GET /dag-runs/:name/:dagRunId/${segment}`, details])),
  'GET /queues': { schema: V1.queues, map: (p: { queues: Queue[] }) => ({ ...p, queues: p.queues.map(v1Queue) }) },
  'GET /workers': { schema: V1.workers, map: (p: unknown) => p },
};

/** The key of a route registered under `prefix`: `GET /dags/:fileName`; the HEAD route fastify adds beside a GET is its GET's. */
export function edgeKey(route: Pick<RouteOptions, 'method' | 'url'>, prefix: string): string {
  const method = ([route.method].flat()[0] ?? '').toUpperCase();
  return `${method === 'HEAD' ? 'GET' : method} ${route.url.slice(prefix.length)}`;
}

/**
 * An `onRoute` hook's work for a route under /api/v1: its success schema is v1's, and its answer
 * passes through the edge's map before it is serialised. Errors are not payloads of this hook's
 * concern (fastify serialises them through the error handler), so they keep the contract's shape.
 */
export function applyEdge(route: RouteOptions, prefix: string, edges: Readonly<Record<string, Edge>> = EDGES): void {
  const edge = edges[edgeKey(route, prefix)];
  if (edge === undefined) return;
  const schema = (route.schema ?? {}) as {
    response?: Record<string, unknown>;
    querystring?: { properties?: Record<string, unknown> };
  };
  const query =
    edge.query === undefined || schema.querystring === undefined
      ? {}
      : { querystring: { ...schema.querystring, properties: { ...schema.querystring.properties, ...edge.query } } };
  route.schema = { ...route.schema, ...query, response: { ...schema.response, 200: edge.schema } };
  const map = (
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    done: (error: Error | null, payload?: unknown) => void,
  ): void => {
    done(
      null,
      reply.statusCode === 200 && payload !== null && typeof payload === 'object'
        ? edge.map(payload as never, request.params as Readonly<Record<string, string>>)
        : payload,
    );
  };
  appendPreSerialization(route, map);
}

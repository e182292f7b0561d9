/**
 * `GET /search/dags` and `GET /search/dags/{fileName}/matches` on /api/v1 (search.ts): Dagu
 * 2.x's search over DAG definitions, over the DAGs the API server's cache holds, with the spec
 * text each DAG answers on GET /dags/{fileName}/spec.
 */
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { allDags, dagOf } from '../cluster.ts';
import type { ResourceRouteOptions } from '../deps.ts';
import { queryInteger, remoteNodeQuery } from '../schemas.ts';
import type { DagEntry } from '../views/dags.ts';
import { V1 } from './schemas.ts';
import { searchFeed, searchMatches, type SearchableDag } from './search.ts';

const query = (defaultLimit: number, what: string) =>
  Type.Object({
    remoteNode: remoteNodeQuery,
    q: Type.String({ description: 'Text to find in DAG definitions, case-blind (taken literally).' }),
    labels: Type.Optional(Type.String({ description: 'Comma-separated labels: only DAGs that have every one.' })),
    cursor: Type.Optional(Type.String({ description: "The previous answer's cursor, for the same q and labels." })),
    limit: Type.Optional(
      queryInteger({
        minimum: 1,
        maximum: 50,
        description: `At most this many ${what} (${String(defaultLimit)} by default).`,
      }),
    ),
  });

const searchable = (entry: DagEntry): SearchableDag => ({
  fileName: entry.fileName,
  tags: entry.load.dag.tags,
  text: entry.yaml,
});

export const v1SearchRoutes: FastifyPluginCallbackTypebox<ResourceRouteOptions> = (app, { cluster }, done) => {
  const read = { permission: 'read' as const, errors: ['bad_request'] as const };
  const tags = ['search'];
  app.get(
    '/search/dags',
    { config: read, schema: { tags, querystring: query(20, 'DAGs'), response: { 200: V1.searchFeed } } },
    (request) => searchFeed(allDags(cluster).map(searchable), { ...request.query, limit: request.query.limit ?? 20 }),
  );
  app.get(
    '/search/dags/:fileName/matches',
    {
      config: { permission: 'read', errors: ['bad_request', 'not_found'] },
      schema: {
        tags,
        params: Type.Object({ fileName: Type.String() }),
        querystring: query(5, 'matches'),
        response: { 200: V1.searchMatches },
      },
    },
    (request) =>
      searchMatches(searchable(dagOf(cluster, request.params.fileName)), {
        ...request.query,
        limit: request.query.limit ?? 5,
      }),
  );
  done();
};

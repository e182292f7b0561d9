/**
 * A run's artifacts on /api/v1, for a run and for a sub-run: the file tree, a file's preview
 * and its download, in Dagu 2.x's shapes (artifact-views.ts). The files are what the run's
 * steps left in DAG_RUN_ARTIFACTS_DIR, kept in the log store and read through the operator
 * (docs/decisions/2026-11-29-run-artifacts.md). A run without artifacts lists none.
 */
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { runAt, type Cluster, type RunPath } from '../cluster.ts';
import type { ResourceRouteOptions } from '../deps.ts';
import { ApiError } from '../errors.ts';
import { SUB_RUN_SEGMENTS } from '../paths.ts';
import { remoteNodeQuery } from '../schemas.ts';
import { runIdentity } from '../views/identity.ts';
import { artifactPreview, artifactTree } from './artifact-views.ts';
import { safeFileName } from './downloads.ts';
import { V1 } from './schemas.ts';

const runParams = Type.Object({ name: Type.String(), dagRunId: Type.String() });
const subParams = Type.Object({ name: Type.String(), dagRunId: Type.String(), subDAGRunId: Type.String() });
const listQuery = Type.Object({ remoteNode: remoteNodeQuery, recursive: Type.Optional(Type.Boolean()) });
const fileQuery = Type.Object({
  remoteNode: remoteNodeQuery,
  path: Type.String({ minLength: 1, description: "The file's path inside the run's artifacts directory." }),
});
/** Typed as the Buffer the handler sends: fastify sends a Buffer as it is, never through a serializer. */
const binary = Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'The file, as an attachment.' });

/** The run a path names, as the log store keys its files. */
async function storeRef(cluster: Cluster, path: RunPath): Promise<{ dagName: string; dagRunId: string }> {
  const run = await runAt(cluster, path);
  return { dagName: run.spec.dagName ?? runIdentity(run).name, dagRunId: runIdentity(run).dagRunId };
}

async function file(cluster: Cluster, path: RunPath, name: string): Promise<Buffer> {
  const bytes = await cluster.artifacts.read(await storeRef(cluster, path), name);
  if (bytes === undefined) throw new ApiError('not_found', `artifact file "${name}" not found`);
  return bytes;
}

export const v1ArtifactRoutes: FastifyPluginCallbackTypebox<ResourceRouteOptions> = (app, { cluster }, done) => {
  const read = { permission: 'read' as const, errors: ['not_found'] as const };
  const tags = ['runs'];
  for (const [base, params] of [
    ['/dag-runs/:name/:dagRunId', runParams],
    ...SUB_RUN_SEGMENTS.map((segment) => [`/dag-runs/:name/:dagRunId/${segment}`, subParams] as const),
  ] as const) {
    app.get(
      `${base}/artifacts`,
      { config: read, schema: { tags, params, querystring: listQuery, response: { 200: V1.artifacts } } },
      async (request) => {
        const files = await cluster.artifacts.list(await storeRef(cluster, request.params));
        return { items: artifactTree(files, request.query.recursive ?? false) };
      },
    );
    app.get(
      `${base}/artifacts/preview`,
      { config: read, schema: { tags, params, querystring: fileQuery, response: { 200: V1.artifactPreview } } },
      async (request) => artifactPreview(request.query.path, await file(cluster, request.params, request.query.path)),
    );
    app.get(
      `${base}/artifacts/download`,
      {
        config: read,
        schema: {
          tags,
          params,
          querystring: fileQuery,
          produces: ['application/octet-stream'],
          response: { 200: binary },
        },
      },
      async (request, reply) => {
        const bytes = await file(cluster, request.params, request.query.path);
        const name = safeFileName(request.query.path.split('/').at(-1) ?? '');
        return reply
          .type('application/octet-stream')
          .header('content-disposition', `attachment; filename="${name}"`)
          .send(bytes);
      },
    );
  }
  done();
};

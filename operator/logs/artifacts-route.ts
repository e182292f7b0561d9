/**
 * A run's artifacts on the operator's internal endpoint, for the API server, which never reads
 * the log store itself: `GET /artifacts/<namespace>/<dag>/<run id>` lists the run's files (path
 * and size, its attempts' manifests merged), and with `?path=` answers that file's bytes.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { mergeArtifacts, parseManifest, type ArtifactManifest } from '../../core/logs/artifacts.ts';
import type { LogStore } from './store.ts';

const params = Type.Object({ namespace: Type.String(), dagName: Type.String(), dagRunId: Type.String() });
const query = Type.Object({ path: Type.Optional(Type.String()) });

export function serveArtifacts(app: FastifyInstance, store: LogStore): void {
  app.get<{ Params: Static<typeof params>; Querystring: Static<typeof query> }>(
    '/artifacts/:namespace/:dagName/:dagRunId',
    { schema: { params, querystring: query } },
    async (request, reply) => {
      const { namespace, dagName, dagRunId } = request.params;
      const manifests = (await store.artifactManifests(namespace, dagName, dagRunId))
        .map(parseManifest)
        .filter((m): m is ArtifactManifest => m !== undefined);
      const files = mergeArtifacts(manifests);
      const wanted = request.query.path;
      if (wanted === undefined) return { files: files.map(({ path, size }) => ({ path, size })) };
      const file = files.find((f) => f.path === wanted);
      if (file === undefined) return reply.code(404).send({ code: 'not_found', message: 'no such artifact' });
      return reply.type('application/octet-stream').send(Buffer.from(file.data, 'base64'));
    },
  );
}

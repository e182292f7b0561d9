/** Queues, workers (the cluster's nodes) and the services (the operator's leader). */
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { queueName } from '../../core/resources/queue.ts';
import type { ResourceRouteOptions } from '../deps.ts';
import { ApiError } from '../errors.ts';
import { remoteNodeQuery, S } from '../schemas.ts';
import { leaderOf, type LeaderView } from '../views/leader.ts';
import { queues, queuesSummary } from '../views/queues.ts';
import { workers } from '../views/workers.ts';

const schedulers = Type.Object({
  schedulers: Type.Array(
    Type.Object({ instanceId: Type.String(), host: Type.String(), status: Type.String(), startedAt: Type.String() }),
  ),
});
const coordinators = Type.Object({
  coordinators: Type.Array(
    Type.Object({
      instanceId: Type.String(),
      host: Type.String(),
      port: Type.Integer(),
      status: Type.String(),
      startedAt: Type.String(),
    }),
  ),
});

export const clusterInfoRoutes: FastifyPluginCallbackTypebox<ResourceRouteOptions> = (
  app,
  { cluster, clock },
  done,
) => {
  const read = { permission: 'read' as const };
  const leader = (): LeaderView | undefined => leaderOf(cluster.cache.operatorLease.list()[0], clock());

  app.get('/queues', { config: read, schema: { tags: ['queues'], response: { 200: S.queues } } }, () => {
    const { cache } = cluster;
    const ns = cache.namespace;
    const listed = queues({ queues: cache.queues.list(ns), runs: cache.runs.list(ns), dagQueue: queueName });
    return { queues: listed, summary: queuesSummary(listed) };
  });

  app.get(
    '/workers',
    {
      config: { ...read, errors: ['service_unavailable'] },
      schema: {
        tags: ['workers'],
        querystring: Type.Object({ remoteNode: remoteNodeQuery }),
        response: { 200: S.workers },
      },
    },
    () => {
      const { cache } = cluster;
      if (!cache.nodes.hasSynced()) throw new ApiError('service_unavailable', 'the list of nodes is not available yet');
      const ns = cache.namespace;
      const list = workers({
        nodes: cache.nodes.list(),
        leases: cache.nodeLeases.list(),
        pods: cache.pods.list(ns),
        runs: (name, namespace) => cache.runs.get(namespace, name),
        now: clock(),
      });
      return { workers: list, errors: [] };
    },
  );

  app.get('/services/scheduler', { config: read, schema: { tags: ['system'], response: { 200: schedulers } } }, () => {
    const found = leader();
    return { schedulers: found === undefined ? [] : [found] };
  });

  app.get(
    '/services/coordinator',
    { config: read, schema: { tags: ['system'], response: { 200: coordinators } } },
    () => {
      // The operator hands work to nodes (the contract's coordinator role); its leader is the one.
      const found = leader();
      return { coordinators: found === undefined ? [] : [{ ...found, port: 0 }] };
    },
  );
  done();
};

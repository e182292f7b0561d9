/** Queues, workers (the cluster's nodes) and the services (the operator's leader). */
import type { V1Lease } from '@kubernetes/client-node';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { AppDeps } from '../app.ts';
import { queueName } from '../../core/resources/queue.ts';
import { need, type Cluster } from '../cluster.ts';
import { ApiError } from '../errors.ts';
import { S } from '../schemas.ts';
import { queues } from '../views/queues.ts';
import { iso } from '../views/format.ts';
import { workers } from '../views/workers.ts';

export interface LeaderView {
  readonly instanceId: string;
  readonly host: string;
  readonly status: 'active' | 'inactive' | 'unknown';
  readonly startedAt: string;
}

/** The operator's leader as its Lease shows it: active while the Lease is current. Pure. */
export function leaderOf(lease: V1Lease | undefined, now: Date): LeaderView | undefined {
  const spec = lease?.spec;
  const holder = spec?.holderIdentity;
  if (spec === undefined || holder === undefined || holder === '') return undefined;
  const renewed = spec.renewTime === undefined ? NaN : new Date(spec.renewTime).getTime();
  const fresh = Number.isFinite(renewed) && now.getTime() - renewed <= (spec.leaseDurationSeconds ?? 15) * 1000;
  // Identities are `host_pid` (operator/operator.ts).
  const host = holder.includes('_') ? holder.slice(0, holder.lastIndexOf('_')) : holder;
  return { instanceId: holder, host, status: fresh ? 'active' : 'inactive', startedAt: iso(spec.acquireTime) };
}

export function clusterInfoRoutes(app: FastifyInstance, deps: AppDeps): void {
  const cluster = (): Cluster => need(deps.cluster);
  const read = { permission: 'read' as const };
  const leader = (): LeaderView | undefined => {
    const c = cluster();
    return leaderOf(c.cache.operatorLease.list()[0], deps.clock());
  };

  app.get('/queues', { config: read, schema: { tags: ['queues'], response: { 200: S.queues } } }, () => {
    const c = cluster();
    const ns = c.cache.namespace;
    return { queues: queues({ queues: c.cache.queues.list(ns), runs: c.cache.runs.list(ns), dagQueue: queueName }) };
  });

  app.get('/workers', { config: read, schema: { tags: ['workers'], querystring: Type.Object({ remoteNode: Type.Optional(Type.String()) }), response: { 200: S.workers } } }, () => {
    const c = cluster();
    if (!c.cache.nodes.hasSynced()) throw new ApiError('service_unavailable', 'the list of nodes is not available yet');
    const ns = c.cache.namespace;
    const list = workers({ nodes: c.cache.nodes.list(), leases: c.cache.nodeLeases.list(), pods: c.cache.pods.list(ns), runs: (name, namespace) => c.cache.runs.get(namespace, name), now: deps.clock() });
    return { workers: list, errors: [] };
  });

  app.get('/services/scheduler', { config: read, schema: { tags: ['system'], response: { 200: Type.Object({ schedulers: Type.Array(Type.Object({ instanceId: Type.String(), host: Type.String(), status: Type.String(), startedAt: Type.String() })) }) } } }, () => {
    const found = leader();
    return { schedulers: found === undefined ? [] : [found] };
  });

  app.get('/services/coordinator', { config: read, schema: { tags: ['system'], response: { 200: Type.Object({ coordinators: Type.Array(Type.Object({ instanceId: Type.String(), host: Type.String(), port: Type.Integer(), status: Type.String(), startedAt: Type.String() })) }) } } }, () => {
    // The operator hands work to nodes (the contract's coordinator role); its leader is the one.
    const found = leader();
    return { coordinators: found === undefined ? [] : [{ ...found, port: 0 }] };
  });
}

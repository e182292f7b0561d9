/**
 * Dagu 2.x's /api/v1, registered under its prefix as one encapsulated plugin: the same route
 * groups as /api/v2 (registered again, so every handler, permission, audit rule and error is
 * shared), their answers reshaped at the edge (edges.ts) and the paged lists' handlers replaced
 * (lists.ts); then what v1 alone has (runs.ts, lists.ts), the event stream (events.ts) and the
 * operations Kubedag does not serve (not-served.ts). Authentication and audit are the app's root
 * hooks, so they apply here exactly as under /api/v2.
 */
import type { FastifyPluginCallback, RouteOptions } from 'fastify';
import type { Registry } from 'prom-client';
import type { ResourceRouteOptions } from '../deps.ts';
import { documentFor } from '../documents.ts';
import { V1_PREFIX } from '../paths.ts';
import { clusterInfoRoutes } from '../routes/cluster-info.ts';
import { dagRoutes } from '../routes/dags.ts';
import { executionRoutes } from '../routes/execution.ts';
import { logRoutes } from '../routes/logs.ts';
import { runRoutes } from '../routes/runs.ts';
import { systemRoutes } from '../routes/system.ts';
import { applyEdge, edgeKey } from './edges.ts';
import { v1DownloadRoutes } from './downloads.ts';
import { eventRoutes } from './events.ts';
import { listOverrides, v1ListRoutes } from './lists.ts';
import { notServedRoutes } from './not-served.ts';
import { v1RunRoutes } from './runs.ts';
import { v1ArtifactRoutes } from './artifacts.ts';
import { v1SearchRoutes } from './search-routes.ts';
import { v1StartSyncRoutes } from './start-sync.ts';
import { applyUnsupportedFields } from './unsupported-fields.ts';

export interface V1Options extends ResourceRouteOptions {
  readonly version: string;
  readonly health: () => Promise<string | undefined>;
  readonly metrics: Registry;
}

export const v1Api: FastifyPluginCallback<V1Options> = (app, options, done) => {
  const { cluster, clock } = options;
  const overrides = listOverrides(cluster);
  app.addHook('onRoute', (route: RouteOptions) => {
    applyEdge(route, V1_PREFIX);
    applyUnsupportedFields(route, V1_PREFIX);
    const override = overrides[edgeKey(route, V1_PREFIX)];
    if (override === undefined) return;
    const schema = (route.schema ?? {}) as {
      response?: Record<string, unknown>;
      querystring?: { properties?: Record<string, unknown> };
    };
    // The root hooks have documented `remoteNode` on the v2 query already (the configured nodes): kept.
    const remoteNode = schema.querystring?.properties?.remoteNode;
    const querystring =
      remoteNode === undefined
        ? override.querystring
        : { ...override.querystring, properties: { ...override.querystring.properties, remoteNode } };
    route.schema = { ...route.schema, querystring, response: { ...schema.response, 200: override.response } };
    route.handler = override.handler;
  });
  const resources: ResourceRouteOptions = { cluster, clock };
  void app.register(systemRoutes, {
    version: options.version,
    clock,
    health: options.health,
    metrics: options.metrics,
    document: (full) => documentFor(full, 'v1'),
  });
  void app.register(dagRoutes, resources);
  void app.register(executionRoutes, resources);
  void app.register(runRoutes, resources);
  void app.register(v1RunRoutes, resources);
  void app.register(v1ArtifactRoutes, resources);
  void app.register(v1SearchRoutes, resources);
  void app.register(v1DownloadRoutes, resources);
  void app.register(v1StartSyncRoutes, resources);
  void app.register(logRoutes, resources);
  void app.register(clusterInfoRoutes, resources);
  void app.register(v1ListRoutes, resources);
  void app.register(eventRoutes, resources);
  void app.register(notServedRoutes);
  done();
};

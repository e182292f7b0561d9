/**
 * The API server as a fastify instance, built apart from `listen` so that tests drive it with
 * `inject`. Every answer that is not a success is the contract's `{code, message, details?}`:
 * malformed JSON, schema violations, oversized bodies and unknown routes included; only a
 * fault of ours is a 500.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import swagger from '@fastify/swagger';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type RouteOptions,
} from 'fastify';
import type { Registry } from 'prom-client';
import { silentLogger } from '../core/log.ts';
import { NO_CLUSTER } from './cluster.ts';
import type { AppDeps, ResourceRouteOptions } from './deps.ts';
import { NO_AUDIT, registerAudit } from './audit.ts';
import { registerCaller } from './caller.ts';
import { ApiError, ERROR_STATUS, type ErrorCode } from './errors.ts';
import { LINKS, V1_LINKS, withLinks } from './links.ts';
import { serializerFactory, validatorFor } from './compiled-schemas.ts';
import { methodNotAllowedRoutes } from './methods.ts';
import { allowMissingBody, withOptionalBodies } from './optional-bodies.ts';
import { apiMetrics } from './metrics.ts';
import { API_PREFIX, V1_PREFIX } from './paths.ts';
import { mapV2Statuses } from './v2-statuses.ts';
import { documentFor } from './documents.ts';
import { v1Api } from './v1/api.ts';
import './permissions.ts';
import { documentRemoteNode } from './remote.ts';
import { clusterInfoRoutes } from './routes/cluster-info.ts';
import { dagRoutes } from './routes/dags.ts';
import { executionRoutes } from './routes/execution.ts';
import { logRoutes } from './routes/logs.ts';
import { runRoutes } from './routes/runs.ts';
import { systemRoutes } from './routes/system.ts';
import { documentRoute, ERROR_SCHEMA_ID } from './responses.ts';
import { S } from './schemas.ts';
import { uiRoutes } from './ui.ts';

/** What fastify's own errors mean in the contract's codes. */
function fromFastify(error: FastifyError): ApiError {
  if (error.validation !== undefined) return new ApiError('bad_request', error.message);
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return new ApiError('bad_request', 'request body too large', { status: 413 });
  if (
    error instanceof SyntaxError ||
    error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    error.code === 'FST_ERR_CTP_INVALID_JSON_BODY'
  )
    return new ApiError('bad_request', `malformed JSON: ${error.message}`);
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return new ApiError('bad_request', 'the request body must be JSON');
  const status = error.statusCode ?? 500;
  const code = (Object.entries(ERROR_STATUS).find(([, s]) => s === status)?.[0] ?? 'internal_error') as ErrorCode;
  return new ApiError(status < 500 ? code : 'internal_error', status < 500 ? error.message : 'internal error', {
    status: status < 500 ? status : 500,
  });
}

/** Longest path parameter the router takes, as sent (percent-encoded); a longer one is a bad request. */
export const MAX_PARAM_LENGTH = 512;

/** What an incoming `x-request-id` may look like to be kept; anything else is replaced. */
const REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

/**
 * A request's id in every log line about it: the caller's `x-request-id` when it sent one (a
 * proxy or client that logs it too), so that one id follows a request across programs.
 */
export function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * Requests are logged at debug level, where fastify logs them at info: dashboards poll the API
 * every few seconds, and a line per poll would bury everything else at the default level. A
 * request that failed on the way out, and fastify's other lines, keep their levels.
 */
class RequestLog extends LogController {
  override incomingRequest(): void {
    // The completed line says all there is to say about a request.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error !== null && error !== undefined) {
      super.requestCompleted(error, request, reply);
      return;
    }
    request.log.debug(
      { method: request.method, url: request.url, statusCode: reply.statusCode, responseTime: reply.elapsedTime },
      'request completed',
    );
  }
}

/** fastify's trustProxy; a number of hops as the function fastify would make of it (its types take no number). */
function trustProxyOption(
  trust: AppDeps['trustProxy'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return typeof trust === 'object' ? [...trust] : (trust ?? false);
}

/** The fastify instance with the server-wide options: body limit, logging, proxies, the router's limits. */
function createFastify(deps: AppDeps): FastifyInstance {
  // Typed as fastify's own logger so that the app's type stays the one plugins are written for.
  const loggerInstance: FastifyBaseLogger = deps.logger ?? silentLogger;
  return Fastify({
    bodyLimit: deps.bodyLimit ?? 1_048_576,
    // A body's fields that its schema does not define are ignored (schemas.ts requestBody), and
    // `__proto__` or `constructor.prototype` are such fields: dropped as JSON is parsed, which
    // keeps them from any object's prototype, rather than the whole body refused as malformed.
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
    loggerInstance,
    genReqId: requestId,
    // Serializers compiled once per schema in the process (compiled-schemas.ts).
    schemaController: { compilersFactory: { buildSerializer: serializerFactory } },
    logController: new RequestLog({ requestIdLogLabel: 'requestId' }),
    // request.ip from X-Forwarded-For only when the peer is a proxy trusted to set it (config.ts).
    trustProxy: trustProxyOption(deps.trustProxy),
    // Names in paths are at most 64 characters (run ids); room for them percent-encoded.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // A URL the router cannot read (bad percent-encoding, a path parameter over the limit) is
    // answered before any route is chosen, by default in fastify's own shape and with a 414.
    frameworkErrors: (error, _request, reply) => {
      const message =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? `a path parameter is longer than ${String(MAX_PARAM_LENGTH)} characters`
          : 'the URL is malformed (invalid percent-encoding)';
      // Typed by fastify for no route in particular; this is a plain reply.
      void (reply as FastifyReply).code(400).send(new ApiError('bad_request', message).body());
    },
  });
}

/** Every answer that is not a success in the contract's error shape, unknown routes included. */
function answerErrors(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const api = error instanceof ApiError ? error : fromFastify(error);
    // A 501 is an answer about an operation Kubedag does not serve (v1/not-served.ts), not a fault.
    if (api.status >= 500 && api.code !== 'not_implemented')
      request.log.error({ err: error }, `${api.code}: ${error.message}`);
    return reply.code(api.status).send(api.body());
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send(new ApiError('not_found', `no route ${request.method} ${request.url.split('?')[0] ?? ''}`).body()),
  );
}

/**
 * Every route as it is registered, documented in the OpenAPI document as it comes (after
 * deps.plugins, which may turn authentication on); the list is what 405 answers are made from.
 */
function collectRoutes(app: FastifyInstance): readonly RouteOptions[] {
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    // remoteNode first: the relay runs before every route, so every operation takes it.
    documentRemoteNode(route);
    allowMissingBody(route);
    mapV2Statuses(route);
    documentRoute(route, {
      ...(app.apiSecurity === undefined ? {} : { securitySchemes: app.apiSecurity }),
      ...(app.remoteNodeNames === undefined ? {} : { remoteNodes: app.remoteNodeNames }),
    });
    routes.push(route);
  });
  return routes;
}

/** The OpenAPI document; after the plugins, so that authentication has named its security schemes. */
function registerDocument(app: FastifyInstance, version: string): void {
  app.addSchema({ $id: ERROR_SCHEMA_ID, ...S.error });
  void app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Kubedag API', version, description: "Dagu's /api/v2 over Kubernetes resources" },
      servers: [{ url: '/' }],
      ...(app.apiSecurity === undefined ? {} : { components: { securitySchemes: { ...app.apiSecurity } } }),
    },
    // Shared schemas keep their $id as their name under components.schemas (#/components/schemas/Error).
    refResolver: {
      buildLocalReference: (json, _base, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${String(i)}`,
    },
    transformObject: (document) =>
      'openapiObject' in document
        ? withOptionalBodies(withLinks(document.openapiObject, [...LINKS, ...V1_LINKS]))
        : document.swaggerObject,
  });
}

/** Both APIs' route groups, each a plugin given what it uses, in the OpenAPI document's order. */
function registerApis(app: FastifyInstance, deps: AppDeps, metrics: Registry, routes: readonly RouteOptions[]): void {
  const resources: ResourceRouteOptions & { prefix: string } = {
    prefix: API_PREFIX,
    cluster: deps.cluster ?? NO_CLUSTER,
    clock: deps.clock,
  };
  void app.register(systemRoutes, {
    prefix: API_PREFIX,
    version: deps.version,
    clock: deps.clock,
    health: deps.health,
    metrics,
    document: (full) => documentFor(full, 'v2'),
  });
  void app.register(dagRoutes, resources);
  void app.register(executionRoutes, resources);
  void app.register(runRoutes, resources);
  void app.register(logRoutes, resources);
  void app.register(clusterInfoRoutes, resources);
  // Dagu 2.x's API from the same handlers (v1/api.ts); after v2's, so v2's document keeps its order.
  void app.register(v1Api, {
    prefix: V1_PREFIX,
    cluster: resources.cluster,
    clock: deps.clock,
    version: deps.version,
    health: deps.health,
    metrics,
  });
  if (deps.uiDir !== undefined) void app.register(uiRoutes, { root: deps.uiDir });
  // Last: it needs every other route.
  void app.register(methodNotAllowedRoutes, { routes: () => routes, under: API_PREFIX });
  void app.register(methodNotAllowedRoutes, { routes: () => routes, under: V1_PREFIX });
}

export function buildApp(deps: AppDeps): FastifyInstance {
  const app = createFastify(deps);
  // Body strictness and text coercion: compiled-schemas.ts.
  app.setValidatorCompiler(validatorFor);
  answerErrors(app);
  const routes = collectRoutes(app);
  const metrics = apiMetrics({
    version: deps.version,
    buildDate: deps.buildDate ?? '',
    clock: deps.clock,
    cluster: () => deps.cluster,
  });
  metrics.observe(app);
  // Before the plugins: authentication sets who the caller is (caller.ts).
  registerCaller(app);
  // Before authentication: a 401 is audited and carries its request id too.
  registerAudit(app, deps.audit ?? NO_AUDIT);
  for (const plugin of deps.plugins ?? []) plugin(app);
  registerDocument(app, deps.version);
  registerApis(app, deps, metrics.registry, routes);
  return app;
}

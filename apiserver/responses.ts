/**
 * Every route's error answers in the OpenAPI document, worked out in one place: what any route
 * of its shape can answer (a malformed request, missing credentials, no cluster, a remote node
 * that cannot be reached, a fault of ours) and the codes the route declares its handlers throw
 * (`config.errors`). Each status is documented with the contract's error object, its `code`
 * narrowed to the codes that status stands for on that route, so a client (and schemathesis)
 * can tell what a 409 means there. route-errors.test.ts checks the declarations against the
 * throws its handlers can reach; the 405 answers of undeclared methods are methods.ts's.
 */
import type { Readable } from 'node:stream';
import type { FastifyReply, preSerializationHookHandler, RouteOptions } from 'fastify';
import { ERROR_STATUS, type ErrorCode } from './errors.ts';
import type { Permission } from './permissions.ts';

/**
 * A code a route's handlers may throw, as `code` when it is answered with its registered status,
 * or `code@status` where the throw site picks the contract's other status (already_running is
 * 409 on start and 400 on retry).
 */
export type RouteError = ErrorCode | `${ErrorCode}@${number}`;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The codes this route's handlers throw; what every route of its shape answers is added (routeErrors). */
    errors?: readonly RouteError[];
  }
}

/** What decides the error answers a route has beyond its own. */
export interface RouteShape {
  readonly permission: Permission;
  readonly errors: readonly RouteError[];
  /** It has path parameters, a query string or a body that are validated. */
  readonly validated: boolean;
  readonly body: boolean;
  /** Its query string names `remoteNode`, so it can be relayed to another node. */
  readonly remoteNode: boolean;
}

/** An OpenAPI security scheme of the HTTP kind: what the configured authentication accepts. */
export interface SecurityScheme {
  readonly type: 'http';
  readonly scheme: 'basic' | 'bearer';
}

/** What the served document knows of the server's configuration. */
export interface DocumentContext {
  /** Set when credentials are checked: routes that are not public then need one of these and can answer 401 and 403. */
  readonly securitySchemes?: Readonly<Record<string, SecurityScheme>>;
  /** The configured remote nodes: what `remoteNode` may name besides this server. */
  readonly remoteNodes?: readonly string[];
}

/** `remoteNode` as this server accepts it: empty or `local` for here, else a configured node (any other is a 400). */
export function remoteNodeSchema(declared: object, nodes: readonly string[]): Record<string, unknown> {
  return { ...declared, enum: ['', 'local', ...nodes] };
}

export function parseRouteError(declared: RouteError): { code: ErrorCode; status: number } {
  const [code, status] = declared.split('@') as [ErrorCode, string | undefined];
  return { code, status: status === undefined ? ERROR_STATUS[code] : Number(status) };
}

/** Status -> the codes answered with it, sorted, for one route. Pure. */
export function routeErrors(shape: RouteShape, context: DocumentContext): ReadonlyMap<number, readonly ErrorCode[]> {
  const answers: { code: ErrorCode; status: number }[] = [
    // Anything not foreseen is a 500 that hides its details (app.ts's error handler).
    { code: 'internal_error', status: 500 },
    ...shape.errors.map(parseRouteError),
  ];
  if (shape.validated) answers.push({ code: 'bad_request', status: 400 });
  // Malformed JSON, another media type, or a body over the limit (413).
  if (shape.body) answers.push({ code: 'bad_request', status: 400 }, { code: 'bad_request', status: 413 });
  if (shape.permission !== 'public') {
    // Resource routes read the cluster: without it (or a TokenReview that fails) they cannot answer.
    answers.push({ code: 'service_unavailable', status: 503 });
    if (context.securitySchemes !== undefined)
      answers.push({ code: 'unauthorized', status: 401 }, { code: 'forbidden', status: 403 });
  }
  // remote.ts: an unknown node is a bad request; an unreachable or misbehaving one a 502.
  if (shape.remoteNode)
    answers.push(
      { code: 'bad_request', status: 400 },
      { code: 'remote_node_error', status: 502 },
      { code: 'bad_gateway', status: 502 },
    );
  const byStatus = new Map<number, Set<ErrorCode>>();
  for (const { code, status } of answers) byStatus.set(status, (byStatus.get(status) ?? new Set()).add(code));
  return new Map([...byStatus].sort(([a], [b]) => a - b).map(([status, codes]) => [status, [...codes].sort()]));
}

interface RouteSchema {
  params?: unknown;
  querystring?: { properties?: Record<string, object> };
  body?: unknown;
  response?: Record<string, unknown>;
  hide?: boolean;
}

/** The shape of a route as fastify is given it. */
export function shapeOf(route: Pick<RouteOptions, 'config' | 'schema'>): RouteShape {
  const schema = (route.schema ?? {}) as RouteSchema;
  return {
    permission: route.config?.permission ?? 'read',
    errors: route.config?.errors ?? [],
    validated: schema.params !== undefined || schema.querystring !== undefined || schema.body !== undefined,
    body: schema.body !== undefined,
    remoteNode: schema.querystring?.properties?.remoteNode !== undefined,
  };
}

/** The shared schema of the contract's error object, registered with `app.addSchema`. */
export const ERROR_SCHEMA_ID = 'Error';

/**
 * The response schema of one error status: the error object, its code one of `codes`. Always
 * JSON, whatever the route's success answers are (metrics is text/plain), so the media type is
 * given rather than taken from the route's `produces`.
 */
export function errorResponse(codes: readonly ErrorCode[]): Record<string, unknown> {
  const schema = {
    allOf: [{ $ref: `${ERROR_SCHEMA_ID}#` }, { type: 'object', properties: { code: { type: 'string', enum: codes } } }],
  };
  return {
    description: `The contract's error object; code ${codes.length === 1 ? (codes[0] ?? '') : `one of ${codes.join(', ')}`}.`,
    content: { 'application/json': { schema } },
  };
}

/**
 * An `onRoute` hook's work: the route's error statuses added to its response schemas, and the
 * credentials it needs. A status the route documents itself (health's 503, which answers the
 * health object) is left as it is.
 */
export function documentRoute(route: RouteOptions, context: DocumentContext): void {
  const schema = (route.schema ?? {}) as RouteSchema;
  if (schema.hide === true) return;
  const shape = shapeOf(route);
  const response = { ...schema.response };
  for (const [status, codes] of routeErrors(shape, context)) {
    response[String(status)] ??= errorResponse(codes);
  }
  const schemes = context.securitySchemes;
  // Any one of the schemes will do.
  const security =
    schemes !== undefined && shape.permission !== 'public'
      ? { security: Object.keys(schemes).map((name) => ({ [name]: [] })) }
      : {};
  const query = schema.querystring;
  // A copy: query schemas are shared between routes.
  const querystring =
    shape.remoteNode && query !== undefined
      ? {
          querystring: {
            ...query,
            properties: {
              ...query.properties,
              remoteNode: remoteNodeSchema(query.properties?.remoteNode ?? {}, context.remoteNodes ?? []),
            },
          },
        }
      : {};
  route.schema = { ...route.schema, response, ...security, ...querystring };
}

/**
 * Sends JSON text from a stream (a listing written as it is read, never whole in memory). The
 * route's typed reply accepts only its declared body; the stream's text has exactly that shape
 * (the caller's duty), and fastify sends a stream as it is, without its serialiser.
 */
export function sendJsonStream(reply: { type(contentType: string): unknown }, stream: Readable): void {
  void (reply as unknown as FastifyReply).type('application/json; charset=utf-8').send(stream);
}

/**
 * Adds `hook` after the route's own preSerialization hooks: the shapes an answer is given at the
 * edge (/api/v1's, /api/v2's statuses) apply to what the handler answered.
 */
export function appendPreSerialization(route: RouteOptions, hook: preSerializationHookHandler): void {
  const hooks = route.preSerialization;
  route.preSerialization = hooks === undefined ? [hook] : [...[hooks].flat(), hook];
}

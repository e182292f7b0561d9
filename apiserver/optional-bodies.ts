/**
 * A request body whose schema requires no field may be left out, and is then read as `{}`: the
 * contract's bodies of start, enqueue, retry and reschedule are all optional fields (Dagu's own
 * document marks retry's and reschedule's bodies optional), and a client that has nothing to say
 * sends nothing. fastify requires a body wherever a route has a body schema, and
 * @fastify/swagger documents every body as required for that reason, so both are corrected here
 * from the one schema: the route reads a missing body as `{}`, and the document says
 * `required: false` for exactly those bodies. A body that is sent is checked as before (`null`,
 * a list or malformed JSON stay 400).
 */
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

/** True when an object schema names no required property. Pure. */
export function requiresNothing(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  const { type, required } = schema as { type?: unknown; required?: unknown };
  return type === 'object' && (!Array.isArray(required) || required.length === 0);
}

/** An `onRoute` hook's work: a route whose body requires nothing reads a missing body as `{}`. */
export function allowMissingBody(route: RouteOptions): void {
  const body = route.schema?.body;
  if (!requiresNothing(body)) return;
  // A route hook, so it runs after the root ones: remote.ts relays the request as it came.
  const fill = (request: FastifyRequest, _reply: FastifyReply, done: () => void): void => {
    // Left out, not sent as `null`: fastify leaves the body undefined only when there was none.
    if (request.body === undefined) request.body = {};
    done();
  };
  const hooks = route.preValidation;
  route.preValidation = hooks === undefined ? [fill] : [...[hooks].flat(), fill];
}

interface Operation {
  requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> };
}

/** The document with its request bodies that require nothing marked optional. Pure. */
export function withOptionalBodies<D extends object>(document: D): D {
  // Typed loosely, as in links.ts: @fastify/swagger's document types differ between OpenAPI versions.
  const paths = structuredClone((document as { paths?: Record<string, Record<string, Operation>> }).paths ?? {});
  for (const methods of Object.values(paths)) {
    for (const operation of Object.values(methods)) {
      const body = operation.requestBody;
      if (body !== undefined && Object.values(body.content ?? {}).every((media) => requiresNothing(media.schema)))
        body.required = false;
    }
  }
  return { ...document, paths };
}

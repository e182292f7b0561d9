/**
 * A known path asked with a method it does not have answers 405 with `Allow`, in the contract's
 * error shape with code `method_not_allowed` (the contract has no code for it; Dagu answers 404
 * or 405 depending on its router). Registered after every other route: each API path gets a
 * route for the methods it lacks, so fastify's own router decides what is known, and fixed
 * paths (`/dags/search`) are resources of their own, never the `{fileName}` route of a method
 * they lack. Unknown paths keep their 404. Credentials are checked first, as for unknown
 * paths; a `remoteNode` is not relayed, since the method is this API's, not the remote's.
 */
import type { FastifyPluginCallback, RouteOptions } from 'fastify';
import { ApiError } from './errors.ts';
import type { Permission } from './permissions.ts';

export interface PathMethods {
  readonly url: string;
  readonly methods: ReadonlySet<string>;
  /** Public when every route of the path is, so that no credentials are asked where none are needed. */
  readonly permission: Permission;
}

/** The routes' paths with the methods each has, for the paths under `prefix`. Pure. */
export function pathMethods(
  routes: readonly Pick<RouteOptions, 'url' | 'method' | 'config'>[],
  prefix: string,
): PathMethods[] {
  const paths = new Map<string, { methods: Set<string>; permissions: Set<Permission> }>();
  for (const route of routes) {
    // Catch-alls (`/api/*`) are the not-found answers of a whole subtree, not resources.
    if (!route.url.startsWith(prefix) || route.url.includes('*')) continue;
    const entry = paths.get(route.url) ?? { methods: new Set(), permissions: new Set() };
    for (const method of [route.method].flat()) entry.methods.add(method.toUpperCase());
    entry.permissions.add(route.config?.permission ?? 'read');
    paths.set(route.url, entry);
  }
  return [...paths].map(([url, { methods, permissions }]) => ({
    url,
    methods,
    permission: [...permissions].every((p) => p === 'public') ? 'public' : 'read',
  }));
}

/** The `Allow` header of a path: its methods, HEAD beside GET. Pure. */
export function allowHeader(methods: ReadonlySet<string>): string {
  const allowed = new Set(methods);
  if (allowed.has('GET')) allowed.add('HEAD');
  const order = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'QUERY', 'TRACE'];
  const rank = (method: string): number => (order.includes(method) ? order.indexOf(method) : order.length);
  return [...allowed].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).join(', ');
}

export interface MethodsOptions {
  readonly routes: () => readonly Pick<RouteOptions, 'url' | 'method' | 'config'>[];
  /** The paths looked at (not `prefix`, which fastify would put before every route registered here). */
  readonly under: string;
}

/** Registers the 405 routes; register it after every other route, at the root. */
export const methodNotAllowedRoutes: FastifyPluginCallback<MethodsOptions> = (app, { routes, under }, done) => {
  // Every method fastify routes (OPTIONS, TRACE and QUERY included: none is served here), but
  // HEAD, which fastify adds beside each GET (the 405 route's GET too).
  const methods = app.supportedMethods.filter((m) => m !== 'HEAD');
  for (const path of pathMethods(routes(), under)) {
    const missing = methods.filter((m) => !path.methods.has(m));
    if (missing.length === 0) continue;
    const allow = allowHeader(path.methods);
    app.route({
      method: missing,
      url: path.url,
      config: { permission: path.permission },
      schema: { hide: true },
      // Answered before the body is read (so a malformed one does not turn the 405 into a 400)
      // and before remote.ts's preValidation hook could relay it.
      onRequest: async (request, reply) => {
        const error = new ApiError(
          'method_not_allowed',
          `${request.method} is not allowed on ${path.url}; allowed: ${allow}`,
          { details: { allow: allow.split(', ') } },
        );
        return reply.code(error.status).header('allow', allow).send(error.body());
      },
      handler: () => undefined,
    });
  }
  done();
};

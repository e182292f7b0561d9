/**
 * Who made a request, as authentication found out: the identity that audit records name and
 * that the resources a request writes carry (`kubedag.io/requested-by`). Set by the
 * authentication hook (auth.ts) on every request it admits; `anonymous` when no mode is on or
 * the route is public.
 */
import type { FastifyInstance } from 'fastify';

/** How the caller proved who they are. */
export type CallerMethod = 'none' | 'basic' | 'token' | 'kubernetes' | 'oidc';

export interface Caller {
  /** The user name: a Basic user, `token:<first characters of its digest>` for a static token, a Kubernetes or OIDC user. */
  readonly user: string;
  readonly groups: readonly string[];
  readonly method: CallerMethod;
}

export const ANONYMOUS: Caller = Object.freeze({ user: 'anonymous', groups: [], method: 'none' });

declare module 'fastify' {
  interface FastifyRequest {
    /** Who made the request (caller.ts). */
    caller: Caller;
  }
}

/** Every request starts anonymous; the authentication hook, added after this one, replaces it. */
export function registerCaller(app: FastifyInstance): void {
  // Fastify shares a decorator's initial object between requests, so it takes none: each request is given one.
  app.decorateRequest('caller', null as unknown as Caller);
  app.addHook('onRequest', (request, _reply, done) => {
    request.caller = ANONYMOUS;
    done();
  });
}

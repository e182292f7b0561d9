/**
 * The sign-in endpoints, outside /api/v2 since the contract names none
 * (docs/decisions/2026-11-29-oidc.md): GET /auth/oidc/login, GET /auth/oidc/callback,
 * POST /auth/logout and GET /auth/me (who is signed in, or how to sign in). All are public in
 * the route table: each checks what it needs itself.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseCookie, stringifySetCookie } from 'cookie';
import { ApiError } from '../errors.ts';
import { csrfAllowed, permissionsOf, safeNext } from './policy.ts';
import type { OidcProvider, SessionRead } from './provider.ts';
import { FLOW_COOKIE, SESSION_COOKIE, seal, unseal, type Flow } from './session.ts';

/** How long a browser may take at the provider's login page. */
const FLOW_SECONDS = 600;

export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  return header === undefined ? undefined : parseCookie(header)[name];
}

/** Sets (or, with value undefined, clears) a cookie with the attributes every Kubedag cookie has. */
export function setCookie(
  reply: FastifyReply,
  provider: OidcProvider,
  name: string,
  value: string | undefined,
  maxAge?: number,
): void {
  // Lax, not Strict: the provider's redirect back to the callback is a cross-site navigation that must carry the flow cookie.
  const text = stringifySetCookie({
    name,
    value: value ?? '',
    httpOnly: true,
    secure: provider.config.secureCookie,
    sameSite: 'lax',
    path: '/',
    maxAge: value === undefined ? 0 : maxAge,
  });
  const previous = reply.getHeader('set-cookie');
  const list = previous === undefined ? [] : Array.isArray(previous) ? previous : [String(previous)];
  void reply.header('set-cookie', [...list, text]);
}

/** Reads the session cookie, renewing it (refresh) or clearing it (invalid) on the reply. */
export async function readSession(
  request: FastifyRequest,
  reply: FastifyReply,
  provider: OidcProvider,
): Promise<SessionRead> {
  const read = await provider.read(cookieOf(request, SESSION_COOKIE));
  if (read.outcome === 'invalid') setCookie(reply, provider, SESSION_COOKIE, undefined);
  if (read.outcome === 'valid' && read.renewed !== undefined)
    setCookie(reply, provider, SESSION_COOKIE, read.renewed, read.session.ends - Math.floor(Date.now() / 1000));
  return read;
}

const fail = (
  reply: FastifyReply,
  kind: 'bad_request' | 'unauthorized' | 'forbidden',
  message: string,
): FastifyReply => {
  const error = new ApiError(kind, message);
  return reply.code(error.status).send(error.body());
};

export function registerOidcRoutes(
  app: FastifyInstance,
  provider: OidcProvider,
  options: { kubernetes: boolean },
): void {
  const config = { permission: 'public' as const };
  const signIn = { name: provider.config.providerName, login: '/auth/oidc/login' };

  app.get('/auth/oidc/login', { config }, async (request, reply) => {
    const next = safeNext((request.query as Record<string, string | undefined>).next);
    const { url, flow } = await provider.authorizationUrl(next);
    setCookie(
      reply,
      provider,
      FLOW_COOKIE,
      await seal(flow, provider.flowKey, Math.floor(Date.now() / 1000) + FLOW_SECONDS),
      FLOW_SECONDS,
    );
    return reply.redirect(url.toString(), 302);
  });

  app.get('/auth/oidc/callback', { config }, async (request, reply) => {
    const flow = await unseal<Flow>(cookieOf(request, FLOW_COOKIE), provider.flowKey);
    // The flow is used once, whatever happens next.
    setCookie(reply, provider, FLOW_COOKIE, undefined);
    if (flow === undefined)
      return fail(
        reply,
        'bad_request',
        'sign-in failed: the sign-in started too long ago or in another browser; start again at /auth/oidc/login',
      );
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
    let text: string | undefined;
    try {
      text = await provider.sealed(await provider.callback(query, flow));
    } catch (error) {
      request.log.warn({ err: error }, 'OIDC callback refused');
      return fail(reply, 'bad_request', `sign-in failed: ${(error as Error).message}`);
    }
    if (text === undefined)
      return fail(reply, 'bad_request', 'sign-in failed: the identity is too large for a session cookie');
    setCookie(reply, provider, SESSION_COOKIE, text, provider.config.sessionTtlSeconds);
    return reply.redirect(flow.next, 302);
  });

  app.post('/auth/logout', { config }, async (request, reply) => {
    if (!csrfAllowed(request.method, request.headers.origin, request.headers.referer, provider.origin))
      return fail(reply, 'forbidden', `sign-out must come from ${provider.origin}`);
    const read = await provider.read(cookieOf(request, SESSION_COOKIE));
    // The route is public, so authentication named nobody; the audit record of a sign-out names who left.
    if (read.outcome === 'valid')
      request.caller = { user: read.session.user, groups: read.session.groups, method: 'oidc' };
    setCookie(reply, provider, SESSION_COOKIE, undefined);
    const redirect = await provider.logout(read.outcome === 'valid' ? read.session : undefined, `${provider.origin}/`);
    return reply.send({ redirect });
  });

  app.get('/auth/me', { config }, async (request, reply) => {
    const read = await readSession(request, reply, provider);
    if (read.outcome !== 'valid')
      return reply.code(401).send({
        ...new ApiError('unauthorized', read.outcome === 'none' ? 'not signed in' : read.message).body(),
        oidc: signIn,
      });
    const { user, groups, claimValues } = read.session;
    // With mode kubernetes the cluster decides per request; the mapping's answer would mislead.
    const permissions = options.kubernetes ? null : [...permissionsOf(claimValues, provider.config.permissions)];
    return reply.send({ user, groups, method: 'oidc', permissions, oidc: signIn });
  });
}

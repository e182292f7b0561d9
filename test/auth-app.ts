import type { V1SubjectAccessReview, V1TokenReview } from '@kubernetes/client-node';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../apiserver/app.ts';
import { registerAuth, type AuthOptions } from '../apiserver/auth.ts';
import type { KubernetesAuth } from '../apiserver/kubernetes-review.ts';

/** An app with auth and one probe route per permission, plus one that declares none. */
export function app(options: AuthOptions): FastifyInstance {
  const plugin = (scope: FastifyInstance): void => {
    registerAuth(scope, options);
  };
  const built = buildApp({
    version: 't',
    clock: () => new Date(),
    health: () => Promise.resolve(undefined),
    plugins: [plugin],
  });
  for (const permission of ['public', 'read', 'run', 'write', 'delete'] as const) {
    built.get(`/api/v2/probe/${permission}`, { config: { permission } }, () => ({ ok: permission }));
  }
  built.get('/api/v2/probe/undeclared', () => ({ ok: 'undeclared' }));
  built.get('/api/v2/probe/caller', { config: { permission: 'read' } }, (request) => request.caller);
  return built;
}

export const basicHeader = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

export async function call(
  built: FastifyInstance,
  url: string,
  authorization?: string,
): Promise<{ status: number; body: unknown; challenge: unknown }> {
  const res = await built.inject({
    method: 'GET',
    url,
    ...(authorization === undefined ? {} : { headers: { authorization } }),
  });
  const json = String(res.headers['content-type']).startsWith('application/json');
  return { status: res.statusCode, body: json ? res.json() : res.body, challenge: res.headers['www-authenticate'] };
}

export const both: AuthOptions = {
  basic: [
    { username: 'alice', password: 's3cret' },
    { username: 'bob', password: 'hunter2:with:colons' },
  ],
  tokens: [{ token: 'all-powerful-token' }, { token: 'reader-token', permissions: ['read'] }],
};

/** Kubernetes clients that answer from tables and count their calls. */
export function fakeKubernetes(
  tokens: Record<string, string>,
  allowed: Record<string, string[]>,
  extra: Partial<KubernetesAuth> = {},
): KubernetesAuth & { reviews: V1TokenReview[]; accesses: V1SubjectAccessReview[] } {
  const reviews: V1TokenReview[] = [];
  const accesses: V1SubjectAccessReview[] = [];
  return {
    namespace: 'team-a',
    reviews,
    accesses,
    authentication: {
      createTokenReview: ({ body }) => {
        reviews.push(body);
        const username = tokens[body.spec.token];
        return Promise.resolve({
          ...body,
          status:
            username === undefined
              ? { authenticated: false }
              : {
                  authenticated: true,
                  user: {
                    username,
                    uid: `uid-${username}`,
                    groups: ['system:serviceaccounts'],
                    extra: { scope: ['x'] },
                  },
                },
        });
      },
    },
    authorization: {
      createSubjectAccessReview: ({ body }) => {
        accesses.push(body);
        const attributes = body.spec.resourceAttributes;
        const ok = (allowed[body.spec.user ?? ''] ?? []).includes(
          `${attributes?.verb ?? ''} ${attributes?.resource ?? ''}`,
        );
        return Promise.resolve({ ...body, status: { allowed: ok } });
      },
    },
    ...extra,
  };
}

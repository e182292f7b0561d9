import type { V1SubjectAccessReview, V1TokenReview } from '@kubernetes/client-node';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { buildApp } from './app.ts';
import {
  authEnabled,
  authOptions,
  KUBERNETES_ACCESS,
  registerAuth,
  type AuthOptions,
  type KubernetesAuth,
} from './auth.ts';
import type { AuthConfig } from './config.ts';
import type { Permission } from './permissions.ts';

/** An app with auth and one probe route per permission, plus one that declares none. */
function app(options: AuthOptions): FastifyInstance {
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

const basicHeader = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

async function call(
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

const both: AuthOptions = {
  basic: [
    { username: 'alice', password: 's3cret' },
    { username: 'bob', password: 'hunter2:with:colons' },
  ],
  tokens: [{ token: 'all-powerful-token' }, { token: 'reader-token', permissions: ['read'] }],
};

describe('authentication is off', () => {
  it('when no mode is configured, and every request passes without credentials', async () => {
    expect(authEnabled({})).toBe(false);
    for (const permission of ['read', 'run', 'write', 'delete', 'undeclared']) {
      expect((await call(app({}), `/api/v2/probe/${permission}`)).status).toBe(200);
    }
  });
});

describe('Basic and Bearer credentials', () => {
  const cases: { name: string; url: string; authorization?: string; status: number; challenge?: string }[] = [
    {
      name: 'a known user with the right password passes',
      url: '/api/v2/probe/run',
      authorization: basicHeader('alice', 's3cret'),
      status: 200,
    },
    {
      name: 'a password may contain colons',
      url: '/api/v2/probe/delete',
      authorization: basicHeader('bob', 'hunter2:with:colons'),
      status: 200,
    },
    {
      name: 'the scheme name is case-insensitive',
      url: '/api/v2/probe/read',
      authorization: `bAsIc ${Buffer.from('alice:s3cret').toString('base64')}`,
      status: 200,
    },
    {
      name: 'a wrong password is unauthorized',
      url: '/api/v2/probe/read',
      authorization: basicHeader('alice', 'wrong'),
      status: 401,
    },
    {
      name: "another user's password is unauthorized",
      url: '/api/v2/probe/read',
      authorization: basicHeader('alice', 'hunter2:with:colons'),
      status: 401,
    },
    {
      name: 'an unknown user is unauthorized',
      url: '/api/v2/probe/read',
      authorization: basicHeader('mallory', 's3cret'),
      status: 401,
    },
    { name: 'no Authorization header is unauthorized', url: '/api/v2/probe/read', status: 401 },
    {
      name: 'a known token passes',
      url: '/api/v2/probe/delete',
      authorization: 'Bearer all-powerful-token',
      status: 200,
    },
    {
      name: 'an unknown token is unauthorized',
      url: '/api/v2/probe/read',
      authorization: 'Bearer not-a-token',
      status: 401,
    },
    {
      name: 'a prefix of a known token is unauthorized',
      url: '/api/v2/probe/read',
      authorization: 'Bearer all-powerful',
      status: 401,
    },
    {
      name: 'a token limited to read may read',
      url: '/api/v2/probe/read',
      authorization: 'Bearer reader-token',
      status: 200,
    },
    {
      name: 'a token limited to read may not run, even though Basic users may',
      url: '/api/v2/probe/run',
      authorization: 'Bearer reader-token',
      status: 403,
    },
    {
      name: 'a route that declares no permission needs read',
      url: '/api/v2/probe/undeclared',
      authorization: 'Bearer reader-token',
      status: 200,
    },
    { name: 'a route that declares no permission is not public', url: '/api/v2/probe/undeclared', status: 401 },
    { name: 'a public probe needs no credentials', url: '/api/v2/probe/public', status: 200 },
    { name: 'health needs no credentials', url: '/api/v2/health', status: 200 },
    { name: 'metrics need no credentials', url: '/api/v2/metrics', status: 200 },
    {
      name: 'a public route ignores bad credentials',
      url: '/api/v2/health',
      authorization: 'Bearer nonsense',
      status: 200,
    },
    {
      name: 'an unknown route without credentials is unauthorized rather than not found',
      url: '/api/v2/nope',
      status: 401,
    },
    {
      name: 'an unknown route with credentials is not found',
      url: '/api/v2/nope',
      authorization: 'Bearer reader-token',
      status: 404,
    },
  ];
  it.each(cases)('$name', async ({ url, authorization, status }) => {
    const res = await call(app(both), url, authorization);
    expect(res.status).toBe(status);
    if (status === 401) {
      expect(res.body).toEqual({ code: 'unauthorized', message: expect.any(String) as string });
      expect(res.challenge).toBe('Basic realm="kubedag", Bearer realm="kubedag"');
    }
    if (status === 403) expect(res.body).toEqual({ code: 'forbidden', message: 'the token lacks the run permission' });
  });
});

describe('malformed Authorization headers', () => {
  const headers: { name: string; authorization: string }[] = [
    { name: 'a scheme without credentials', authorization: 'Basic' },
    { name: 'a Bearer scheme without a token', authorization: 'Bearer ' },
    { name: 'Basic credentials that are not base64', authorization: 'Basic %%%notbase64%%%' },
    { name: 'Basic credentials without a colon', authorization: `Basic ${Buffer.from('alice').toString('base64')}` },
    { name: 'an unsupported scheme', authorization: 'Digest username="alice"' },
    { name: 'text that names no scheme', authorization: '!!!' },
    { name: 'a token with spaces in it', authorization: 'Bearer a b c' },
  ];
  it.each(headers)('$name are unauthorized with a JSON body, never a 500', async ({ authorization }) => {
    const res = await call(app(both), '/api/v2/probe/read', authorization);
    expect([res.status, (res.body as { code: string }).code]).toEqual([401, 'unauthorized']);
  });
});

describe('challenges', () => {
  it('name only Basic when only Basic is on', async () => {
    expect((await call(app({ basic: both.basic }), '/api/v2/probe/read')).challenge).toBe('Basic realm="kubedag"');
  });

  it('name only Bearer when only tokens are on, and a Basic header is refused', async () => {
    const res = await call(app({ tokens: both.tokens }), '/api/v2/probe/read', basicHeader('alice', 's3cret'));
    expect([res.status, res.challenge]).toEqual([401, 'Bearer realm="kubedag"']);
  });

  it('are not sent with a 403', async () => {
    const res = await call(
      app({ ...both, basicPermissions: ['read'] }),
      '/api/v2/probe/write',
      basicHeader('alice', 's3cret'),
    );
    expect([res.status, res.challenge, res.body]).toEqual([
      403,
      undefined,
      { code: 'forbidden', message: 'user alice lacks the write permission' },
    ]);
  });
});

describe('permissions of Basic users', () => {
  const cases: { granted: Permission[]; route: Permission; status: number }[] = [
    { granted: ['read'], route: 'read', status: 200 },
    { granted: ['read'], route: 'run', status: 403 },
    { granted: ['read', 'run'], route: 'run', status: 200 },
    { granted: ['run'], route: 'read', status: 403 },
    { granted: ['write'], route: 'delete', status: 403 },
  ];
  it.each(cases)('granting $granted answers $status on a $route route', async ({ granted, route, status }) => {
    expect(
      (
        await call(
          app({ basic: both.basic, basicPermissions: granted }),
          `/api/v2/probe/${route}`,
          basicHeader('alice', 's3cret'),
        )
      ).status,
    ).toBe(status);
  });
});

/** Kubernetes clients that answer from tables and count their calls. */
function fakeKubernetes(
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

describe('mode kubernetes', () => {
  const users = {
    'reader-jwt': 'system:serviceaccount:team-a:reader',
    'runner-jwt': 'system:serviceaccount:team-a:runner',
  };
  const rights = {
    'system:serviceaccount:team-a:reader': ['get dags'],
    'system:serviceaccount:team-a:runner': ['get dags', 'create dagruns'],
  };

  it.each([
    { name: 'no token is unauthorized', authorization: undefined, url: '/api/v2/probe/read', status: 401 },
    {
      name: 'a token the cluster does not know is unauthorized',
      authorization: 'Bearer garbage',
      url: '/api/v2/probe/read',
      status: 401,
    },
    { name: 'a reader may read', authorization: 'Bearer reader-jwt', url: '/api/v2/probe/read', status: 200 },
    { name: 'a reader may not run', authorization: 'Bearer reader-jwt', url: '/api/v2/probe/run', status: 403 },
    { name: 'a runner may run', authorization: 'Bearer runner-jwt', url: '/api/v2/probe/run', status: 200 },
    { name: 'a runner may not delete', authorization: 'Bearer runner-jwt', url: '/api/v2/probe/delete', status: 403 },
    {
      name: 'Basic credentials are not accepted',
      authorization: basicHeader('a', 'b'),
      url: '/api/v2/probe/read',
      status: 401,
    },
  ])('$name', async ({ authorization, url, status }) => {
    const res = await call(app({ kubernetes: fakeKubernetes(users, rights) }), url, authorization);
    expect(res.status).toBe(status);
    if (status === 401) expect(res.challenge).toBe('Bearer realm="kubedag"');
    if (status === 403)
      expect((res.body as { message: string }).message).toMatch(
        /^system:serviceaccount:team-a:\w+ may not \w+ \w+\.kubedag\.io in namespace team-a$/,
      );
  });

  it.each(Object.entries(KUBERNETES_ACCESS))(
    'asks for %s as the documented verb on the documented resource, for the reviewed user',
    async (permission, { verb, resource }) => {
      const kubernetes = fakeKubernetes(users, rights);
      await call(app({ kubernetes }), `/api/v2/probe/${permission}`, 'Bearer runner-jwt');
      expect(kubernetes.accesses.map((a) => a.spec)).toEqual([
        {
          user: 'system:serviceaccount:team-a:runner',
          uid: 'uid-system:serviceaccount:team-a:runner',
          groups: ['system:serviceaccounts'],
          extra: { scope: ['x'] },
          resourceAttributes: { group: 'kubedag.io', namespace: 'team-a', resource, verb },
        },
      ]);
    },
  );

  it('checks static tokens before asking the cluster', async () => {
    const kubernetes = fakeKubernetes(users, rights);
    expect(
      (await call(app({ kubernetes, tokens: [{ token: 'static' }] }), '/api/v2/probe/delete', 'Bearer static')).status,
    ).toBe(200);
    expect(
      (await call(app({ kubernetes, tokens: [{ token: 'static' }] }), '/api/v2/probe/run', 'Bearer runner-jwt')).status,
    ).toBe(200);
    expect(kubernetes.reviews.map((r) => r.spec.token)).toEqual(['runner-jwt']);
  });

  it('makes one review of each kind for a burst of requests, allowed or not', async () => {
    const kubernetes = fakeKubernetes(users, rights);
    const built = app({ kubernetes });
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(built, `/api/v2/probe/${i % 2 === 0 ? 'read' : 'run'}`, 'Bearer reader-jwt').then((r) => r.status),
      ),
    );
    expect(new Set(statuses)).toEqual(new Set([200, 403]));
    expect([kubernetes.reviews.length, kubernetes.accesses.length]).toEqual([1, 2]);
    await Promise.all(Array.from({ length: 5 }, () => call(built, '/api/v2/probe/read', 'Bearer garbage')));
    expect(kubernetes.reviews.length).toBe(2);
  });

  it('asks again once the cached answers expire, so a changed Role takes effect', async () => {
    let now = 1_000_000;
    const grants: Record<string, string[]> = { 'system:serviceaccount:team-a:reader': ['get dags'] };
    const kubernetes = fakeKubernetes(users, grants, { now: () => now, cacheTtlMs: 10_000 });
    const built = app({ kubernetes });
    expect((await call(built, '/api/v2/probe/run', 'Bearer reader-jwt')).status).toBe(403);
    grants['system:serviceaccount:team-a:reader'] = ['get dags', 'create dagruns'];
    now += 9_999;
    expect((await call(built, '/api/v2/probe/run', 'Bearer reader-jwt')).status).toBe(403);
    now += 1;
    expect((await call(built, '/api/v2/probe/run', 'Bearer reader-jwt')).status).toBe(200);
    expect([kubernetes.reviews.length, kubernetes.accesses.length]).toEqual([2, 2]);
  });

  it('keeps no more answers than its capacity, dropping the oldest', async () => {
    const kubernetes = fakeKubernetes(users, rights, { cacheEntries: 1 });
    const built = app({ kubernetes });
    await call(built, '/api/v2/probe/read', 'Bearer reader-jwt');
    await call(built, '/api/v2/probe/read', 'Bearer runner-jwt');
    await call(built, '/api/v2/probe/read', 'Bearer reader-jwt');
    expect(kubernetes.reviews.map((r) => r.spec.token)).toEqual(['reader-jwt', 'runner-jwt', 'reader-jwt']);
  });

  it('answers 503 when the cluster cannot be asked, and asks again on the next request', async () => {
    let failing = true;
    const kubernetes = fakeKubernetes(users, rights);
    const review = kubernetes.authentication.createTokenReview.bind(kubernetes.authentication);
    const built = app({
      kubernetes: {
        ...kubernetes,
        authentication: {
          createTokenReview: (param) => (failing ? Promise.reject(new Error('connection refused')) : review(param)),
        },
      },
    });
    const res = await call(built, '/api/v2/probe/read', 'Bearer reader-jwt');
    expect([res.status, res.body]).toEqual([
      503,
      { code: 'service_unavailable', message: 'cannot check credentials: TokenReview failed: connection refused' },
    ]);
    failing = false;
    expect((await call(built, '/api/v2/probe/read', 'Bearer reader-jwt')).status).toBe(200);
  });
});

describe('authOptions', () => {
  const kubernetes = fakeKubernetes({}, {});
  it.each<{ name: string; config: AuthConfig; clients?: KubernetesAuth; expected: AuthOptions }>([
    { name: 'mode none needs no clients', config: {}, expected: {} },
    {
      name: 'credentials pass through as configured',
      config: { basic: [{ username: 'a', password: 'b' }], basicPermissions: ['read'], tokens: [{ token: 't' }] },
      clients: kubernetes,
      expected: { basic: [{ username: 'a', password: 'b' }], basicPermissions: ['read'], tokens: [{ token: 't' }] },
    },
    {
      name: 'mode kubernetes uses the clients given',
      config: { kubernetes: true },
      clients: kubernetes,
      expected: { kubernetes },
    },
  ])('$name', ({ config, clients, expected }) => {
    expect(authOptions(config, clients)).toEqual(expected);
  });

  it('refuses mode kubernetes without clients', () => {
    expect(() => authOptions({ kubernetes: true })).toThrow(/no Kubernetes clients/);
  });
});

describe('who the caller is (request.caller, caller.ts)', () => {
  it('is the Basic user, a static token named by the start of its digest, or anonymous with authentication off', async () => {
    expect((await call(app(both), '/api/v2/probe/caller', basicHeader('alice', 's3cret'))).body).toEqual({
      user: 'alice',
      groups: [],
      method: 'basic',
    });
    const token = (await call(app(both), '/api/v2/probe/caller', 'Bearer reader-token')).body as {
      user: string;
      method: string;
    };
    expect([token.method, /^token:[0-9a-f]{12}$/.test(token.user), token.user.includes('reader')]).toEqual([
      'token',
      true,
      false,
    ]);
    expect((await call(app(both), '/api/v2/probe/caller', 'Bearer all-powerful-token')).body).not.toEqual(token);
    expect((await call(app({}), '/api/v2/probe/caller')).body).toEqual({
      user: 'anonymous',
      groups: [],
      method: 'none',
    });
  });
});

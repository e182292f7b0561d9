import { describe, expect, it } from 'vitest';
import { authEnabled, authOptions, type AuthOptions } from './auth.ts';
import type { KubernetesAuth } from './kubernetes-review.ts';
import type { AuthConfig } from './config-auth.ts';
import type { Permission } from './permissions.ts';
import { app, basicHeader, both, call, fakeKubernetes } from '../test/auth-app.ts';

describe('authentication is off', () => {
  it('when no mode is configured, and every request passes without credentials', async () => {
    expect(authEnabled({})).toBe(false);
    // One app for every probe: building one registers and compiles every route of both APIs.
    const open = app({});
    for (const permission of ['read', 'run', 'write', 'delete', 'undeclared']) {
      expect((await call(open, `/api/v2/probe/${permission}`)).status).toBe(200);
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

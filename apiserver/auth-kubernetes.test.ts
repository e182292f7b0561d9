import { describe, expect, it } from 'vitest';
import { KUBERNETES_ACCESS } from './kubernetes-review.ts';
import { app, basicHeader, call, fakeKubernetes } from '../test/auth-app.ts';

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

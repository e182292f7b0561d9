/**
 * Mode kubernetes against the real kube-apiserver: ServiceAccount tokens from TokenRequest,
 * RBAC Roles on Kubedag's resources, and the API server asking TokenReview and
 * SubjectAccessReview about them with the suite's admin credentials.
 */
import { AuthenticationV1Api, AuthorizationV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../apiserver/app.ts';
import { registerAuth } from '../../apiserver/auth.ts';
import { clients, createNamespace, deleteNamespace } from './support.ts';

const { kc, core } = clients();
const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
let ns = '';
let app: FastifyInstance;
const tokens: Record<'reader' | 'runner' | 'outsider', string> = { reader: '', runner: '', outsider: '' };

/** A ServiceAccount bound to a Role with these rules, and a short-lived token for it. */
async function account(name: string, rules: { resources: string[]; verbs: string[] }[]): Promise<string> {
  await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name } } });
  if (rules.length > 0) {
    await rbac.createNamespacedRole({
      namespace: ns,
      body: { metadata: { name }, rules: rules.map((rule) => ({ apiGroups: ['kubedag.io'], ...rule })) },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: {
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
        subjects: [{ kind: 'ServiceAccount', name, namespace: ns }],
      },
    });
  }
  const request = await core.createNamespacedServiceAccountToken({
    name,
    namespace: ns,
    body: { spec: { audiences: [], expirationSeconds: 600 } },
  });
  const token = request.status?.token;
  if (token === undefined) throw new Error(`no token for ${name}`);
  return token;
}

beforeAll(async () => {
  ns = await createNamespace(core, 'auth');
  tokens.reader = await account('reader', [{ resources: ['dags', 'dagruns'], verbs: ['get', 'list'] }]);
  tokens.runner = await account('runner', [
    { resources: ['dags', 'dagruns'], verbs: ['get', 'list'] },
    { resources: ['dagruns'], verbs: ['create'] },
  ]);
  tokens.outsider = await account('outsider', []);
  const plugin = (scope: FastifyInstance): void => {
    registerAuth(scope, {
      kubernetes: {
        authentication: kc.makeApiClient(AuthenticationV1Api),
        authorization: kc.makeApiClient(AuthorizationV1Api),
        namespace: ns,
      },
    });
  };
  app = buildApp({
    version: 't',
    clock: () => new Date(),
    health: () => Promise.resolve(undefined),
    plugins: [plugin],
  });
  for (const permission of ['read', 'run', 'write', 'delete'] as const) {
    app.get(`/api/v2/probe/${permission}`, { config: { permission } }, () => ({ ok: permission }));
  }
});

afterAll(async () => {
  await app.close();
  await deleteNamespace(core, ns);
});

async function status(url: string, token?: string): Promise<{ status: number; code?: string }> {
  const res = await app.inject({
    method: 'GET',
    url,
    ...(token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } }),
  });
  return res.statusCode === 200 ? { status: 200 } : { status: res.statusCode, code: res.json<{ code: string }>().code };
}

describe('mode kubernetes on the local control plane', () => {
  it.each([
    {
      name: 'no token is unauthorized',
      who: undefined,
      route: 'read',
      expected: { status: 401, code: 'unauthorized' },
    },
    {
      name: 'a token the cluster did not issue is unauthorized',
      who: 'garbage',
      route: 'read',
      expected: { status: 401, code: 'unauthorized' },
    },
    { name: 'a reader may read', who: 'reader', route: 'read', expected: { status: 200 } },
    { name: 'a reader may not run', who: 'reader', route: 'run', expected: { status: 403, code: 'forbidden' } },
    { name: 'a runner may run', who: 'runner', route: 'run', expected: { status: 200 } },
    { name: 'a runner may not write', who: 'runner', route: 'write', expected: { status: 403, code: 'forbidden' } },
    { name: 'a runner may not delete', who: 'runner', route: 'delete', expected: { status: 403, code: 'forbidden' } },
    {
      name: 'an account without a Role is authenticated but may not read',
      who: 'outsider',
      route: 'read',
      expected: { status: 403, code: 'forbidden' },
    },
  ] as const)('$name', async ({ who, route, expected }) => {
    const token =
      who === undefined ? undefined : who === 'garbage' ? 'eyJhbGciOiJSUzI1NiJ9.e30.c2lnbmF0dXJl' : tokens[who];
    expect(await status(`/api/v2/probe/${route}`, token)).toEqual(expected);
  });

  it('answers a burst from the cache with the same verdicts', async () => {
    const verdicts = await Promise.all(
      Array.from({ length: 10 }, (_, i) => status(`/api/v2/probe/${i % 2 === 0 ? 'read' : 'run'}`, tokens.reader)),
    );
    expect(new Set(verdicts.map((v) => v.status))).toEqual(new Set([200, 403]));
  });
});

/**
 * OpenID Connect sign-in against a real Dex (test/dex.ts) and real API servers on the test
 * cluster's kube-apiserver: the code flow through Dex's login form, permissions from Dex's
 * groups, a refresh at token expiry (and the end of a session without a refresh token), a
 * wrong state, tampered and expired cookies, sign-out, the Origin check, tokens for scripts
 * beside cookies, two replicas sharing one key, and mode kubernetes asking
 * SubjectAccessReview about the signed-in user and groups.
 */
import { AuthenticationV1Api, AuthorizationV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../cluster/processes.ts';
import { authOptions, registerAuth } from '../../apiserver/auth.ts';
import { parseApiConfig } from '../../apiserver/config.ts';
import { OidcProvider } from '../../apiserver/oidc/provider.ts';
import { shareSignOuts } from '../../apiserver/oidc/signed-out.ts';
import { silentLogger } from '../../core/log.ts';
import { startServer, type Server } from '../../apiserver/server.ts';
import { startDex, signIn, type Dex } from '../dex.ts';
import { clients, createNamespace, deleteNamespace } from './support.ts';

const { kc, core } = clients();
const TOKEN = 'script-token-for-oidc-tests';
const KEY = 'a-session-key-of-at-least-32-characters!';
const USERS = [
  { username: 'ann', email: 'ann@example.com', groups: ['kubedag-operators'] },
  { username: 'bob', email: 'bob@example.com', groups: ['kubedag-viewers'] },
];
const DAG = 'steps:\n  - name: hello\n    command: echo hello\n';

let ns = '';
let dex: Dex;
const servers: Server[] = [];
const ports: number[] = [];

/** An API server on `port` with OIDC (and `modes`), its clock moved `skewMs` ahead; `more` adds or replaces variables. */
async function api(
  port: number,
  modes: string,
  skewMs = 0,
  more: Record<string, string> = {},
): Promise<{ server: Server; base: string }> {
  const env = {
    KUBEDAG_AUTH_MODE: modes,
    KUBEDAG_AUTH_TOKEN: TOKEN,
    KUBEDAG_AUTH_OIDC_ISSUER: dex.issuer,
    KUBEDAG_AUTH_OIDC_CLIENT_ID: dex.clientId,
    KUBEDAG_AUTH_OIDC_CLIENT_SECRET: dex.clientSecret,
    KUBEDAG_AUTH_OIDC_REDIRECT_URL: `http://127.0.0.1:${String(port)}/auth/oidc/callback`,
    KUBEDAG_AUTH_OIDC_SESSION_KEY: KEY,
    KUBEDAG_AUTH_OIDC_COOKIE_SECURE: 'false',
    ...(modes.includes('kubernetes')
      ? {}
      : {
          KUBEDAG_AUTH_OIDC_PERMISSIONS: JSON.stringify({
            'kubedag-operators': ['read', 'run'],
            'kubedag-viewers': ['read'],
          }),
        }),
    ...more,
  };
  const config = parseApiConfig(
    [`--namespace=${ns}`, `--kubeconfig=${inject('cluster').kubeconfig}`, `--lease-namespace=${ns}`],
    env,
  );
  const provider = await OidcProvider.discover(config.auth.oidc ?? (undefined as never), {
    now: () => Date.now() + skewMs,
  });
  const server = await startServer({
    config,
    version: 'test',
    plugins: [
      (app, context) => {
        const kubernetes = {
          authentication: kc.makeApiClient(AuthenticationV1Api),
          authorization: kc.makeApiClient(AuthorizationV1Api),
          namespace: context.namespace,
        };
        registerAuth(app, authOptions(config.auth, kubernetes, provider));
      },
    ],
  });
  servers.push(server);
  // As main.ts does: sign-outs shared through the ConfigMap the settings name, if any.
  const signOuts = await shareSignOuts(provider, kc, ns, silentLogger);
  if (signOuts !== undefined) server.app.addHook('onClose', () => signOuts.stop());
  await server.app.listen({ host: '127.0.0.1', port });
  return { server, base: `http://127.0.0.1:${String(port)}` };
}

const call = (base: string, path: string, session: string | undefined, init: RequestInit = {}): Promise<Response> =>
  fetch(`${base}${path}`, {
    ...init,
    redirect: 'manual',
    headers: {
      ...(session === undefined ? {} : { cookie: `kubedag_session=${session}` }),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.headers as Record<string, string> | undefined),
    },
  });

let a = '';
let b = '';

beforeAll(async () => {
  ns = await createNamespace(core, 'oidc');
  for (let i = 0; i < 10; i++) ports.push(await freePort());
  const uris = ports.map((p) => `http://127.0.0.1:${String(p)}/auth/oidc/callback`);
  dex = await startDex({
    users: USERS,
    redirectUris: uris,
    postLogoutUris: ports.map((p) => `http://127.0.0.1:${String(p)}/`),
  });
  a = (await api(ports[0] ?? 0, 'oidc,bearer')).base;
  b = (await api(ports[1] ?? 0, 'oidc,bearer')).base;
  const created = await call(a, '/api/v2/dags', undefined, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ name: 'hello', spec: DAG }),
  });
  expect(created.status).toBe(201);
}, 240_000);

afterAll(async () => {
  for (const server of servers) await server.close();
  await (dex as Dex | undefined)?.stop();
  await deleteNamespace(core, ns);
});

describe('OIDC sign-in with Dex', () => {
  it('says how to sign in when nobody is', async () => {
    const me = await call(a, '/auth/me', undefined);
    expect(me.status).toBe(401);
    expect(((await me.json()) as { oidc: { login: string } }).oidc.login).toBe('/auth/oidc/login');
    expect((await call(a, '/api/v2/dags', undefined)).status).toBe(401);
  });

  it('signs in through Dex and maps the groups to permissions', async () => {
    const ann = await signIn(a, 'ann@example.com');
    expect(ann.status).toBe(302);
    const me = (await (await call(a, '/auth/me', ann.session)).json()) as {
      user: string;
      groups: string[];
      permissions: string[];
    };
    expect(me).toMatchObject({ user: 'ann@example.com', groups: ['kubedag-operators'] });
    expect(me.permissions.sort()).toEqual(['read', 'run']);
    expect((await call(a, '/api/v2/dags', ann.session)).status).toBe(200);
    const started = await call(a, '/api/v2/dags/hello/start', ann.session, {
      method: 'POST',
      headers: { origin: a },
      body: '{}',
    });
    expect(started.status).toBe(200);
    const refused = await call(a, '/api/v2/dags', ann.session, {
      method: 'POST',
      headers: { origin: a },
      body: JSON.stringify({ name: 'other' }),
    });
    expect(refused.status).toBe(403);
    const bob = await signIn(a, 'bob@example.com');
    expect(
      (await call(a, '/api/v2/dags/hello/start', bob.session, { method: 'POST', headers: { origin: a }, body: '{}' }))
        .status,
    ).toBe(403);
  });

  it('refuses a change made with the cookie from another origin or none', async () => {
    const ann = await signIn(a, 'ann@example.com');
    for (const headers of [{ origin: 'http://evil.example' }, {}]) {
      const res = await call(a, '/api/v2/dags/hello/start', ann.session, { method: 'POST', headers, body: '{}' });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { message: string }).message).toMatch(/cross-site/);
    }
  });

  it('refuses a wrong state', async () => {
    const result = await signIn(a, 'ann@example.com', (url) => {
      url.searchParams.set('state', 'not-the-state');
      return url;
    });
    expect(result.status).toBe(400);
    expect(result.session).toBeUndefined();
    expect(result.body).toMatch(/sign-in failed/);
  });

  it('refuses tampered and foreign cookies', async () => {
    const ann = await signIn(a, 'ann@example.com');
    const session = ann.session ?? '';
    const tampered = `${session.slice(0, -4)}${session.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    expect((await call(a, '/api/v2/dags', tampered)).status).toBe(401);
    expect((await call(a, '/api/v2/dags', 'eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..x.y.z')).status).toBe(401);
  });

  it('shares sessions between two replicas with the same key', async () => {
    const ann = await signIn(a, 'ann@example.com');
    const me = (await (await call(b, '/auth/me', ann.session)).json()) as { user: string };
    expect(me.user).toBe('ann@example.com');
    expect((await call(b, '/api/v2/dags', ann.session)).status).toBe(200);
  });

  it('keeps tokens working for scripts beside cookies', async () => {
    expect((await call(a, '/api/v2/dags', undefined, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
      200,
    );
  });

  it('signs out: the old cookie no longer works, and the browser is sent to the provider', async () => {
    const ann = await signIn(a, 'ann@example.com');
    expect((await call(a, '/api/v2/dags', ann.session)).status).toBe(200);
    const out = await call(a, '/auth/logout', ann.session, { method: 'POST', headers: { origin: a } });
    expect(out.status).toBe(200);
    const { redirect } = (await out.json()) as { redirect: string };
    // RP-initiated logout when Dex advertises an end_session_endpoint (it does with its sessions on, test/dex.ts), else home.
    const discovery = (await (await fetch(`${dex.issuer}/.well-known/openid-configuration`)).json()) as {
      end_session_endpoint?: string;
    };
    expect(redirect.startsWith(discovery.end_session_endpoint ?? `${a}/`)).toBe(true);
    expect((await call(a, '/api/v2/dags', ann.session)).status).toBe(401);
    expect(
      (await call(a, '/auth/logout', ann.session, { method: 'POST', headers: { origin: 'http://evil.example' } }))
        .status,
    ).toBe(403);
  });

  it('signs a session out on every replica that shares sign-outs, and on the one that took it alone otherwise', async () => {
    const shared = { KUBEDAG_AUTH_OIDC_SIGNOUTS_CONFIGMAP: 'kubedag-signouts' };
    const [c, d] = [
      (await api(ports[8] ?? 0, 'oidc,bearer', 0, shared)).base,
      (await api(ports[9] ?? 0, 'oidc,bearer', 0, shared)).base,
    ];
    const ann = await signIn(c, 'ann@example.com');
    expect([
      (await call(d, '/api/v2/dags', ann.session)).status,
      (await call(b, '/api/v2/dags', ann.session)).status,
    ]).toEqual([200, 200]);
    expect((await call(c, '/auth/logout', ann.session, { method: 'POST', headers: { origin: c } })).status).toBe(200);
    const entries = Object.values(
      (await core.readNamespacedConfigMap({ namespace: ns, name: 'kubedag-signouts' })).data ?? {},
    );
    expect([entries.length, Number(entries[0]) > Date.now()]).toEqual([1, true]);
    // d learns it through its watch of the ConfigMap; b, which shares nothing, goes on accepting the cookie.
    await expect.poll(async () => (await call(d, '/api/v2/dags', ann.session)).status, { timeout: 10_000 }).toBe(401);
    expect([
      (await call(c, '/api/v2/dags', ann.session)).status,
      (await call(b, '/api/v2/dags', ann.session)).status,
    ]).toEqual([401, 200]);
  });

  it('asks the cluster about the signed-in user and groups with mode kubernetes', async () => {
    const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace: ns,
      body: {
        metadata: { name: 'operators' },
        rules: [
          { apiGroups: ['kubedag.io'], resources: ['dags'], verbs: ['get'] },
          { apiGroups: ['kubedag.io'], resources: ['dagruns'], verbs: ['create'] },
        ],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: {
        metadata: { name: 'operators' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'operators' },
        subjects: [{ kind: 'Group', name: 'kubedag-operators', apiGroup: 'rbac.authorization.k8s.io' }],
      },
    });
    const k = await api(ports[4] ?? 0, 'oidc,kubernetes,bearer');
    const ann = await signIn(k.base, 'ann@example.com');
    const bob = await signIn(k.base, 'bob@example.com');
    expect((await call(k.base, '/api/v2/dags', ann.session)).status).toBe(200);
    expect(
      (
        await call(k.base, '/api/v2/dags', ann.session, {
          method: 'POST',
          headers: { origin: k.base },
          body: JSON.stringify({ name: 'x' }),
        })
      ).status,
    ).toBe(403);
    expect((await call(k.base, '/api/v2/dags', bob.session)).status).toBe(403);
  });

  it('ends a session past its end, and clears the cookie', async () => {
    const ann = await signIn(a, 'ann@example.com');
    // Nine hours on, past the 8-hour sign-in: refused, and the cookie is cleared.
    const much = await api(ports[3] ?? 0, 'oidc,bearer', 9 * 3600_000);
    const expired = await call(much.base, '/api/v2/dags', ann.session);
    expect(expired.status).toBe(401);
    expect(expired.headers.getSetCookie().join()).toMatch(/kubedag_session=;/);
  });

  it('refreshes expired tokens with the refresh token, once for requests made together', async () => {
    const ann = await signIn(a, 'ann@example.com');
    // 20 minutes on: Dex's 10-minute tokens have expired; the refresh token renews them. Three
    // requests at once carry the same expired cookie, as a page's queries do; Dex takes each
    // refresh token once, so they must share one refresh to all pass.
    const later = await api(ports[2] ?? 0, 'oidc,bearer', 20 * 60_000);
    const answers = await Promise.all([0, 1, 2].map(() => call(later.base, '/api/v2/dags', ann.session)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    const renewed = answers.map((r) => /kubedag_session=([^;]+)/.exec(r.headers.getSetCookie().join())?.[1]);
    expect(new Set(renewed).size).toBe(1);
    // The renewed cookie holds fresh tokens: no refresh, so no new cookie.
    const fresh = await call(later.base, '/api/v2/dags', renewed[0]);
    expect([fresh.status, fresh.headers.getSetCookie()]).toEqual([200, []]);
    // 40 minutes on, they have expired again: the refresh token Dex rotated to renews them.
    const evenLater = await api(ports[6] ?? 0, 'oidc,bearer', 40 * 60_000);
    const again = await call(evenLater.base, '/api/v2/dags', renewed[0]);
    expect(again.status).toBe(200);
    expect(again.headers.getSetCookie().join()).toMatch(/kubedag_session=[^;]+/);
  });

  it('ends the session when its tokens expire and it has no refresh token', async () => {
    // Without offline_access Dex issues no refresh token.
    const noRefresh = await api(ports[5] ?? 0, 'oidc,bearer', 0, {
      KUBEDAG_AUTH_OIDC_SCOPES: 'openid profile email groups',
    });
    const ann = await signIn(noRefresh.base, 'ann@example.com');
    expect((await call(noRefresh.base, '/api/v2/dags', ann.session)).status).toBe(200);
    const later = await api(ports[7] ?? 0, 'oidc,bearer', 20 * 60_000);
    const expired = await call(later.base, '/api/v2/dags', ann.session);
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as { message: string }).message).toBe('the session expired: sign in again');
    expect(expired.headers.getSetCookie().join()).toMatch(/kubedag_session=;/);
  });
});

/**
 * A real Dex (cluster/dex.ts builds it) on loopback for the sign-in tests: SQLite storage in a
 * scratch folder, static users with groups (Dex's static passwords carry `groups` since 2025),
 * one static client, the approval screen skipped, Dex's sessions on (refresh, RP-initiated
 * logout). `signIn` walks its login form as a browser would, without one, for the tests that
 * only need a session cookie.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDex } from '../cluster/dex.ts';
import { freePort } from '../cluster/processes.ts';

/** bcrypt of "password" (Dex's own example configuration's hash). */
const PASSWORD_HASH = '$2a$10$2b2cU8CPhOTaGrs1HRQuAueS7JTT5ZHsHSzYiFPm1leZck7Mc8T4W';
export const DEX_PASSWORD = 'password';

export interface DexUser {
  readonly username: string;
  readonly email: string;
  readonly groups: readonly string[];
}

export interface Dex {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly output: () => string;
  stop(): Promise<void>;
}

export async function startDex(options: {
  users: readonly DexUser[];
  redirectUris: readonly string[];
  postLogoutUris: readonly string[];
  idTokenExpiry?: string;
}): Promise<Dex> {
  const binary = await ensureDex();
  const port = await freePort();
  const issuer = `http://127.0.0.1:${String(port)}/dex`;
  const dir = await mkdtemp(join(tmpdir(), 'kubedag-dex-'));
  const config = {
    issuer,
    // SQLite: cluster/dex.ts builds Dex with cgo for it.
    storage: { type: 'sqlite3', config: { file: join(dir, 'dex.db') } },
    web: { http: `127.0.0.1:${String(port)}` },
    oauth2: { skipApprovalScreen: true },
    expiry: { idTokens: options.idTokenExpiry ?? '10m' },
    enablePasswordDB: true,
    // Refresh tokens bound to Dex's session, as suits a web app: a sign-out at Dex ends them,
    // so a replica that never saw the sign-out fails the next refresh of a copied cookie.
    staticClients: [
      {
        id: 'kubedag',
        secret: 'kubedag-test-secret',
        name: 'Kubedag',
        redirectURIs: options.redirectUris,
        postLogoutRedirectURIs: options.postLogoutUris,
        refreshTokenLifetime: 'session',
      },
    ],
    staticPasswords: options.users.map((user, i) => ({
      email: user.email,
      username: user.username,
      userID: `user-${String(i)}`,
      hash: PASSWORD_HASH,
      groups: user.groups,
    })),
  };
  // JSON is YAML: Dex reads either.
  await writeFile(join(dir, 'config.yaml'), JSON.stringify(config));
  // Dex's sessions (a feature flag at this commit) for two reasons. Without them a refresh grant
  // reads the user's offline session (server/grants/refresh.go, refreshConnectorData) inside
  // the storage transaction that rotates the refresh token (server/tokens/refresh_store.go);
  // SQLite's one connection, or the memory storage's lock, is then held by that transaction,
  // and the grant never answers. With sessions Dex refreshes from the identity it cached at
  // sign-in. They also give Dex an end_session_endpoint, so sign-out is RP-initiated.
  const env = { ...process.env, DEX_SESSIONS_ENABLED: 'true' };
  const child: ChildProcess = spawn(binary, ['serve', join(dir, 'config.yaml')], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await fetch(`${issuer}/.well-known/openid-configuration`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`Dex did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { issuer, clientId: 'kubedag', clientSecret: 'kubedag-test-secret', output: () => output, stop };
}

/** The cookies a response sets, as name to value (a cleared cookie's value is empty). */
export function setCookies(response: Response): Record<string, string> {
  return Object.fromEntries(
    response.headers.getSetCookie().map((line) => {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      return [pair.slice(0, eq), pair.slice(eq + 1)];
    }),
  );
}

/** Follows redirects with Dex's cookies until an answer that is not one, or until `stop` says so. */
async function follow(
  response: Response,
  url: URL,
  jar: Map<string, string>,
  stop: (url: URL) => boolean = () => false,
): Promise<{ response: Response; url: URL }> {
  let current = { response, url };
  while (current.response.status >= 300 && current.response.status < 400) {
    for (const [k, v] of Object.entries(setCookies(current.response))) jar.set(k, v);
    const next = new URL(current.response.headers.get('location') ?? '', current.url);
    if (stop(next)) return { response: current.response, url: next };
    current = {
      response: await fetch(next, {
        redirect: 'manual',
        headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
      }),
      url: next,
    };
  }
  return current;
}

/**
 * Signs in at the API server `base` through Dex's login form; returns the session cookie's
 * value. `tamper` may change the callback URL (a wrong state) before it is followed.
 */
export async function signIn(
  base: string,
  user: string,
  tamper: (callback: URL) => URL = (u) => u,
): Promise<{ status: number; session?: string; body: string }> {
  const login = await fetch(`${base}/auth/oidc/login`, { redirect: 'manual' });
  const flow = setCookies(login).kubedag_oidc_flow ?? '';
  const jar = new Map<string, string>();
  // Dex: auth, then the password connector's login page (one connector: no chooser).
  const form = await follow(login, new URL(base), jar);
  const page = await form.response.text();
  const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1]?.replace(/&amp;/g, '&');
  if (action === undefined) throw new Error(`no login form at ${form.url.toString()}:\n${page.slice(0, 500)}`);
  const posted = await fetch(new URL(action, form.url), {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
    },
    body: new URLSearchParams({ login: user, password: DEX_PASSWORD }),
  });
  const back = await follow(posted, form.url, jar, (url) => url.pathname === '/auth/oidc/callback');
  if (back.url.pathname !== '/auth/oidc/callback')
    throw new Error(
      `Dex did not send the browser back: ${String(back.response.status)} ${(await back.response.text()).slice(0, 500)}`,
    );
  const done = await fetch(tamper(back.url), { redirect: 'manual', headers: { cookie: `kubedag_oidc_flow=${flow}` } });
  const session = setCookies(done).kubedag_session;
  return {
    status: done.status,
    ...(session === undefined || session === '' ? {} : { session }),
    body: await done.text(),
  };
}

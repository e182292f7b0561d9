/**
 * OpenID Connect sign-in in a headless Chromium (issue 24's proof): a real Dex (test/dex.ts)
 * in front of an API server and the operator on the local control plane, the API server
 * writing its audit trail to a file. A person signs in through Dex's own login page, sees who
 * is signed in, starts a run that the group mapping allows and sees that the run names them,
 * stays signed in on a replica that finds the provider's tokens expired (it refreshes them), is
 * refused what the mapping forbids (a delete, a save) with the reason shown, signs out, and the
 * cookie the browser held is refused afterwards. Screenshots land in
 * .dev/ui-screenshots/oidc-*.png.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AuditRecord } from '../../apiserver/audit-record.ts';
import { openAuditLog, type AuditLog } from '../../apiserver/audit.ts';
import { authOptions, registerAuth } from '../../apiserver/auth.ts';
import { parseApiConfig } from '../../apiserver/config.ts';
import { OidcProvider } from '../../apiserver/oidc/provider.ts';
import { startServer, type Server } from '../../apiserver/server.ts';
import { uiBuilt } from '../../apiserver/ui.ts';
import { freePort } from '../../cluster/processes.ts';
import { DEX_PASSWORD, startDex, type Dex } from '../dex.ts';
import { launchChromium } from '../../scripts/chromium.ts';
import { openPage, screenshot } from './browser-support.ts';
import { startOperator, type RunningOperator } from './operator-support.ts';
import { clients, createNamespace, deleteNamespace } from './support.ts';

const { core } = clients();
/** A static token for the test's own setup calls; the browser never has it. */
const TOKEN = 'setup-token-for-the-ui-oidc-test';
const ANN = { username: 'ann', email: 'ann@example.com', groups: ['kubedag-operators'] };
const GREETER = 'description: Says hello\nsteps:\n  - name: hello\n    command: echo hello\n';

let ns = '';
let operator: RunningOperator | undefined;
let dex: Dex | undefined;
const servers: Server[] = [];
let audit: AuditLog;
let browser: Browser | undefined;
let base = '';
const auditFile = join(mkdtempSync(join(tmpdir(), 'kubedag-ui-oidc-')), 'audit.log');

const auditRecords = (): AuditRecord[] =>
  readFileSync(auditFile, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditRecord);

/**
 * An API server serving the UI on `port`, as main.ts starts one; `skewMs` moves its clock on
 * (for a replica that sees the provider's tokens as expired), `auditLog` is its sink.
 */
async function startApiServer(
  port: number,
  skewMs: number,
  auditLog: string,
): Promise<{ server: Server; audit: AuditLog }> {
  const origin = `http://127.0.0.1:${String(port)}`;
  const env = {
    KUBEDAG_AUTH_MODE: 'oidc,bearer',
    KUBEDAG_AUTH_TOKEN: TOKEN,
    KUBEDAG_AUTH_OIDC_ISSUER: dex?.issuer,
    KUBEDAG_AUTH_OIDC_CLIENT_ID: dex?.clientId,
    KUBEDAG_AUTH_OIDC_CLIENT_SECRET: dex?.clientSecret,
    KUBEDAG_AUTH_OIDC_REDIRECT_URL: `${origin}/auth/oidc/callback`,
    // The same key on every replica: each reads the others' cookies.
    KUBEDAG_AUTH_OIDC_SESSION_KEY: 'a-session-key-for-the-browser-test-0123456789',
    KUBEDAG_AUTH_OIDC_COOKIE_SECURE: 'false',
    KUBEDAG_AUTH_OIDC_PROVIDER_NAME: 'Dex',
    // Operators may look and start runs, not change or delete DAGs.
    KUBEDAG_AUTH_OIDC_PERMISSIONS: JSON.stringify({ 'kubedag-operators': ['read', 'run'] }),
  };
  const config = parseApiConfig(
    [
      `--namespace=${ns}`,
      `--kubeconfig=${inject('cluster').kubeconfig}`,
      `--operator-url=${operator?.url ?? ''}`,
      `--lease-namespace=${ns}`,
      `--audit-log=${auditLog}`,
    ],
    env,
  );
  const sink = openAuditLog(config.audit);
  const provider = await OidcProvider.discover(config.auth.oidc ?? (undefined as never), {
    now: () => Date.now() + skewMs,
  });
  const started = await startServer({
    config,
    version: 'test',
    audit: sink,
    plugins: [
      (app) => {
        registerAuth(app, authOptions(config.auth, undefined, provider));
      },
    ],
  });
  servers.push(started);
  await started.app.listen({ host: '127.0.0.1', port });
  return { server: started, audit: sink };
}

beforeAll(async () => {
  ns = await createNamespace(core, 'kd-ui-oidc');
  operator = await startOperator(ns);
  if (!uiBuilt(join(import.meta.dirname, '../../dist/ui')))
    throw new Error('dist/ui holds no built web UI: run `make ui` first');
  // The port is chosen first: Dex must know the redirect URL before the server listens.
  const port = await freePort();
  base = `http://127.0.0.1:${String(port)}`;
  dex = await startDex({ users: [ANN], redirectUris: [`${base}/auth/oidc/callback`], postLogoutUris: [`${base}/`] });
  ({ audit } = await startApiServer(port, 0, `file:${auditFile}`));
  const created = await fetch(`${base}/api/v2/dags`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'greeter', spec: GREETER }),
  });
  expect(created.status).toBe(201);
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  for (const server of servers) await server.close();
  await dex?.stop();
  await operator?.stop();
  await deleteNamespace(core, ns);
});

/** A screenshot of the page in the dark theme (the UI follows the system's while its switch says Auto), then light again. */
async function inDarkTheme(page: Page, name: string): Promise<void> {
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, name);
  await page.emulateMedia({ colorScheme: 'light' });
}

/** What axe-core finds serious or critical in the part of the page `selector` names, in the light and the dark theme. */
async function accessibilityProblems(page: Page, selector: string): Promise<string[]> {
  const found: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    const { violations } = await new AxeBuilder({ page }).include(selector).analyze();
    found.push(
      ...violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .flatMap((v) => v.nodes.map((node) => `${colorScheme} ${v.id}: ${node.target.join(' ')}`)),
    );
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

/** The value of the session cookie the browser holds, if any. */
async function sessionCookie(page: Page): Promise<string | undefined> {
  const cookies = await page.context().cookies(base);
  const value = cookies.find((c) => c.name === 'kubedag_session')?.value;
  return value === '' ? undefined : value;
}

describe('signing in to the web UI with OpenID Connect (Dex)', () => {
  let page: Page;
  /** A second tab of the same browser, open while the first signs out. */
  let otherTab: Page | undefined;
  /** The replica whose clock runs past the provider's token lifetime. */
  let laterBase = '';
  /** The session cookie as the browser held it while signed in. */
  let signedInCookie: string | undefined;

  beforeAll(async () => {
    page = await openPage(browser ?? (undefined as never), { viewport: { width: 1280, height: 800 } });
  });

  it('offers the provider by name on the sign-in page when nobody is signed in, with no serious accessibility problem in either theme', async () => {
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByRole('link', { name: 'Sign in with Dex' }).waitFor();
    await screenshot(page, 'oidc-sign-in');
    await inDarkTheme(page, 'oidc-sign-in-dark');
    expect(await accessibilityProblems(page, '.sign-in')).toEqual([]);
  });

  it("signs in on Dex's login page and lands on the dashboard", async () => {
    await page.getByRole('link', { name: 'Sign in with Dex' }).click();
    await page.waitForURL((url) => url.toString().startsWith(`${dex?.issuer ?? ''}/`));
    await page.getByLabel('Email Address').fill(ANN.email);
    await page.getByLabel('Password').fill(DEX_PASSWORD);
    await screenshot(page, 'oidc-dex-login');
    await page.getByRole('button', { name: 'Login' }).click();
    await page.waitForURL(`${base}/`);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    signedInCookie = await sessionCookie(page);
    expect(signedInCookie).toBeDefined();
  });

  it('shows who is signed in and a sign-out, with no serious accessibility problem in either theme, and on a phone inside the menu', async () => {
    await page.getByTestId('signed-in-user').filter({ hasText: ANN.email }).waitFor();
    expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
    await screenshot(page, 'oidc-dashboard');
    await inDarkTheme(page, 'oidc-dashboard-dark');
    expect(await accessibilityProblems(page, '.sidebar-foot')).toEqual([]);
    // On a phone the sidebar is a drawer behind the menu button; the user is in it.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: 'Open menu' }).click();
    await page.getByTestId('signed-in-user').filter({ hasText: ANN.email }).waitFor();
    await screenshot(page, 'oidc-menu-phone');
    // Back to a laptop's width, where the drawer's open state has no effect.
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('starts a run the group mapping allows, and the run page says who started it', async () => {
    await page.goto(`${base}/dags/greeter`);
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Start greeter' });
    await dialog.getByRole('textbox', { name: 'Run ID' }).fill('by-ann');
    await dialog.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('status').filter({ hasText: 'Started run by-ann of greeter' }).waitFor();
    await page.goto(`${base}/runs/greeter/by-ann`);
    const startedBy = page.locator('.run-started-by');
    await startedBy.waitFor();
    expect(await startedBy.locator('dd').textContent()).toBe(`${ANN.email} (oidc)`);
    await page.locator('h1 .status', { hasText: 'Succeeded' }).waitFor({ timeout: 90_000 });
    await screenshot(page, 'oidc-run');
  });

  it("stays signed in past the provider's tokens: a replica that finds them expired refreshes them", async () => {
    // A second replica whose clock runs 20 minutes ahead, past Dex's 10-minute tokens. Cookies
    // are kept per host, not per port, so the browser sends it the same cookie.
    const laterPort = await freePort();
    await startApiServer(laterPort, 20 * 60_000, 'off');
    laterBase = `http://127.0.0.1:${String(laterPort)}`;
    const before = await sessionCookie(page);
    await page.goto(`${laterBase}/dags`);
    await page.getByRole('link', { name: 'greeter' }).waitFor();
    await page.getByTestId('signed-in-user').filter({ hasText: ANN.email }).waitFor();
    const after = await sessionCookie(page);
    expect([after === undefined, after === before]).toEqual([false, false]);
  });

  it('refuses a delete the mapping forbids, and says it was refused and why', async () => {
    await page.goto(`${base}/dags/greeter/spec`);
    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete greeter?' });
    await confirm.getByRole('button', { name: 'Delete' }).click();
    const alert = confirm.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(`Not allowed to delete: ${ANN.email} lacks the delete permission`);
    await screenshot(page, 'oidc-refused-delete');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    const still = await fetch(`${base}/api/v2/dags/greeter`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(still.status).toBe(200);
  });

  it('refuses saving an edited spec, which the mapping forbids, and says why', async () => {
    // Typed as a paste would be, so the editor adds no indentation of its own.
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(GREETER.replace('echo hello', 'echo changed'));
    await page.getByRole('button', { name: 'Save' }).click();
    const banner = page.getByRole('alert').filter({ hasText: 'Not allowed to save' });
    await banner.waitFor();
    expect(await banner.textContent()).toBe(`Not allowed to save: ${ANN.email} lacks the write permission`);
    await screenshot(page, 'oidc-refused-save');
    const stored = (await (
      await fetch(`${base}/api/v2/dags/greeter/spec`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as { spec: string };
    expect(stored.spec).toBe(GREETER);
  });

  it('signs in again without the password while Dex remembers the sign-in', async () => {
    const again = await page.context().newPage();
    const dexPages: string[] = [];
    again.on('request', (request) => {
      if (request.isNavigationRequest() && request.url().startsWith(`${dex?.issuer ?? ''}/auth/local/login`))
        dexPages.push(request.url());
    });
    await again.goto(`${base}/auth/oidc/login`);
    await again.waitForURL(`${base}/`);
    await again.close();
    expect(dexPages).toEqual([]);
    // That sign-in set a new session cookie, the one the browser now holds.
    signedInCookie = await sessionCookie(page);
  });

  it('signs out through Dex: the UI is back at the sign-in page and the old cookie is refused, by the other replica too', async () => {
    // A second tab, signed in with the same cookie, for the next test.
    otherTab = await page.context().newPage();
    await otherTab.goto(`${base}/dags`);
    await otherTab.getByRole('link', { name: 'greeter' }).waitFor();
    await page.goto(`${base}/`);
    const visited: string[] = [];
    // Requests, not navigations: the pages between are redirects, which never commit.
    page.on('request', (request) => {
      if (request.isNavigationRequest()) visited.push(request.url());
    });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in with Dex' }).waitFor();
    // RP-initiated logout: Dex's end-session endpoint, then home.
    expect(visited.some((url) => url.startsWith(`${dex?.issuer ?? ''}/logout?`))).toBe(true);
    expect(page.url()).toBe(`${base}/`);
    expect(await sessionCookie(page)).toBeUndefined();
    await screenshot(page, 'oidc-signed-out');
    const replayed = await fetch(`${base}/api/v2/dags`, {
      headers: { cookie: `kubedag_session=${signedInCookie ?? ''}` },
    });
    expect(replayed.status).toBe(401);
    // The replica that did not answer the sign-out knows nothing of it, but finds the tokens
    // expired, and Dex refuses the refresh: its session ended at the end-session endpoint.
    const elsewhere = await fetch(`${laterBase}/api/v2/dags`, {
      headers: { cookie: `kubedag_session=${signedInCookie ?? ''}` },
    });
    expect([elsewhere.status, ((await elsewhere.json()) as { message: string }).message]).toEqual([
      401,
      expect.stringMatching(/^the session could not be refreshed/),
    ]);
  });

  it('tells another tab that its sign-in ended, when it next asks the server', async () => {
    const tab = otherTab as Page;
    await tab.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).click();
    const ended = tab.getByRole('alert').filter({ hasText: 'Your sign-in with Dex has ended' });
    await ended.waitFor();
    expect(await tab.getByTestId('signed-in-user').count()).toBe(0);
    await screenshot(tab, 'oidc-session-ended');
  });

  it("asks for the password again on signing back in, since Dex's session ended too", async () => {
    await page.getByRole('link', { name: 'Sign in with Dex' }).click();
    await page.getByRole('button', { name: 'Login' }).waitFor();
    // The page the test before watched for, and did not see.
    expect(page.url().startsWith(`${dex?.issuer ?? ''}/auth/local/login`)).toBe(true);
  });

  it("records the session's writes in the audit log under the OIDC user", async () => {
    await audit.flush();
    const mine = auditRecords()
      .filter((r) => r.identity.method === 'oidc')
      .map((r) => [r.operation, r.identity.user, r.identity.groups, r.outcome.status, r.outcome.code ?? '']);
    expect(mine).toEqual([
      ['POST /api/v2/dags/{fileName}/start', ANN.email, ANN.groups, 200, ''],
      ['DELETE /api/v2/dags/{fileName}', ANN.email, ANN.groups, 403, 'forbidden'],
      ['PUT /api/v2/dags/{fileName}/spec', ANN.email, ANN.groups, 403, 'forbidden'],
      ['POST /auth/logout', ANN.email, ANN.groups, 200, ''],
    ]);
  });
});

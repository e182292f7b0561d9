/**
 * The web UI end to end: a real headless Chromium against the API server (serving the built
 * UI) and the operator on the local control plane. DAGs and runs are made through the API;
 * the browser must show them. Screenshots land in .dev/ui-screenshots/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAuth } from '../../apiserver/auth.ts';
import type { Server } from '../../apiserver/server.ts';
import { startApi, type ContractClient } from './api-support.ts';
import { launchChromium } from '../../scripts/chromium.ts';
import { authChallenges, openPage, screenshot, serve } from './browser-support.ts';
import type { RunningOperator } from './operator-support.ts';
import { startUiStack, stopUiStack } from './ui-stack.ts';
import { waitFor } from './support.ts';

let ns: string;
let operator: RunningOperator;
let server: Server;
let api: ContractClient;
let base: string;
let browser: Browser;

const DAGS: Record<string, string> = {
  'etl-daily':
    'description: Extract the day’s orders and load them into the warehouse\ntags: [etl, daily]\nschedule: "0 2 * * *"\nsteps:\n  - {name: extract, command: echo extract}\n  - {name: load, command: echo load, depends: extract}\n',
  'report-weekly':
    'description: The weekly sales report, mailed on Monday morning\ntags: [reports]\nschedule: "CRON_TZ=Europe/Berlin 0 7 * * MON"\nsteps:\n  - echo report\n',
  hello: 'description: Says hello\nsteps:\n  - echo hello\n',
  flaky: 'tags: [ops]\nsteps:\n  - {name: try, command: exit 3}\n',
};

async function finished(name: string, dagRunId: string): Promise<void> {
  await waitFor(
    `run ${name}/${dagRunId} to finish`,
    async () => {
      const res = await api.call('GET', `/api/v2/dag-runs/${name}/${dagRunId}`);
      return (
        res.status === 200 && (res.body as { dagRunDetails: { finishedAt: string } }).dagRunDetails.finishedAt !== ''
      );
    },
    60_000,
    200,
  );
}

const newPage = (viewport = { width: 1280, height: 800 }, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> =>
  openPage(browser, { viewport, colorScheme });

/** The DAG names in the list's rows, in order. */
const rowNames = (page: Page): Promise<string[]> => page.locator('tbody tr .dag-link').allTextContents();

beforeAll(async () => {
  ({ ns, operator, server, api, base } = await startUiStack('kd-ui'));
  for (const [name, spec] of Object.entries(DAGS))
    expect((await api.call('POST', '/api/v2/dags', { name, spec })).status).toBe(201);
  for (const name of ['hello', 'flaky']) await api.call('POST', `/api/v2/dags/${name}/start`, { dagRunId: 'first' });
  await Promise.all(['hello', 'flaky'].map((name) => finished(name, 'first')));
  browser = await launchChromium();
});

afterAll(async () => {
  await stopUiStack({ ns, operator, server }, browser);
});

describe('the web UI in a headless Chromium', () => {
  it('opens at /, goes to the DAG list, and shows the DAGs made through the API with their latest runs', async () => {
    const page = await newPage();
    await page.goto(base);
    await page.getByRole('heading', { name: /Dashboard/ }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'DAGs' }).click();
    await page.getByRole('link', { name: 'report-weekly' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dags');
    expect(await rowNames(page)).toEqual(['etl-daily', 'flaky', 'hello', 'report-weekly']);
    const hello = page.locator('tbody tr', { has: page.getByRole('link', { name: 'hello' }) });
    const flaky = page.locator('tbody tr', { has: page.getByRole('link', { name: 'flaky' }) });
    expect([await hello.locator('.status').textContent(), await flaky.locator('.status').textContent()]).toEqual([
      'Succeeded',
      'Failed',
    ]);
    await screenshot(page, 'dag-list');
  });

  it('filters the list by name as the user types, and keeps the filter in the URL', async () => {
    const page = await newPage();
    await page.goto(`${base}/dags`);
    await page.getByRole('link', { name: 'hello' }).waitFor();
    await page.getByRole('searchbox', { name: 'Filter DAGs by name' }).fill('etl');
    await page.getByRole('link', { name: 'hello' }).waitFor({ state: 'detached' });
    expect([await rowNames(page), new URL(page.url()).search]).toEqual([['etl-daily'], '?search=etl']);
    await screenshot(page, 'dag-list-search');
  });

  it('opens a deep link with a tag filter, in the dark theme and on a phone-sized screen', async () => {
    const page = await newPage({ width: 390, height: 844 }, 'dark');
    await page.goto(`${base}/dags?tag=reports`);
    await page.getByRole('link', { name: 'report-weekly' }).waitFor();
    expect(await rowNames(page)).toEqual(['report-weekly']);
    // The dark theme's background (tokens.css --bg), taken from the system preference.
    // A string, since this file is type-checked without the DOM's types.
    expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(13, 16, 20)');
    await screenshot(page, 'dag-list-phone-dark');
  });
});

describe('the web UI behind Basic auth', () => {
  let guarded: Server;
  let guardedBase: string;

  beforeAll(async () => {
    guarded = await startApi(ns, operator.url, [
      (app) => {
        registerAuth(app, { basic: [{ username: 'ada', password: 'lovelace' }] });
      },
    ]);
    guardedBase = await serve(guarded);
  });

  afterAll(async () => {
    await guarded.close();
  });

  it('asks for credentials with its own form, never the browser login dialog a plain fetch would raise, shows the DAGs once signed in, and asks again after signing out', async () => {
    const page = await newPage();
    const challenges = await authChallenges(page);
    await page.goto(`${guardedBase}/dags`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await screenshot(page, 'sign-in');
    await page.getByText('User and password').click();
    await page.getByRole('textbox', { name: 'User' }).fill('ada');
    await page.getByLabel('Password', { exact: true }).fill('wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Not accepted' }).waitFor();
    await page.getByLabel('Password', { exact: true }).fill('lovelace');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'etl-daily' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect([await page.getByRole('link', { name: 'etl-daily' }).count(), challenges]).toEqual([0, []]);
    // The check above can see a dialog: a fetch with the browser's default credentials mode gets one.
    await page.evaluate(async () => {
      await fetch('/api/v2/dags');
    });
    expect(challenges).toEqual([`${guardedBase}/api/v2/dags`]);
  });
});

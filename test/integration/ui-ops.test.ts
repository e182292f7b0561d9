/**
 * The web UI's operations pages in a headless Chromium: dashboard, runs, queues, workers,
 * system and search, against the API server and the operator on the local control plane.
 * Given a run that succeeded, one that failed, one running and two queued behind it (the DAG
 * allows one active run), each page must show them; every page passes the accessibility scan.
 * Screenshots land in .dev/ui-screenshots/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../apiserver/server.ts';
import type { ContractClient } from './api-support.ts';
import { accessibilityProblems } from './axe-support.ts';
import { launchChromium } from '../../scripts/chromium.ts';
import { openPage, screenshot } from './browser-support.ts';
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
  'ops-hello': 'description: Says hello\nsteps:\n  - {name: greet, command: echo hello}\n',
  'ops-broken':
    'description: Fails on purpose\nsteps:\n  - {name: prepare, command: echo ready}\n  - {name: boom, command: exit 3, depends: prepare}\n',
  'ops-slow':
    'description: One long run at a time; the others wait in its queue\nmaxActiveRuns: 1\nsteps:\n  - {name: wait, command: sleep 600}\n',
  'ops-needle': 'description: Has a line to find\nsteps:\n  - {name: find, command: echo haystack-needle-42}\n',
};

interface RunAnswer {
  readonly dagRunDetails: { readonly statusLabel: string; readonly finishedAt: string };
}

async function runState(name: string, dagRunId: string): Promise<RunAnswer['dagRunDetails'] | undefined> {
  const res = await api.call('GET', `/api/v2/dag-runs/${name}/${dagRunId}`);
  return res.status === 200 ? (res.body as RunAnswer).dagRunDetails : undefined;
}

async function untilRun(
  name: string,
  dagRunId: string,
  what: string,
  check: (run: RunAnswer['dagRunDetails']) => boolean,
): Promise<void> {
  await waitFor(
    `run ${name}/${dagRunId} ${what}`,
    async () => {
      const run = await runState(name, dagRunId);
      return run !== undefined && check(run);
    },
    60_000,
    200,
  );
}

const newPage = (viewport = { width: 1280, height: 800 }, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> =>
  openPage(browser, { viewport, colorScheme });

beforeAll(async () => {
  ({ ns, operator, server, api, base } = await startUiStack('kd-ui-ops'));
  for (const [name, spec] of Object.entries(DAGS))
    expect((await api.call('POST', '/api/v2/dags', { name, spec })).status).toBe(201);
  for (const name of ['ops-hello', 'ops-broken'])
    expect((await api.call('POST', `/api/v2/dags/${name}/start`, { dagRunId: `${name}-1` })).status).toBe(200);
  expect((await api.call('POST', '/api/v2/dags/ops-slow/start', { dagRunId: 'long-1' })).status).toBe(200);
  await untilRun('ops-slow', 'long-1', 'to run', (run) => run.statusLabel === 'running');
  for (const id of ['waiting-1', 'waiting-2'])
    expect((await api.call('POST', '/api/v2/dags/ops-slow/enqueue', { dagRunId: id })).status).toBe(200);
  await Promise.all(
    ['ops-hello', 'ops-broken'].map((name) => untilRun(name, `${name}-1`, 'to finish', (run) => run.finishedAt !== '')),
  );
  browser = await launchChromium();
});

afterAll(async () => {
  await stopUiStack({ ns, operator, server }, browser);
});

describe('the dashboard', () => {
  it('shows today’s runs by status, what runs and waits now, and a failure one click from its step’s stderr', async () => {
    const page = await newPage();
    await page.goto(base);
    const tiles = page.getByRole('list', { name: 'Runs by status' });
    await tiles.getByRole('link', { name: '5 Runs' }).waitFor();
    expect(await tiles.getByRole('link').allTextContents()).toEqual([
      '5Runs',
      '1Succeeded',
      '1Failed',
      '1Running',
      '2Queued',
    ]);
    const now = page.getByRole('region', { name: 'Now' });
    await now.getByRole('link', { name: /waiting-2/ }).waitFor();
    expect(await now.locator('.run-link .run-id').allTextContents()).toEqual(['long-1', 'waiting-1', 'waiting-2']);
    const log = page.getByRole('region', { name: 'Recent failures' }).getByRole('link', { name: 'Step boom: stderr' });
    await log.waitFor();
    expect(await log.getAttribute('href')).toBe('/runs/ops-broken/ops-broken-1/steps/boom/log?stream=stderr');
    expect(await page.getByRole('img', { name: /Runs per hour today: 5 runs/ }).count()).toBe(1);
    await screenshot(page, 'dashboard');
    expect(await accessibilityProblems(page)).toEqual([]);
    await log.click();
    await page.waitForURL((url) => url.pathname === '/runs/ops-broken/ops-broken-1/steps/boom/log');
    expect(new URL(page.url()).search).toBe('?stream=stderr');
  });

  it('keeps the period in the URL, and reads well in the dark on a phone', async () => {
    const page = await newPage({ width: 390, height: 844 }, 'dark');
    await page.goto(`${base}/?period=7d`);
    await page.getByRole('img', { name: /Runs per day: 5 runs in 7 days/ }).waitFor();
    expect(await page.getByRole('radio', { name: '7 days' }).isChecked()).toBe(true);
    // A click, not check(): the radio follows the URL, which the router updates a moment later.
    await page.getByRole('radio', { name: '30 days' }).click();
    await page.getByRole('img', { name: /in 30 days/ }).waitFor();
    expect(new URL(page.url()).search).toBe('?period=30d');
    await page
      .getByRole('region', { name: 'Recent failures' })
      .getByRole('link', { name: 'Step boom: stderr' })
      .waitFor();
    await screenshot(page, 'dashboard-phone-dark');
    expect(await accessibilityProblems(page)).toEqual([]);
  });
});

describe('the runs page', () => {
  it('lists every run newest first, filters by status and DAG name, and keeps the filters in the URL', async () => {
    const page = await newPage();
    await page.goto(`${base}/runs`);
    const names = page.locator('tbody tr .run-dag');
    await page.getByRole('link', { name: /ops-hello/ }).waitFor();
    // In the API's order, newest first (runs made in the same second are ordered by run id).
    const listed = ((await api.call('GET', '/api/v2/dag-runs')).body as { dagRuns: { name: string }[] }).dagRuns.map(
      (r) => r.name,
    );
    expect([await names.allTextContents(), [...listed].sort()]).toEqual([
      listed,
      ['ops-broken', 'ops-hello', 'ops-slow', 'ops-slow', 'ops-slow'],
    ]);
    await screenshot(page, 'runs');
    await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Failed' });
    await page.getByRole('link', { name: /ops-hello/ }).waitFor({ state: 'detached' });
    expect([await names.allTextContents(), new URL(page.url()).search]).toEqual([['ops-broken'], '?status=failed']);
    await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Every status' });
    await page.getByRole('searchbox', { name: 'DAG name' }).fill('slow');
    await page.getByRole('link', { name: /ops-broken/ }).waitFor({ state: 'detached' });
    expect([await names.allTextContents(), new URL(page.url()).search]).toEqual([
      ['ops-slow', 'ops-slow', 'ops-slow'],
      '?name=slow',
    ]);
    expect(await page.getByRole('link', { name: /long-1/ }).getAttribute('href')).toBe('/runs/ops-slow/long-1');
    expect(await accessibilityProblems(page)).toEqual([]);
  });
});

describe('the runs page with thousands of runs', () => {
  it('draws one page of them, and pages to the oldest', async () => {
    const page = await newPage();
    const start = Date.parse('2026-11-24T12:00:00Z');
    const dagRuns = Array.from({ length: 5000 }, (_, i) => {
      const at = new Date(start - i * 60_000).toISOString();
      return {
        rootDAGRunName: 'bulk',
        rootDAGRunId: `r${String(i)}`,
        parentDAGRunName: '',
        parentDAGRunId: '',
        dagRunId: `r${String(i)}`,
        name: 'bulk',
        status: 4,
        statusLabel: 'succeeded',
        queuedAt: '',
        startedAt: at,
        finishedAt: at,
        log: '',
        params: '',
      };
    });
    // The list as the API would answer it for 5,000 runs; only this page's reads are faked.
    await page.route(
      (url) => url.pathname === '/api/v2/dag-runs',
      (route) => route.fulfill({ json: { dagRuns } }),
    );
    await page.goto(`${base}/runs?period=all`);
    await page.getByRole('link', { name: /^bulk r0$/ }).waitFor();
    const drawn = await page.locator('tbody tr').count();
    expect([drawn, await page.getByRole('table').getAttribute('aria-rowcount')]).toEqual([50, '5001']);
    await page.getByRole('navigation', { name: 'Pages of runs' }).getByRole('button', { name: 'Page 100' }).click();
    await page.getByRole('link', { name: /^bulk r4999$/ }).waitFor();
    expect(
      await page
        .getByRole('link', { name: /^bulk r4999$/ })
        .locator('xpath=ancestor::tr')
        .getAttribute('aria-rowindex'),
    ).toBe('5001');
  });
});

describe('the runs page on a phone', () => {
  it('opens a deep link with filters, in the dark, as one card per run', async () => {
    const page = await newPage({ width: 390, height: 844 }, 'dark');
    await page.goto(`${base}/runs?status=queued&period=all`);
    await page.getByRole('link', { name: /waiting-2/ }).waitFor();
    expect([
      (await page.locator('tbody tr .run-id').allTextContents()).sort(),
      await page.getByRole('radio', { name: 'All time' }).isChecked(),
    ]).toEqual([['waiting-1', 'waiting-2'], true]);
    await screenshot(page, 'runs-phone-dark');
    expect(await accessibilityProblems(page)).toEqual([]);
  });
});

describe('the queues page', () => {
  it('shows the DAG’s queue with its running run and the runs waiting in order, and dequeues one', async () => {
    const page = await newPage();
    await page.goto(`${base}/queues`);
    const queue = page.getByRole('region', { name: 'ops-slow' });
    await queue.getByRole('link', { name: /waiting-2/ }).waitFor();
    expect([
      await queue.locator('.run-items').first().locator('.run-id').allTextContents(),
      await queue.locator('.queued-runs .run-id').allTextContents(),
    ]).toEqual([['long-1'], ['waiting-1', 'waiting-2']]);
    expect(await queue.getByRole('link', { name: /waiting-1/ }).getAttribute('href')).toBe('/runs/ops-slow/waiting-1');
    await screenshot(page, 'queues');
    expect(await accessibilityProblems(page)).toEqual([]);
    await queue.getByRole('button', { name: 'Dequeue waiting-2' }).click();
    const confirm = queue.getByRole('group', { name: 'Dequeue waiting-2?' });
    await screenshot(page, 'queues-dequeue');
    await confirm.getByRole('button', { name: 'Dequeue' }).click();
    await queue.getByRole('link', { name: /waiting-2/ }).waitFor({ state: 'detached' });
    expect(await queue.locator('.queued-runs .run-id').allTextContents()).toEqual(['waiting-1']);
    // A dequeued run is deleted, as in Dagu: the API no longer has it.
    await waitFor(
      'the dequeued run to be gone',
      async () => (await runState('ops-slow', 'waiting-2')) === undefined,
      10_000,
      200,
    );
  });
});

describe('the workers page', () => {
  it('shows the local nodes, healthy, with their labels and the run that has a step on one of them', async () => {
    const page = await newPage();
    await page.goto(`${base}/workers`);
    const nodes = ['kubedag-node-1', 'kubedag-node-2'];
    await page.getByRole('region', { name: 'kubedag-node-2' }).waitFor();
    expect(await page.locator('.worker h2').allTextContents()).toEqual(nodes);
    expect(
      await Promise.all(nodes.map((node) => page.getByRole('region', { name: node }).locator('.status').textContent())),
    ).toEqual(['Healthy', 'Healthy']);
    expect(
      await page.getByRole('region', { name: 'kubedag-node-2' }).locator('.worker-labels > .labels').textContent(),
    ).toContain('gpu=true');
    const task = page.locator('.worker').getByRole('link', { name: /long-1/ });
    await task.waitFor();
    expect(await task.getAttribute('href')).toBe('/runs/ops-slow/long-1');
    await screenshot(page, 'workers');
    expect(await accessibilityProblems(page)).toEqual([]);
  });
});

describe('the system page', () => {
  it('shows the API server healthy with its version, the operator as scheduler leader, and the links for tools', async () => {
    const page = await newPage();
    await page.goto(`${base}/system`);
    const health = page.getByRole('region', { name: 'Health' });
    await health.getByText('Healthy').waitFor();
    expect(await health.locator('.field-row').filter({ hasText: 'Version' }).locator('dd').textContent()).toBe('test');
    const leader = page.getByRole('region', { name: 'Scheduler leader' });
    await leader.getByText('Current').waitFor();
    const numbers = page.getByRole('region', { name: 'In numbers' });
    await numbers.locator('.field-row').filter({ hasText: 'DAGs' }).locator('dd', { hasText: '4' }).waitFor();
    expect([
      await page.getByRole('link', { name: 'Metrics' }).getAttribute('href'),
      await page.getByRole('link', { name: 'OpenAPI document' }).getAttribute('href'),
    ]).toEqual(['/api/v2/metrics', '/api/v2/openapi.json']);
    await screenshot(page, 'system');
    expect(await accessibilityProblems(page)).toEqual([]);
  });
});

describe('the search page', () => {
  it('finds a line in a DAG’s spec, highlights the match, links to the DAG, and keeps the query in the URL', async () => {
    const page = await newPage();
    await page.goto(`${base}/search`);
    await page.getByRole('searchbox', { name: 'Search DAG specs' }).fill('needle-\\d+');
    const result = page.getByRole('article', { name: 'ops-needle' });
    await result.waitFor();
    expect(new URL(page.url()).searchParams.get('q')).toBe('needle-\\d+');
    expect([
      await result.locator('mark').allTextContents(),
      await result.locator('.snippet-match').textContent(),
    ]).toEqual([['needle-42'], expect.stringContaining('command: echo haystack-needle-42')]);
    expect(await result.getByRole('link', { name: 'ops-needle' }).getAttribute('href')).toBe('/dags/ops-needle');
    expect(await page.locator('.search-result').count()).toBe(1);
    await screenshot(page, 'search');
    expect(await accessibilityProblems(page)).toEqual([]);
  });

  it('opens a deep link with the query, and says when nothing matches', async () => {
    const page = await newPage({ width: 390, height: 844 }, 'dark');
    await page.goto(`${base}/search?q=${encodeURIComponent('nothing-has-this')}`);
    await page.getByText('No DAG spec matches “nothing-has-this”.').waitFor();
    expect(await page.getByRole('searchbox', { name: 'Search DAG specs' }).inputValue()).toBe('nothing-has-this');
    await screenshot(page, 'search-phone-dark');
    expect(await accessibilityProblems(page)).toEqual([]);
  });
});

describe('the DAG list', () => {
  it('passes the accessibility scan too', async () => {
    const page = await newPage();
    await page.goto(`${base}/dags`);
    await page.getByRole('link', { name: 'ops-needle' }).waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
  });
});

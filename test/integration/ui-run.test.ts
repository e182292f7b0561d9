/**
 * The run page and the log viewer in a real headless Chromium, against the API server and the
 * operator on the local control plane. Runs are made through the API; the browser must show
 * them and act on them. Screenshots land in .dev/ui-screenshots/run-*.png.
 */
import { readFile } from 'node:fs/promises';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../apiserver/server.ts';
import type { ContractClient } from './api-support.ts';
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
/** Errors the pages threw: none is expected. */
const pageErrors: string[] = [];

const DAGS: Record<string, string> = {
  pipeline: [
    'description: Extracts the day’s rows, then a report that fails',
    'steps:',
    '  - {name: extract, command: echo 42, output: ROWS}',
    '  - name: report',
    '    depends: extract',
    `    command: "sh -c 'for i in 1 2 3; do echo report-problem-$i >&2; done; echo partial output; exit 3'"`,
    '    retryPolicy: {limit: 1, intervalSec: 0}',
    'handlerOn:',
    '  failure: {command: echo cleaning up}',
  ].join('\n'),
  sleeper: 'steps:\n  - {name: wait, command: sleep 300}\n',
  busy: 'maxActiveRuns: 1\nsteps:\n  - {name: hold, command: sleep 300}\n',
  // 10,000 lines at once, then one more every 0.3 s until stopped.
  chatty: [
    'steps:',
    '  - name: talk',
    `    command: "sh -c 'i=1; while [ $i -le 10000 ]; do echo line-$i; i=$((i+1)); done; while :; do echo line-$i; i=$((i+1)); sleep 0.3; done'"`,
  ].join('\n'),
  parent: [
    'steps:',
    '  - {name: prepare, command: echo ready}',
    '  - {name: fan, depends: prepare, call: child}',
    '---',
    'name: child',
    'steps: [echo from-the-child]',
  ].join('\n'),
};

type Details = {
  dagRunDetails: { statusLabel: string; finishedAt: string; nodes: { step: { name: string }; statusLabel: string }[] };
};

async function details(name: string, dagRunId: string): Promise<Details['dagRunDetails'] | undefined> {
  const res = await api.call('GET', `/api/v2/dag-runs/${name}/${dagRunId}`);
  return res.status === 200 ? (res.body as Details).dagRunDetails : undefined;
}

async function finished(name: string, dagRunId: string): Promise<void> {
  await waitFor(
    `run ${name}/${dagRunId} to finish`,
    async () => ((await details(name, dagRunId))?.finishedAt ?? '') !== '',
    90_000,
    200,
  );
}

async function statusIs(name: string, dagRunId: string, label: string): Promise<void> {
  await waitFor(
    `run ${name}/${dagRunId} to be ${label}`,
    async () => (await details(name, dagRunId))?.statusLabel === label,
    60_000,
    200,
  );
}

async function start(name: string, dagRunId: string): Promise<void> {
  expect((await api.call('POST', `/api/v2/dags/${name}/start`, { dagRunId })).status).toBe(200);
}

const newPage = (viewport = { width: 1280, height: 860 }, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> =>
  openPage(browser, {
    viewport,
    colorScheme,
    timeoutMs: 20_000,
    acceptDownloads: true,
    onPageError: (message) => pageErrors.push(message),
  });

/**
 * What axe-core finds serious or critical in the page's content as it is now: rule id and the
 * elements. The navigation around it is the app shell's, scanned with the shell.
 */
async function accessibilityProblems(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).include('main').analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** The text of each timeline row's name, in order. */
const timelineNames = (page: Page): Promise<string[]> => page.locator('.tl-row .tl-name a').allTextContents();

beforeAll(async () => {
  ({ ns, operator, server, api, base } = await startUiStack('kd-ui-run'));
  for (const [name, spec] of Object.entries(DAGS))
    expect((await api.call('POST', '/api/v2/dags', { name, spec })).status).toBe(201);
  await start('pipeline', 'first');
  await start('parent', 'p1');
  await Promise.all([finished('pipeline', 'first'), finished('parent', 'p1')]);
  browser = await launchChromium();
});

afterAll(async () => {
  await stopUiStack({ ns, operator, server }, browser);
});

describe('the run page', () => {
  it('shows a finished run: header, timeline with the retried attempt, steps with exit code, outputs and errors, and the handler apart', async () => {
    const page = await newPage();
    await page.goto(`${base}/runs/pipeline/first`);
    await page.getByRole('heading', { level: 1, name: /pipeline/ }).waitFor();
    expect(await page.locator('h1 .status').textContent()).toBe('Failed');
    // Who started it (the run's kubedag.io/started-by, read from Kubedag's origin endpoint); authentication is off here.
    const startedBy = page.locator('.run-started-by');
    await startedBy.waitFor();
    expect([await startedBy.locator('dt').textContent(), await startedBy.locator('dd').textContent()]).toEqual([
      'Started by',
      'anonymous (none)',
    ]);
    expect(await timelineNames(page)).toEqual(['extract', 'report', 'onFailure']);
    // Two attempts of the retried step, one bar each; the handler's row is marked as one.
    expect(await page.locator('.tl-row').nth(1).locator('.tl-bar').count()).toBe(2);
    expect(await page.locator('.tl-row').nth(1).locator('.tl-mark').textContent()).toBe('↻1');
    expect(await page.locator('.tl-row.tl-handler').count()).toBe(1);
    const report = page.locator('.steps-table tr[data-step="report"]');
    expect(await report.locator('.status').textContent()).toBe('Failed');
    expect(await report.locator('td[data-label="Exit code"]').textContent()).toBe('3');
    expect(await report.locator('td[data-label="Retries"]').textContent()).toBe('1 retry');
    expect(await page.locator('.steps-table tr[data-step="extract"] .step-outputs').textContent()).toBe('ROWS42');
    expect(await page.getByRole('heading', { name: 'Handlers' }).isVisible()).toBe(true);
    expect(await page.locator('section[aria-labelledby="run-handlers"] .badge').textContent()).toBe('on failure');
    // The graph shows the run's statuses: the failed step in the failure tone, its handler apart.
    const graph = page.getByRole('group', { name: /^Steps of run/ });
    expect([
      await graph.locator('.graph-node[data-step="report"]').getAttribute('data-tone'),
      await graph.locator('.graph-handlers .graph-node').count(),
    ]).toEqual(['failure', 1]);
    // Long commands wrap in their cells: nothing is wider than the window.
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await screenshot(page, 'run-finished');
    expect(await accessibilityProblems(page)).toEqual([]);
  });

  it('is readable on a phone in the dark theme', async () => {
    const page = await newPage({ width: 390, height: 844 }, 'dark');
    await page.goto(`${base}/runs/pipeline/first`);
    await page.locator('.steps-table tr[data-step="report"]').waitFor();
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await screenshot(page, 'run-finished-phone-dark');
    expect(await accessibilityProblems(page)).toEqual([]);
  });

  it('opens a failing step’s stderr from the timeline and shows its lines, and switches to stdout', async () => {
    const page = await newPage();
    await page.goto(`${base}/runs/pipeline/first`);
    await page.locator('.tl-row').nth(1).getByRole('link', { name: 'report' }).click();
    await page.getByRole('region', { name: 'stderr of step report' }).waitFor();
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe(
      '/runs/pipeline/first/steps/report/log?stream=stderr',
    );
    await page.getByText('report-problem-3').waitFor();
    expect(await page.locator('.log-line .log-text').allTextContents()).toEqual([
      'report-problem-1',
      'report-problem-2',
      'report-problem-3',
    ]);
    expect(await page.locator('.log-line .log-no').allTextContents()).toEqual(['1', '2', '3']);
    await screenshot(page, 'run-log-stderr');
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.getByRole('navigation', { name: 'Stream' }).getByRole('link', { name: 'stdout' }).click();
    await page.getByRole('region', { name: 'stdout of step report' }).getByText('partial output').waitFor();
  });

  it('downloads a whole log as a file', async () => {
    const page = await newPage();
    await page.goto(`${base}/runs/pipeline/first/steps/report/log?stream=stderr`);
    await page.getByText('report-problem-3').waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download' }).click(),
    ]);
    const text = await readFile(await download.path(), 'utf8');
    expect([download.suggestedFilename(), text]).toEqual([
      'pipeline.first.report.stderr.log',
      'report-problem-1\nreport-problem-2\nreport-problem-3\n',
    ]);
  });

  it('opens a sub-run from its step, with breadcrumbs back to the root run', async () => {
    const page = await newPage();
    await page.goto(`${base}/runs/parent/p1`);
    await page.locator('.steps-table tr[data-step="fan"] .sub-run').click();
    await page.getByRole('heading', { level: 1, name: /child/ }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/runs\/parent\/p1\/sub-runs\/[^/]+$/);
    const crumbs = page.getByRole('navigation', { name: 'Breadcrumbs' });
    expect((await crumbs.getByRole('link').allTextContents()).slice(0, 3)).toEqual(['DAGs', 'parent', 'p1']);
    expect(await timelineNames(page)).toEqual(['cmd_1']);
    // The operator made the sub-run: no person is named.
    await page.locator('.run-started-by').waitFor();
    expect(await page.locator('.run-started-by dd').textContent()).toBe('its parent run');
    await screenshot(page, 'run-sub-run');
    await crumbs.getByRole('link', { name: 'p1' }).click();
    await page.getByRole('heading', { level: 1, name: /parent/ }).waitFor();
  });

  it('retries the run as a new run from the UI and shows the new run', async () => {
    const page = await newPage();
    await page.goto(`${base}/runs/pipeline/first`);
    await page.getByRole('button', { name: 'Retry', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Retry run first' });
    await dialog.getByRole('textbox', { name: 'New run id' }).fill('second');
    await screenshot(page, 'run-retry-dialog');
    await dialog.getByRole('button', { name: 'Retry as a new run' }).click();
    await page.waitForURL(`${base}/runs/pipeline/second`);
    await page.locator('.run-facts').getByText('second', { exact: true }).waitFor();
    await finished('pipeline', 'second');
    await page.locator('h1 .status', { hasText: 'Failed' }).waitFor();
    // The retry kept the step that succeeded and ran the failed one again.
    expect(await page.locator('.steps-table tr[data-step="extract"] .status').textContent()).toBe('Succeeded');
    await screenshot(page, 'run-retried');
  });

  it('sets a step’s status, retries that step alone in place, and reschedules the run', async () => {
    const page = await newPage();
    await page.goto(`${base}/runs/pipeline/first`);
    const report = page.locator('.steps-table tr[data-step="report"]');
    await report.getByRole('button', { name: 'Set the status of report' }).click();
    const edit = page.getByRole('dialog', { name: 'Set the status of report' });
    await edit.getByRole('combobox', { name: 'New status' }).selectOption({ label: 'Succeeded' });
    await screenshot(page, 'run-step-status-dialog');
    expect(await accessibilityProblems(page)).toEqual([]);
    await edit.getByRole('button', { name: 'Set status' }).click();
    await report.locator('.status', { hasText: 'Succeeded' }).waitFor();
    await report.getByRole('button', { name: 'Retry step report' }).click();
    await page.getByRole('dialog', { name: 'Retry step report?' }).getByRole('button', { name: 'Retry step' }).click();
    // The step ran again in this run and failed again; the page saw the run come back to life.
    await report.locator('.status', { hasText: 'Failed' }).waitFor({ timeout: 60_000 });
    await page.locator('h1 .status', { hasText: 'Failed' }).waitFor({ timeout: 60_000 });
    expect(await page.locator('.run-facts').getByText('first', { exact: true }).count()).toBe(1);
    await page.getByRole('button', { name: 'Reschedule' }).click();
    const reschedule = page.getByRole('dialog', { name: 'Reschedule pipeline' });
    await reschedule.getByRole('textbox', { name: 'New run id' }).fill('third');
    await reschedule.getByRole('button', { name: 'Start new run' }).click();
    await page.waitForURL(`${base}/runs/pipeline/third`);
    await finished('pipeline', 'third');
    await page.locator('.steps-table tr[data-step="extract"] .status', { hasText: 'Succeeded' }).waitFor();
  });

  it('stops a long-running run from its page', async () => {
    await start('sleeper', 'long');
    await statusIs('sleeper', 'long', 'running');
    const page = await newPage();
    await page.goto(`${base}/runs/sleeper/long`);
    await page.locator('.tl-running').waitFor();
    await page.getByText(/Live · updated/).waitFor();
    await screenshot(page, 'run-running');
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByRole('dialog', { name: 'Stop run long?' }).getByRole('button', { name: 'Stop run' }).click();
    // The page keeps polling until the run has ended, and then shows it.
    await page.locator('h1 .status', { hasText: 'Cancelled' }).waitFor({ timeout: 60_000 });
    expect(await page.getByRole('button', { name: 'Stop' }).count()).toBe(0);
    await screenshot(page, 'run-stopped');
  });

  it('dequeues a queued run', async () => {
    await start('busy', 'holding');
    await statusIs('busy', 'holding', 'running');
    expect((await api.call('POST', '/api/v2/dags/busy/enqueue', { dagRunId: 'waiting' })).status).toBe(200);
    const page = await newPage();
    await page.goto(`${base}/runs/busy/waiting`);
    await page.locator('h1 .status', { hasText: 'Queued' }).waitFor();
    await screenshot(page, 'run-queued');
    await page.getByRole('button', { name: 'Dequeue' }).click();
    await page
      .getByRole('dialog', { name: 'Dequeue run waiting?' })
      .getByRole('button', { name: 'Dequeue run' })
      .click();
    await page.getByText('Run waiting was taken off the queue').waitFor();
    expect((await api.call('GET', '/api/v2/dag-runs/busy/waiting')).status).toBe(404);
    expect((await api.call('POST', '/api/v2/dag-runs/busy/holding/stop')).status).toBe(200);
  });
});

describe('the log of a step writing 10,000 lines and more', () => {
  /** The number of the last line row in the DOM (the end of what is rendered). */
  const lastRendered = async (page: Page): Promise<number> =>
    Number((await page.locator('.log-line .log-no').last().textContent()) ?? '0');

  it('opens at the end, keeps few rows in the page, follows new lines, stops following when scrolled up, and pages from the start', async () => {
    await start('chatty', 'talk');
    await waitFor(
      '10,000 lines of chatty',
      async () => {
        const res = await api.call('GET', '/api/v2/dag-runs/chatty/talk/steps/talk/log?tail=1');
        return res.status === 200 && (res.body as { totalLines: number }).totalLines > 10_000;
      },
      60_000,
      250,
    );
    const page = await newPage();
    await page.goto(`${base}/runs/chatty/talk/steps/talk/log`);
    const log = page.getByRole('region', { name: 'stdout of step talk' });
    await log.waitFor();
    await page.getByRole('button', { name: 'Following' }).waitFor();
    const first = await lastRendered(page);
    expect(first).toBeGreaterThan(10_000);
    // Virtualised: thousands of lines held, a few dozen rendered.
    expect(await page.locator('.log-line').count()).toBeLessThan(150);
    // New lines arrive and come into view by themselves.
    await waitFor('new lines to come into view', async () => (await lastRendered(page)) > first + 3, 20_000, 250);
    await screenshot(page, 'run-log-follow');
    // Scrolling up stops following: the view stays where the reader is.
    await log.hover();
    await page.mouse.wheel(0, -4_000);
    await page.getByRole('button', { name: 'Follow new lines' }).waitFor();
    const held = await page.locator('.log-line .log-no').first().textContent();
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await page.locator('.log-line .log-no').first().textContent()).toBe(held);
    // Paging: the first lines of the log, then the next page.
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByText(/^Lines 1–5,000 of /).waitFor();
    await page.getByText('Not following').waitFor();
    expect(await page.locator('.log-line .log-text').first().textContent()).toBe('line-1');
    await page.getByRole('button', { name: 'Later' }).click();
    await page.getByText(/^Lines 5,001–10,000 of /).waitFor();
    // And back to the end, following again.
    await page.getByRole('button', { name: 'Follow', exact: true }).click();
    await page.getByRole('button', { name: 'Following' }).waitFor();
    await waitFor('the end to be in view again', async () => (await lastRendered(page)) > first, 10_000, 250);
    const phone = await newPage({ width: 390, height: 844 }, 'dark');
    await phone.goto(`${base}/runs/chatty/talk/steps/talk/log`);
    await phone.getByRole('region', { name: 'stdout of step talk' }).locator('.log-line').first().waitFor();
    await screenshot(phone, 'run-log-phone-dark');
    expect(await accessibilityProblems(phone)).toEqual([]);
    expect((await api.call('POST', '/api/v2/dag-runs/chatty/talk/stop')).status).toBe(200);
  });

  it('threw no error in any page', () => {
    expect(pageErrors).toEqual([]);
  });
});

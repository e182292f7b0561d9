/**
 * The web UI at scale in a real headless Chromium (issue 23, "no cliffs"), against the API
 * server on the local control plane. Given a finished run of 10,000 steps (its records sealed
 * in segments as the operator seals them) and a DAG with 130 finished runs, all written
 * straight into the Kubernetes API (ui-seed.ts): the run page draws a screenful of step rows
 * and reaches the last by scrolling, its graph is grouped by status instead of laid out, and
 * the runs page and a DAG's history tab show one page of runs at a time. Screenshots land in
 * .dev/ui-screenshots/scale-*.png.
 */
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../apiserver/server.ts';
import { ContractClient, startApi } from './api-support.ts';
import { accessibilityProblems } from './axe-support.ts';
import { launchChromium } from '../../scripts/chromium.ts';
import { openPage, SCREENSHOTS, serve } from './browser-support.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';
import { seedBigRun, seedHistory, stepName, type BigRun } from './ui-seed.ts';

const { core, kube } = clients();
const STEPS = 10_000;
const HISTORY = 130;

let ns: string;
let server: Server;
let api: ContractClient;
let base: string;
let browser: Browser | undefined;
let big: BigRun;
/** Errors the pages threw: none is expected. */
const pageErrors: string[] = [];

const count = new Intl.NumberFormat('en');

const newPage = (viewport = { width: 1280, height: 900 }): Promise<Page> =>
  openPage(browser as Browser, { viewport, timeoutMs: 30_000, onPageError: (message) => pageErrors.push(message) });

/** What the screen shows now (not the whole page: a table of 10,000 rows is 700,000 px tall). */
async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), animations: 'disabled' });
}

async function runsOf(path: string): Promise<string[]> {
  const res = await api.call('GET', path);
  return res.status === 200 ? (res.body as { dagRuns: { dagRunId: string }[] }).dagRuns.map((r) => r.dagRunId) : [];
}

/** The rows a table draws now (spacer rows stand in for the others). */
const drawnRows = (table: Locator): Locator => table.locator('tbody tr:not(.spacer-row)');
/** An attribute of each element a locator finds, in order. */
const attributes = async (found: Locator, name: string): Promise<(string | null)[]> =>
  Promise.all((await found.all()).map((element) => element.getAttribute(name)));
const rowIndexes = async (table: Locator): Promise<number[]> =>
  (await attributes(drawnRows(table), 'aria-rowindex')).map(Number);
const rowSteps = (table: Locator): Promise<(string | null)[]> => attributes(drawnRows(table), 'data-step');

beforeAll(async () => {
  ns = await createNamespace(core, 'kd-ui-scale');
  big = await seedBigRun(kube, ns, STEPS);
  await seedHistory(kube, ns, 'daily', HISTORY);
  server = await startApi(ns);
  api = new ContractClient(server.app);
  await api.load();
  base = await serve(server);
  await waitFor(
    'every step of the big run in its details',
    async () => {
      const res = await api.call('GET', `/api/v2/dag-runs/${big.dagName}/${big.dagRunId}`);
      return (
        res.status === 200 && (res.body as { dagRunDetails: { nodes: unknown[] } }).dagRunDetails.nodes.length === STEPS
      );
    },
    120_000,
    1000,
  );
  await waitFor(
    'the history in the cache',
    async () => (await runsOf('/api/v2/dag-runs/daily')).length === HISTORY,
    60_000,
    500,
  );
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server.close();
  await deleteNamespace(core, ns);
});

describe('the run page of a run of 10,000 steps', () => {
  it('draws a screenful of step rows, groups its graph by status, pages its timeline, and scrolls to the last step', async () => {
    expect(big.segments).toBeGreaterThan(1);
    const page = await newPage();
    await page.goto(`${base}/runs/${big.dagName}/${big.dagRunId}`);
    const table = page.getByRole('table', { name: 'Steps of the run' });
    await table.locator(`tr[data-step="${stepName(1)}"]`).waitFor();
    expect([(await drawnRows(table).count()) < 60, await table.getAttribute('aria-rowcount')]).toEqual([
      true,
      String(STEPS + 1),
    ]);
    // The graph is grouped, never laid out: no canvas, a note, and a count per status.
    const graph = page.getByRole('group', { name: `Steps of run ${big.dagRunId}` });
    const tiles = graph.locator('.graph-group-tile');
    const groups = [
      await attributes(tiles, 'data-status'),
      await tiles.locator('.graph-group-count').allTextContents(),
    ];
    const succeeded = STEPS - big.failed - big.skipped;
    expect([await graph.locator('.graph-canvas').count(), await graph.getByRole('note').textContent(), groups]).toEqual(
      [
        0,
        expect.stringContaining(`${count.format(STEPS)} steps are too many to draw`),
        [
          ['failed', 'succeeded', 'skipped'],
          [String(big.failed), count.format(succeeded), String(big.skipped)],
        ],
      ],
    );
    // The handler is still drawn, and its table is still there.
    expect([
      await graph.locator('.graph-handlers .graph-node').count(),
      await page.getByRole('table', { name: 'Handlers that ran' }).locator('tbody tr').count(),
    ]).toEqual([1, 1]);
    // The timeline shows a page of rows, with pages for the rest.
    expect([
      await page.locator('.tl-row').count(),
      await page.getByRole('navigation', { name: 'Pages of the timeline' }).locator('.pager-range').textContent(),
    ]).toEqual([100, `1–100 of ${count.format(STEPS + 1)} steps`]);
    await screenshot(page, 'scale-run-top');
    // Halfway down the page, the rows of the middle of the run are drawn, and only those.
    await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight / 2)');
    await expect
      .poll(async () => (await rowIndexes(table)).some((index) => Math.abs(index - STEPS / 2) < 1000), {
        timeout: 10_000,
      })
      .toBe(true);
    const middle = await rowIndexes(table);
    expect([middle.length < 60, Math.min(...middle) > 3000, Math.max(...middle) < 7000]).toEqual([true, true, true]);
    await screenshot(page, 'scale-run-middle');
    await page.keyboard.press('End');
    const last = table.locator(`tr[data-step="${stepName(STEPS)}"]`);
    await last.waitFor();
    expect([
      await last.getAttribute('aria-rowindex'),
      await last.locator('.status').textContent(),
      (await drawnRows(table).count()) < 60,
    ]).toEqual([String(STEPS + 1), 'Failed', true]);
    await page.keyboard.press('Home');
    expect(await accessibilityProblems(page)).toEqual([]);
  });

  it('lists a status group’s steps in the table, finds a step by name, and draws the graph a window at a time', async () => {
    const page = await newPage();
    await page.goto(`${base}/runs/${big.dagName}/${big.dagRunId}`);
    const graph = page.getByRole('group', { name: `Steps of run ${big.dagRunId}` });
    await graph.getByRole('button', { name: /^Failed/ }).click();
    await page.waitForURL((url) => url.searchParams.get('status') === 'failed');
    const table = page.getByRole('table', { name: 'Steps of the run' });
    const failed = Array.from({ length: big.failed }, (_, i) => stepName((i + 1) * 1000));
    await table.locator(`tr[data-step="${stepName(1000)}"]`).waitFor();
    expect([await rowSteps(table), await page.locator('.step-filter-count').textContent()]).toEqual([
      failed,
      `${String(big.failed)} of ${count.format(STEPS)} steps`,
    ]);
    await screenshot(page, 'scale-run-failed');
    await page.getByRole('searchbox', { name: 'Step name' }).fill('s0500');
    await page.waitForURL((url) => url.searchParams.get('step') === 's0500');
    await table.locator(`tr[data-step="${stepName(1000)}"]`).waitFor({ state: 'detached' });
    expect(await rowSteps(table)).toEqual([stepName(5000)]);
    await page.getByRole('button', { name: 'Show every step' }).click();
    await page.waitForURL((url) => url.search === '');
    // A window of the graph: 100 boxes laid out, then the third window.
    await graph.getByRole('button', { name: 'Draw steps 1–100' }).click();
    await graph.locator(`.graph-canvas .graph-node[data-step="${stepName(100)}"]`).waitFor();
    expect(await graph.locator('.graph-canvas .graph-node').count()).toBe(100);
    await graph
      .getByRole('navigation', { name: 'Windows of the graph' })
      .getByRole('button', { name: 'Page 3' })
      .click();
    await graph.locator(`.graph-canvas .graph-node[data-step="${stepName(201)}"]`).waitFor();
    expect([
      await graph.locator('.graph-canvas .graph-node').count(),
      await graph.locator(`.graph-canvas .graph-node[data-step="${stepName(1)}"]`).count(),
    ]).toEqual([100, 0]);
    await screenshot(page, 'scale-run-window');
  });

  it('is a list of cards on a phone, drawn a screenful at a time', async () => {
    const page = await newPage({ width: 390, height: 844 });
    await page.goto(`${base}/runs/${big.dagName}/${big.dagRunId}?status=failed`);
    const table = page.getByRole('table', { name: 'Steps of the run' });
    await table.locator(`tr[data-step="${stepName(1000)}"]`).waitFor();
    await page.getByRole('heading', { name: 'Steps', exact: true }).scrollIntoViewIfNeeded();
    await screenshot(page, 'scale-run-phone');
    await page.goto(`${base}/runs/${big.dagName}/${big.dagRunId}`);
    await table.locator(`tr[data-step="${stepName(1)}"]`).waitFor();
    expect([
      (await drawnRows(table).count()) < 40,
      await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'),
    ]).toEqual([true, true]);
    await screenshot(page, 'scale-run-phone-top');
  });
});

describe('history a page at a time', () => {
  it('the runs page shows one page of runs, in the API’s order, and pages through the rest', async () => {
    const all = await runsOf('/api/v2/dag-runs');
    expect(all.length).toBe(HISTORY + 1);
    const page = await newPage();
    await page.goto(`${base}/runs?period=all`);
    const table = page.getByRole('table');
    await table.locator('tbody tr').first().waitFor();
    const ids = (): Promise<string[]> => table.locator('tbody tr .run-id').allTextContents();
    expect([await ids(), await table.getAttribute('aria-rowcount')]).toEqual([
      all.slice(0, 50),
      String(all.length + 1),
    ]);
    const pager = page.getByRole('navigation', { name: 'Pages of runs' });
    await pager.getByRole('button', { name: 'Page 3' }).click();
    await page.waitForURL((url) => url.searchParams.get('page') === '3');
    await expect.poll(ids, { timeout: 10_000 }).toEqual(all.slice(100));
    expect([await ids(), await rowIndexes(table), await pager.locator('.pager-range').textContent()]).toEqual([
      all.slice(100),
      all.slice(100).map((_, i) => 102 + i),
      `101–${String(all.length)} of ${String(all.length)} runs`,
    ]);
    // Another page size starts again from the first page; another filter too, keeping the size.
    await pager.getByRole('combobox').selectOption('100');
    await page.waitForURL((url) => url.searchParams.get('perPage') === '100' && !url.searchParams.has('page'));
    await expect.poll(ids, { timeout: 10_000 }).toEqual(all.slice(0, 100));
    await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Failed' });
    await page.waitForURL((url) => url.searchParams.get('status') === 'failed');
    const failed = await runsOf('/api/v2/dag-runs?status=2');
    await expect.poll(ids, { timeout: 10_000 }).toEqual(failed);
    expect(new URL(page.url()).searchParams.get('perPage')).toBe('100');
    expect(await accessibilityProblems(page)).toEqual([]);
  });

  it('a DAG’s history tab lists every run beneath its grid, a page at a time', async () => {
    const all = await runsOf('/api/v2/dag-runs/daily');
    const page = await newPage();
    await page.goto(`${base}/dags/daily/history`);
    const grid = page.getByRole('region', { name: 'Run history of daily' });
    await grid.locator('thead a').first().waitFor();
    const section = page.getByRole('region', { name: 'Every run' });
    const ids = (): Promise<string[]> => section.locator('tbody tr .run-id').allTextContents();
    await section.locator('tbody tr').first().waitFor();
    expect([await grid.locator('thead a').count(), await ids()]).toEqual([30, all.slice(0, 50)]);
    await section.getByRole('navigation', { name: 'Pages of runs' }).getByRole('button', { name: 'Page 3' }).click();
    await page.waitForURL((url) => url.searchParams.get('page') === '3');
    await expect.poll(ids, { timeout: 10_000 }).toEqual(all.slice(100));
    await screenshot(page, 'scale-dag-history');
    expect(await accessibilityProblems(page)).toEqual([]);
  });

  it('the history grid of a DAG of 10,000 steps shows a page of step rows, the handler on the last', async () => {
    const page = await newPage();
    await page.goto(`${base}/dags/${big.dagName}/history`);
    const grid = page.getByRole('region', { name: `Run history of ${big.dagName}` });
    await grid.locator('tbody th').first().waitFor();
    const pager = page.getByRole('navigation', { name: 'Pages of steps' });
    expect([
      await grid.locator('tbody tr').count(),
      await grid.locator('tbody th').first().textContent(),
      await pager.locator('.pager-range').textContent(),
    ]).toEqual([50, stepName(1), `1–50 of ${count.format(STEPS + 1)} steps`]);
    await screenshot(page, 'scale-dag-history-big');
    await pager.getByRole('button', { name: 'Page 201' }).click();
    await grid.getByRole('rowheader', { name: 'onFailure' }).waitFor();
    expect(await grid.locator('tbody tr').count()).toBe(1);
    // The graph tab of that DAG is grouped too: no layout of 10,000 boxes there either.
    await page.goto(`${base}/dags/${big.dagName}`);
    const graph = page.getByRole('group', { name: `Steps of ${big.dagName}` });
    // Coloured by the latest run's statuses once that run is read.
    await graph.locator('.graph-group-tile[data-status="failed"]').waitFor();
    expect([await graph.locator('.graph-canvas').count(), await graph.locator('.graph-group-tile').count()]).toEqual([
      0, 3,
    ]);
  });

  it('threw no error on any page', () => {
    expect(pageErrors).toEqual([]);
  });
});

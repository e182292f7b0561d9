/**
 * A DAG's page end to end in a headless Chromium, against the API server and the operator on
 * the local control plane: a DAG made with "New DAG", written in the editor (a problem shown
 * as it is typed, gone when fixed), saved, started with params from the start dialog, seen to
 * finish in the graph and in the history grid, then renamed and deleted. Screenshots land in
 * .dev/ui-screenshots/dag-*.png.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../apiserver/server.ts';
import type { ContractClient } from './api-support.ts';
import { launchChromium } from '../../scripts/chromium.ts';
import { openPage, screenshot } from './browser-support.ts';
import type { RunningOperator } from './operator-support.ts';
import { startUiStack, stopUiStack } from './ui-stack.ts';
import { waitFor } from './support.ts';

const fixture = (name: string): string =>
  readFileSync(join(import.meta.dirname, `../fixtures/dags/ui/${name}.yaml`), 'utf8');
const GREETER = fixture('greeter');
/** The same spec with a misspelt key on line 7. */
const GREETER_TYPO = GREETER.replace('    command: echo preparing', '    comand: echo preparing');

/** The editor's 2.x check: snake_case keys, `run:` commands, handler `abort`. */
const GREETER_2X = [
  'description: greets in Dagu 2.x keys',
  'timeout_sec: 60',
  'handler_on:',
  '  abort:',
  '    run: echo stopped',
  'steps:',
  '  - id: prepare',
  '    run: echo preparing',
  '    retry_policy:',
  '      limit: 2',
  '      interval_sec: 1',
  '  - id: greet',
  '    run: echo hello',
  '    working_dir: /tmp',
  '',
].join('\n');

let ns: string;
let operator: RunningOperator;
let server: Server;
let api: ContractClient;
let base: string;
let browser: Browser;

const newPage = (viewport = { width: 1280, height: 860 }, colorScheme: 'light' | 'dark' = 'light'): Promise<Page> =>
  openPage(browser, { viewport, colorScheme });

/** Replaces the editor's text as a paste would: no auto-indent on the way in. */
async function replaceSpec(page: Page, text: string): Promise<void> {
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
}

/** An attribute of every element a locator finds, in order. */
const attributes = async (found: Locator, name: string): Promise<(string | null)[]> =>
  Promise.all((await found.all()).map((one) => one.getAttribute(name)));

const problems = (page: Page): Locator => page.getByRole('region', { name: 'Problems' });
const graphNode = (page: Page, name: string): Locator =>
  page.getByRole('group', { name: /^Steps of/ }).locator(`.graph-node[data-step="${name}"]`);

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

/**
 * What axe-core finds serious or critical in the page's content as it is now (dialogs are in
 * it), as `rule: target: why` lines. The frame around it is the app shell's, scanned by its
 * own tests.
 */
async function accessibilityProblems(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).include('#main').analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((node) => `${v.id}: ${node.target.join(' ')}: ${node.failureSummary ?? ''}`));
}

/** A fan-out DAG of `n` steps in graph form: step i waits for step (i-1)/4. */
function fanOut(n: number): string {
  const steps = Array.from(
    { length: n },
    (_, i) =>
      `  - name: s${String(i)}\n    command: "true"${i === 0 ? '' : `\n    depends: s${String(Math.floor((i - 1) / 4))}`}\n`,
  );
  return `type: graph\ndescription: ${String(n)} steps that fan out\nsteps:\n${steps.join('')}`;
}

beforeAll(async () => {
  ({ ns, operator, server, api, base } = await startUiStack('kd-ui-dag'));
  expect((await api.call('POST', '/api/v2/dags', { name: 'wide', spec: fanOut(150) })).status).toBe(201);
  // Two runs of checker, one by one (a DAG runs one at a time): one fails, the next succeeds.
  expect((await api.call('POST', '/api/v2/dags', { name: 'checker', spec: fixture('checker') })).status).toBe(201);
  for (const [dagRunId, params] of [
    ['bad', '{"FAIL":"yes"}'],
    ['good', undefined],
  ] as const) {
    expect(
      (await api.call('POST', '/api/v2/dags/checker/start', { dagRunId, ...(params === undefined ? {} : { params }) }))
        .status,
    ).toBe(200);
    await finished('checker', dagRunId);
  }
  browser = await launchChromium();
});

afterAll(async () => {
  await stopUiStack({ ns, operator, server }, browser);
});

describe('a DAG in the web UI, from New DAG to delete', () => {
  let page: Page;

  beforeAll(async () => {
    page = await newPage();
  });

  it('creates a DAG with "New DAG" and opens its spec in the editor', async () => {
    await page.goto(`${base}/dags`);
    await page.getByRole('button', { name: 'New DAG' }).click();
    const dialog = page.getByRole('dialog', { name: 'New DAG' });
    await dialog.getByRole('textbox', { name: 'Name' }).fill('greeter');
    await screenshot(page, 'dag-new');
    await dialog.getByRole('textbox', { name: 'Name' }).press('Enter');
    await page.waitForURL(`${base}/dags/greeter/spec`);
    await page.locator('.cm-content').getByText('hello from greeter').waitFor();
    expect((await api.call('GET', '/api/v2/dags/greeter')).status).toBe(200);
  });

  it('shows a misspelt key as a problem on its line while typing, and clears it once fixed', async () => {
    await replaceSpec(page, GREETER_TYPO);
    const problem = problems(page).getByRole('listitem');
    await problem.filter({ hasText: 'steps[0].comand: unknown key; did you mean "command"?' }).waitFor();
    expect([
      await problem.count(),
      await problem.getByRole('button').textContent(),
      await page.locator('.cm-lintRange-error').first().textContent(),
    ]).toEqual([1, 'Line 7', 'comand']);
    await screenshot(page, 'dag-spec-problem');
    await replaceSpec(page, GREETER);
    await problems(page).getByText('No problems found').waitFor();
    expect(await page.locator('.cm-lintRange-error').count()).toBe(0);
  });

  it('shows no problem for a spec in Dagu 2.x keys, and the server’s mixes-dialects error for a mixed one', async () => {
    await replaceSpec(page, GREETER_2X);
    await problems(page).getByText('No problems found').waitFor();
    expect(await page.locator('.cm-lintRange-error').count()).toBe(0);
    await screenshot(page, 'dag-spec-2x');
    await replaceSpec(page, GREETER_2X.replace('working_dir: /tmp', 'workingDir: /tmp'));
    const problem = problems(page).getByRole('listitem');
    await problem
      .filter({ hasText: '"workingDir" is a Dagu 1.x key, but this file is written in Dagu 2.x keys' })
      .waitFor();
    expect([await problem.count(), await page.locator('.cm-lintRange-error').first().textContent()]).toEqual([
      1,
      'workingDir',
    ]);
    await screenshot(page, 'dag-spec-mixed');
    await replaceSpec(page, GREETER);
    await problems(page).getByText('No problems found').waitFor();
  });

  it('saves the spec with Ctrl+S and the server has it', async () => {
    await page.keyboard.press('Control+S');
    await page
      .getByRole('status')
      .filter({ hasText: /^Saved$/ })
      .waitFor();
    const stored = (await api.call('GET', '/api/v2/dags/greeter/spec')).body as { spec: string };
    expect(stored.spec).toBe(GREETER);
    await screenshot(page, 'dag-spec');
  });

  it('shows the steps as a graph with the parallel pair boxed and the exit handler apart', async () => {
    await page.getByRole('navigation', { name: 'Views of the DAG' }).getByRole('link', { name: 'Graph' }).click();
    await graphNode(page, 'done').waitFor();
    const steps = await attributes(page.locator('.graph-plane .graph-node'), 'data-step');
    const handlers = page.getByRole('group', { name: 'Handlers' }).getByRole('button');
    expect([
      steps[0],
      steps[3],
      steps.slice(1, 3).sort(),
      await page.locator('.graph-group').count(),
      await handlers.allInnerTexts(),
    ]).toEqual(['prepare', 'done', ['greet', 'shout'], 1, ['On exit\necho bye']]);
  });

  it('starts it with a parameter from the dialog, and the graph shows every step finished', async () => {
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Start greeter' });
    expect([
      await dialog.getByRole('textbox', { name: 'NAME' }).inputValue(),
      await dialog.getByRole('textbox', { name: 'GREETING' }).inputValue(),
    ]).toEqual(['world', 'hello']);
    await dialog.getByRole('textbox', { name: 'NAME' }).fill('Ada');
    await dialog.getByRole('textbox', { name: 'Run ID' }).fill('from-the-dialog');
    await screenshot(page, 'dag-start-dialog');
    await dialog.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('status').filter({ hasText: 'Started run from-the-dialog of greeter' }).waitFor();
    await waitFor(
      'the graph to show every step succeeded',
      async () => (await page.locator('.graph-node[data-tone="success"]').count()) === 5,
      90_000,
      500,
    );
    const run = (await api.call('GET', '/api/v2/dag-runs/greeter/from-the-dialog')).body as {
      dagRunDetails: { params: string };
    };
    expect([JSON.parse(run.dagRunDetails.params), await page.locator('.latest-run .status').textContent()]).toEqual([
      { NAME: 'Ada', GREETING: 'hello' },
      'Succeeded',
    ]);
    await graphNode(page, 'greet').click();
    await page.getByRole('region', { name: 'Step greet' }).getByRole('link', { name: 'Output' }).waitFor();
    await screenshot(page, 'dag-graph');
  });

  it('shows the run in the history grid, a cell per step, each opening the run', async () => {
    await page.getByRole('link', { name: 'History' }).click();
    const grid = page.getByRole('region', { name: 'Run history of greeter' });
    await grid.getByRole('rowheader', { name: 'done' }).waitFor();
    const rows = await grid.getByRole('rowheader').allTextContents();
    const marks = grid.locator('a.history-mark');
    expect([rows, new Set(await attributes(marks, 'data-tone')), new Set(await attributes(marks, 'href'))]).toEqual([
      ['prepare', 'greet', 'shout', 'done', 'onExit'],
      new Set(['success']),
      new Set(['/runs/greeter/from-the-dialog']),
    ]);
    await screenshot(page, 'dag-history');
  });

  it('closes the start dialog with Escape, starting nothing', async () => {
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByRole('dialog', { name: 'Start greeter' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    const runs = (await api.call('GET', '/api/v2/dags/greeter/dag-runs')).body as { dagRuns: unknown[] };
    expect(runs.dagRuns.length).toBe(1);
  });

  it('renames the DAG from the spec tab and follows it to its new address', async () => {
    await page.getByRole('link', { name: 'Spec' }).click();
    await page.getByRole('button', { name: 'Rename' }).click();
    const name = page.getByRole('dialog', { name: 'Rename greeter' }).getByRole('textbox', { name: 'New name' });
    await name.fill('greeter-two');
    await name.press('Enter');
    await page.waitForURL(`${base}/dags/greeter-two/spec`);
    expect([
      (await api.call('GET', '/api/v2/dags/greeter')).status,
      (await api.call('GET', '/api/v2/dags/greeter-two')).status,
    ]).toEqual([404, 200]);
  });

  it('deletes it after asking, and goes back to the list without it', async () => {
    await page.locator('.cm-content').getByText('Greets someone').waitFor();
    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete greeter-two?' });
    await screenshot(page, 'dag-delete');
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(`${base}/dags`);
    await page.getByRole('link', { name: 'wide' }).waitFor();
    expect([
      await page.getByRole('link', { name: 'greeter-two' }).count(),
      (await api.call('GET', '/api/v2/dags/greeter-two')).status,
    ]).toEqual([0, 404]);
  });
});

describe('the DAG page elsewhere', () => {
  it('draws a graph of 150 steps promptly, on a phone, in the dark theme', async () => {
    const page = await newPage({ width: 390, height: 844 }, 'dark');
    const started = Date.now();
    await page.goto(`${base}/dags/wide`);
    await graphNode(page, 's149').waitFor({ state: 'attached' });
    const took = Date.now() - started;
    expect([await page.locator('.graph-plane .graph-node').count(), took < 5_000]).toEqual([150, true]);
    await screenshot(page, 'dag-graph-phone-dark');
  });

  it('shows a failed and a successful run side by side in the history, newest first, in the dark theme', async () => {
    const page = await newPage({ width: 1280, height: 760 }, 'dark');
    await page.goto(`${base}/dags/checker/history`);
    const grid = page.getByRole('region', { name: 'Run history of checker' });
    await grid.getByRole('rowheader', { name: 'onFailure' }).waitFor();
    const runs = await attributes(grid.locator('thead a'), 'href');
    const check = await attributes(grid.getByRole('row', { name: /^check/ }).locator('a.history-mark'), 'data-status');
    expect([runs, check]).toEqual([
      ['/runs/checker/good', '/runs/checker/bad'],
      ['succeeded', 'failed'],
    ]);
    await screenshot(page, 'dag-history-dark');
    await page.getByRole('link', { name: 'Graph' }).click();
    // The graph's line on the latest run links to it; the history grid, until it has gone, has
    // links named 'good' too, so the link is looked for in that line only.
    await page.locator('p.latest-run').getByRole('link', { name: 'good', exact: true }).waitFor();
    await screenshot(page, 'dag-graph-dark');
  });

  it('shows the editor on a phone', async () => {
    const page = await newPage({ width: 390, height: 844 });
    await page.goto(`${base}/dags/checker/spec`);
    await page.locator('.cm-content').getByText('Checks a flag').waitFor();
    await problems(page).getByText('No problems found').waitFor();
    await screenshot(page, 'dag-spec-phone');
  });

  it('lays out a 150-step graph on a laptop screen', async () => {
    const page = await newPage();
    await page.goto(`${base}/dags/wide`);
    await graphNode(page, 's149').waitFor({ state: 'attached' });
    await screenshot(page, 'dag-graph-large');
  });

  it('has no serious or critical accessibility problem on any tab, in the start dialog or the list, in either theme', async () => {
    const found: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      const page = await newPage(undefined, scheme);
      await page.goto(`${base}/dags/checker`);
      await page.getByRole('link', { name: 'good' }).waitFor();
      found.push(...(await accessibilityProblems(page)));
      await page.getByRole('link', { name: 'Spec' }).click();
      await problems(page).getByText('No problems found').waitFor();
      found.push(...(await accessibilityProblems(page)));
      await page.getByRole('link', { name: 'History' }).click();
      await page.getByRole('region', { name: 'Run history of checker' }).waitFor();
      found.push(...(await accessibilityProblems(page)));
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      await page.getByRole('dialog', { name: 'Start checker' }).waitFor();
      found.push(...(await accessibilityProblems(page)));
      await page.goto(`${base}/dags`);
      await page.getByRole('link', { name: 'checker' }).waitFor();
      found.push(...(await accessibilityProblems(page)));
    }
    expect(found).toEqual([]);
  });

  it('puts start, stop and the schedule switch on every row of the list, and the switch suspends the DAG', async () => {
    const page = await newPage();
    await page.goto(`${base}/dags`);
    const toggle = page.getByRole('switch', { name: 'Schedule wide' });
    expect([
      await toggle.getAttribute('aria-checked'),
      await page.getByRole('button', { name: 'Start wide' }).isEnabled(),
      await page.getByRole('button', { name: /wide has no running run/ }).isDisabled(),
    ]).toEqual(['true', true, true]);
    await toggle.click();
    await waitFor(
      'the DAG to be suspended',
      async () => ((await api.call('GET', '/api/v2/dags/wide')).body as { suspended: boolean }).suspended,
      10_000,
      200,
    );
    await page.getByRole('row', { name: /wide/ }).getByText('Suspended').waitFor();
    await screenshot(page, 'dag-list-actions');
  });
});

/**
 * A Dagu 2.x step that waits for a person, answered in the web UI in a real headless Chromium,
 * against the API server and the operator on the local control plane: the run page shows the
 * wait (prompt, inputs, which are required), refuses an approval without the required input,
 * approves with it, and the next step reads it; push back and reject with a reason likewise.
 * Dagu 2.x's init and wait handlers are drawn where the other handlers are: on the run page
 * while the run waits, then on the DAG's graph and history tabs, in the light and dark themes.
 * Screenshots land in .dev/ui-screenshots/run-approval-*.png and *-handlers-*.png.
 */
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../apiserver/server.ts';
import { launchChromium } from '../../scripts/chromium.ts';
import { ContractClient } from './api-support.ts';
import { openPage, screenshot } from './browser-support.ts';
import type { RunningOperator } from './operator-support.ts';
import { waitFor } from './support.ts';
import { startUiStack, stopUiStack } from './ui-stack.ts';

let ns: string;
let operator: RunningOperator;
let server: Server;
let api: ContractClient;
let v1: ContractClient;
let base: string;
let browser: Browser;
const pageErrors: string[] = [];

const RELEASE = `steps:
  - id: build
    run: echo built
  - id: review
    depends: [build]
    run: echo "ready for review"
    approval:
      prompt: Ship this build?
      input: [TICKET, NOTE]
      required: [TICKET]
  - id: ship
    depends: [review]
    run: echo "shipping \${TICKET}"
`;

/** A DAG with the init and wait handlers beside an exit handler. */
const GATE = `handler_on:
  init:
    run: echo "starting the gate"
  wait:
    run: echo "waiting on \${DAG_WAITING_STEPS}"
  exit:
    run: echo bye
steps:
  - id: review
    run: echo "ready for review"
    approval: {prompt: Open the gate?}
`;

interface Node {
  step: { name: string };
  status: number;
  statusLabel?: string;
  approvedBy?: string;
  approvalInputs?: Record<string, string>;
  rejectionReason?: string;
  approvalIteration?: number;
}
interface Run {
  status: number;
  statusLabel: string;
  finishedAt: string;
  nodes: Node[];
  onWait?: Node;
  onExit?: Node;
}

async function details(id: string, dag = 'release'): Promise<Run> {
  return ((await v1.call('GET', `/api/v1/dag-runs/${dag}/${id}`)).body as { dagRunDetails: Run }).dagRunDetails;
}

async function until(id: string, what: string, done: (run: Run) => boolean, dag = 'release'): Promise<Run> {
  let run: Run | undefined;
  await waitFor(
    `run ${id} ${what}`,
    async () => {
      run = await details(id, dag);
      return done(run);
    },
    60_000,
    200,
  );
  return run as Run;
}

const review = (run: Run): Node | undefined => run.nodes.find((n) => n.step.name === 'review');

async function waiting(id: string): Promise<Page> {
  expect((await api.call('POST', '/api/v2/dags/release/start', { dagRunId: id })).status).toBe(200);
  await until(id, 'to wait', (run) => run.status === 7);
  const page = await openPage(browser, {
    viewport: { width: 1280, height: 900 },
    timeoutMs: 30_000,
    onPageError: (message) => pageErrors.push(message),
  });
  await page.goto(`${base}/runs/release/${id}`);
  await page.getByRole('article', { name: 'Approval of review' }).waitFor();
  return page;
}

/** The names of the timeline's handler rows, in order. */
const handlerTimeline = (page: Page): Promise<string[]> =>
  page.locator('.tl-row.tl-handler .tl-name a').allTextContents();

async function accessibilityProblems(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).include('main').analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

beforeAll(async () => {
  ({ ns, operator, server, api, base } = await startUiStack('kd-ui-approval'));
  v1 = new ContractClient(server.app);
  await v1.load('/api/v1/openapi.json');
  expect((await api.call('POST', '/api/v2/dags', { name: 'release', spec: RELEASE })).status).toBe(201);
  expect((await api.call('POST', '/api/v2/dags', { name: 'gate', spec: GATE })).status).toBe(201);
  browser = await launchChromium();
});

afterAll(async () => {
  await stopUiStack({ ns, operator, server }, browser);
});

describe('a step waiting for approval on the run page', () => {
  it('shows the prompt and inputs, refuses a missing required input, approves with it, and the next step reads it', async () => {
    const page = await waiting('u1');
    const gate = page.getByRole('article', { name: 'Approval of review' });
    await gate.getByText('Ship this build?').waitFor();
    const inputs = gate.locator('input');
    expect([
      await inputs.count(),
      await inputs.nth(0).getAttribute('name'),
      await inputs.nth(1).getAttribute('name'),
    ]).toEqual([2, 'TICKET', 'NOTE']);
    expect(await gate.getByText('(required)').count()).toBe(1);
    expect(await gate.getByLabel('TICKET').getAttribute('aria-required')).toBe('true');
    await gate.getByRole('button', { name: 'Approve' }).click();
    expect(await gate.getByRole('alert').textContent()).toBe('Fill in the required input: TICKET.');
    expect(review(await details('u1'))?.status).toBe(7);
    await screenshot(page, 'run-approval-waiting');
    expect(await accessibilityProblems(page)).toEqual([]);
    await gate.getByLabel('TICKET').fill('T-42');
    await gate.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('status').filter({ hasText: 'Approved review: the run goes on.' }).waitFor();
    await page.locator('h1 .status', { hasText: 'Succeeded' }).waitFor();
    await page.locator('.approval-answers', { hasText: 'Approved' }).waitFor();
    await screenshot(page, 'run-approval-approved');
    const done = await details('u1');
    expect([done.statusLabel, review(done)?.approvalInputs]).toEqual(['succeeded', { ticket: 'T-42' }]);
    const log = (await v1.call('GET', '/api/v1/dag-runs/release/u1/steps/ship/log')).body as { content: string };
    expect(log.content).toBe('shipping T-42');
    expect(pageErrors).toEqual([]);
  });

  it('pushes the step back with inputs, shows it waiting again, then rejects it with a reason', async () => {
    const page = await waiting('u2');
    const gate = page.getByRole('article', { name: 'Approval of review' });
    await gate.getByLabel('TICKET').fill('T-7');
    await gate.getByRole('button', { name: 'Push back' }).click();
    await page.getByRole('status').filter({ hasText: 'Pushed review back' }).waitFor();
    const again = page.getByRole('article', { name: 'Approval of review' });
    await again.getByText('(pushed back 1×)').waitFor();
    expect(review(await details('u2'))?.approvalIteration).toBe(1);
    await again.getByRole('button', { name: 'Reject…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reject review?' });
    await dialog.getByLabel('Reason').fill('not this week');
    await screenshot(page, 'run-approval-reject');
    await dialog.getByRole('button', { name: 'Reject' }).click();
    await page.getByRole('status').filter({ hasText: 'Rejected review' }).waitFor();
    const done = await until('u2', 'to end', (run) => run.finishedAt !== '');
    expect([done.status, review(done)?.rejectionReason]).toEqual([8, 'not this week']);
    await page.locator('.approval-answers', { hasText: 'Rejected by' }).waitFor();
    expect(await page.locator('.approval-answers').textContent()).toContain('not this week');
    expect(pageErrors).toEqual([]);
  });

  it('draws the init and wait handlers on the run page while it waits, the wait handler’s box opening its log', async () => {
    expect((await api.call('POST', '/api/v2/dags/gate/start', { dagRunId: 'g1' })).status).toBe(200);
    await until('g1', 'to wait with its wait handler done', (run) => run.onWait?.statusLabel === 'succeeded', 'gate');
    const page = await openPage(browser, {
      viewport: { width: 1280, height: 900 },
      onPageError: (message) => pageErrors.push(message),
    });
    await page.goto(`${base}/runs/gate/g1`);
    const handlers = page.getByRole('group', { name: 'Steps of run g1' }).getByRole('group', { name: 'Handlers' });
    await handlers.getByRole('button', { name: /^On wait/ }).waitFor();
    expect(await handlers.getByRole('button').allInnerTexts()).toEqual(['On init\nSucceeded', 'On wait\nSucceeded']);
    expect(await handlerTimeline(page)).toEqual(['onInit', 'onWait']);
    expect(await page.getByRole('table', { name: 'Handlers that ran' }).locator('.badge').allTextContents()).toEqual([
      'on init',
      'on wait',
    ]);
    await screenshot(page, 'run-handlers-waiting');
    expect(await accessibilityProblems(page)).toEqual([]);
    await handlers.getByRole('button', { name: /^On wait/ }).click();
    await page.waitForURL(`${base}/runs/gate/g1/steps/onWait/log`);
    await page.getByText('waiting on review').waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('draws the init and wait handlers on the DAG’s graph and history tabs with the latest run’s statuses, in the dark theme', async () => {
    await until('g1', 'to be waiting', (run) => run.status === 7, 'gate');
    const page = await openPage(browser, {
      viewport: { width: 1280, height: 860 },
      colorScheme: 'dark',
      onPageError: (message) => pageErrors.push(message),
    });
    await page.goto(`${base}/runs/gate/g1`);
    await page.getByRole('article', { name: 'Approval of review' }).getByRole('button', { name: 'Approve' }).click();
    await until('g1', 'to end with its exit handler', (run) => run.onExit?.statusLabel === 'succeeded', 'gate');
    await page.goto(`${base}/dags/gate`);
    const handlers = page.getByRole('group', { name: 'Handlers' });
    await handlers.locator('.graph-node[data-step="onExit"][data-tone="success"]').waitFor();
    expect(await handlers.getByRole('button').allInnerTexts()).toEqual([
      'On init\nSucceeded',
      'On wait\nSucceeded',
      'On exit\nSucceeded',
    ]);
    await handlers.getByRole('button', { name: /^On wait/ }).click();
    const panel = page.getByRole('region', { name: 'Step onWait' });
    expect(await panel.locator('.step-command').textContent()).toBe('echo "waiting on ${DAG_WAITING_STEPS}"');
    await screenshot(page, 'dag-graph-handlers-dark');
    await page.goto(`${base}/dags/gate/history`);
    const grid = page.getByRole('region', { name: 'Run history of gate' });
    await grid.locator('a.history-mark').first().waitFor();
    expect(await grid.locator('tbody th').allTextContents()).toEqual(['review', 'onInit', 'onWait', 'onExit']);
    const marks = await grid.locator('tbody a.history-mark').all();
    expect(await Promise.all(marks.map((mark) => mark.getAttribute('data-status')))).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
      'succeeded',
    ]);
    await screenshot(page, 'dag-history-handlers-dark');
    expect(pageErrors).toEqual([]);
  });
});

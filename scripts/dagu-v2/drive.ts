/**
 * Dagu v2.15.1's web UI driven in headless chromium against Kubedag (through ./proxy.ts): the
 * DAG list, one DAG, a start from its Start dialog, the run followed to its end on the page
 * (the UI's own event stream), and a step's stdout in the UI's log viewer. Every answer the UI
 * got that was not 2xx, and every exception on the page, is collected for the report: a 501 of
 * Dagu's own product is expected; anything else is a finding.
 */
import type { Page, Response } from 'playwright-core';
import { launchChromium } from '../chromium.ts';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface DriveReport {
  checks: Check[];
  /** `STATUS METHOD path` of every non-2xx answer, once each. */
  failedAnswers: string[];
  pageErrors: string[];
}

export interface DriveOptions {
  origin: string;
  /** A DAG whose first step prints `expectLog`. */
  dag: string;
  expectLog: string;
  /** Where screenshots go (never the repository). */
  screenshotDir: string;
  finishSeconds?: number;
}

export function watch(page: Page, origin: string, report: DriveReport): void {
  const seen = new Set<string>();
  page.on('pageerror', (error) => report.pageErrors.push(error.message));
  page.on('response', (response: Response) => {
    if (response.status() < 400) return;
    const url = new URL(response.url());
    const line = `${String(response.status())} ${response.request().method()} ${url.pathname}`;
    if (url.origin === origin && !seen.has(line)) {
      seen.add(line);
      report.failedAnswers.push(line);
    }
  });
}

export async function step(report: DriveReport, name: string, body: () => Promise<string>): Promise<boolean> {
  try {
    report.checks.push({ name, ok: true, detail: await body() });
    return true;
  } catch (error) {
    report.checks.push({
      name,
      ok: false,
      detail: (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '',
    });
    return false;
  }
}

export async function startFromDialog(page: Page, options: { origin: string; dag: string }): Promise<string> {
  await page.goto(`${options.origin}/dags/${options.dag}`);
  await page.getByRole('button', { name: 'Start' }).first().click();
  const dialog = page.getByRole('dialog');
  const started = page.waitForResponse((r) => r.url().includes(`/api/v1/dags/${options.dag}/start`));
  await dialog.getByRole('button', { name: 'Start' }).click();
  const answer = await started;
  const body = (await answer.json()) as { dagRunId?: string };
  if (!answer.ok() || body.dagRunId === undefined) throw new Error(`start answered ${String(answer.status())}`);
  return body.dagRunId;
}

/** The status labels of Dagu's UI (`ui/src/api/v1/schema.ts`, Status), as its pages print them. */
const STATUS_LABEL = /^(not started|queued|running|waiting|succeeded|failed|aborted|partially succeeded|rejected)$/;

/**
 * Waits until the run page's header shows `want` and returns the labels it showed on the way.
 * The header's badge is the page's first status label (the step table's come after it); "Finished"
 * and a step's "succeeded" are on the page while the run still runs, so they prove nothing.
 */
export async function waitForRunStatus(page: Page, want: string, timeoutMs: number): Promise<string[]> {
  const badge = page.getByText(STATUS_LABEL).first();
  const seen: string[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = ((await badge.textContent({ timeout: timeoutMs })) ?? '').trim();
    if (seen.at(-1) !== text) seen.push(text);
    if (text === want) return seen;
    if (Date.now() > deadline) throw new Error(`the run page showed ${seen.join(' -> ')}, never ${want}`);
    await page.waitForTimeout(250);
  }
}

/** Runs every check in order; a failed check stops the ones that depend on it. */
export async function driveDaguUi(options: DriveOptions): Promise<DriveReport> {
  const report: DriveReport = { checks: [], failedAnswers: [], pageErrors: [] };
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    watch(page, options.origin, report);
    const shot = (name: string) => page.screenshot({ path: `${options.screenshotDir}/dagu-v2-${name}.png` });
    await step(report, 'list DAGs', async () => {
      await page.goto(`${options.origin}/dags/`);
      await page.getByText(options.dag, { exact: true }).first().waitFor();
      await shot('list');
      return `${options.dag} listed on /dags/`;
    });
    await step(report, 'open a DAG', async () => {
      await page.getByText(options.dag, { exact: true }).first().click();
      await page.waitForURL(`**/dags/${options.dag}**`);
      await page.getByRole('button', { name: 'Start' }).first().waitFor();
      await shot('dag');
      return `/dags/${options.dag} with its Start button`;
    });
    let runId = '';
    const started = await step(report, 'start it', async () => {
      runId = await startFromDialog(page, options);
      return `run ${runId} from the Start dialog`;
    });
    if (!started) return report;
    const finished = await step(report, 'watch it finish', async () => {
      await page.goto(`${options.origin}/dag-runs/${options.dag}/${runId}`);
      // The DAG's middle step sleeps, so the page opens on a running run and must change by itself.
      const seen = await waitForRunStatus(page, 'succeeded', (options.finishSeconds ?? 120) * 1000);
      await shot('run');
      return `the run's status went ${seen.join(' -> ')} without a reload`;
    });
    if (!finished) return report;
    await step(report, "read a step's log", async () => {
      await page.getByText('stdout', { exact: true }).first().click();
      await page.getByText(options.expectLog, { exact: true }).first().waitFor();
      await shot('log');
      return `"${options.expectLog}" in the step log viewer`;
    });
  } finally {
    await browser.close();
  }
  return report;
}

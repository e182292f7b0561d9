/**
 * A waiting step answered in Dagu v2.15.1's own web UI, against Kubedag (through ./proxy.ts):
 * start a 2.x DAG whose middle step has `approval`, see it wait on the run page, push it back
 * from the approval card's Retry dialog with an input, see it wait again, approve it, and see
 * the run end succeeded with the next step's log printing the input; then a second run rejected
 * with a reason from the page's Reject button.
 *
 * Why Retry first: in v2.15.1 the review dialog lists the step's `approval.input` fields only
 * for Retry (push back); its Approve dialog sends no inputs (`StepReviewModal.tsx`). So the only
 * way Dagu's UI gives a step an input is a push-back, whose inputs the re-run steps read.
 */
import type { Page } from 'playwright-core';
import { launchChromium } from '../chromium.ts';
import { startFromDialog, step, waitForRunStatus, watch, type DriveReport } from './drive.ts';

export interface ApproveOptions {
  origin: string;
  /** A DAG with one approval step `review` (input `TICKET`) and a step after it that prints it. */
  dag: string;
  /** Written into the Retry dialog's `TICKET` field. */
  ticket: string;
  /** What the step after the approval prints once it read the input. */
  expectLog: string;
  screenshotDir: string;
}

const WAIT_MS = 120_000;
/** The approval step's `approval.prompt` in the proof's DAG. */
const PROMPT = 'Ship this build?';

/** The approval card's button (Retry or Approve), then the same button in the dialog it opens. */
async function answerInDialog(page: Page, action: 'Retry' | 'Approve', fill?: Record<string, string>): Promise<number> {
  // The run page opens its Approval tab by itself whenever a step waits; the card is the
  // innermost block with the prompt and the button (the page's header has a retry button too).
  const card = page
    .locator('div', { has: page.getByText(PROMPT) })
    .filter({ has: page.getByRole('button', { name: action, exact: true }) })
    .last();
  await card.getByRole('button', { name: action, exact: true }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByText(`${action}: review`).waitFor();
  for (const [field, value] of Object.entries(fill ?? {})) await dialog.getByLabel(field).fill(value);
  const path = action === 'Retry' ? '/push-back' : '/approve';
  const answered = page.waitForResponse((r) => r.url().includes(`/steps/review${path}`));
  await dialog.getByRole('button', { name: action, exact: true }).click();
  const answer = await answered;
  if (!answer.ok()) throw new Error(`${action} answered ${String(answer.status())}: ${await answer.text()}`);
  await dialog.waitFor({ state: 'hidden' });
  return answer.status();
}

export async function driveApproval(options: ApproveOptions): Promise<DriveReport> {
  const report: DriveReport = { checks: [], failedAnswers: [], pageErrors: [] };
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    watch(page, options.origin, report);
    const snap = (name: string) => shot(page, options, name);
    let runId = '';
    const started = await step(report, 'start the approval DAG', async () => {
      runId = await startFromDialog(page, options);
      return `run ${runId} from the Start dialog`;
    });
    if (!started) return report;
    const waiting = await step(report, 'see the step wait', async () => {
      await page.goto(`${options.origin}/dag-runs/${options.dag}/${runId}`);
      const seen = await waitForRunStatus(page, 'waiting', WAIT_MS);
      await page.getByText(PROMPT).first().waitFor({ timeout: WAIT_MS });
      await snap('waiting');
      return `the run went ${seen.join(' -> ')}; its Approval tab opened by itself with the prompt "${PROMPT}"`;
    });
    if (!waiting) return report;
    const pushed = await step(report, 'push it back with an input (Retry dialog)', async () => {
      const status = await answerInDialog(page, 'Retry', { TICKET: options.ticket });
      await page.getByText('Iteration 1').first().waitFor({ timeout: WAIT_MS });
      await waitForRunStatus(page, 'waiting', WAIT_MS);
      await snap('pushed-back');
      return `TICKET=${options.ticket} answered ${String(status)}; the step ran again and waits in "Iteration 1"`;
    });
    if (!pushed) return report;
    const approved = await step(report, 'approve it (Approve dialog)', async () => {
      const status = await answerInDialog(page, 'Approve');
      const seen = await waitForRunStatus(page, 'succeeded', WAIT_MS);
      await snap('finished');
      return `answered ${String(status)}; the run's status went ${seen.join(' -> ')} without a reload`;
    });
    if (!approved) return report;
    await step(report, 'the next step read the input', async () => {
      const row = page.getByRole('row').filter({ has: page.getByText('ship', { exact: true }) });
      // Dispatched, not clicked at a point: the corner notice of a 501 can cover the last row's button.
      await row.getByText('stdout', { exact: true }).first().dispatchEvent('click');
      await page.getByText(options.expectLog).first().waitFor();
      await snap('log');
      return `"${options.expectLog}" in the log viewer of step ship`;
    });
    await rejectOne(page, options, report);
  } finally {
    await browser.close();
  }
  return report;
}

/** A second run of the same DAG, rejected with a reason from the run page's Reject button. */
async function rejectOne(page: Page, options: ApproveOptions, report: DriveReport): Promise<void> {
  await step(report, 'reject a waiting step (Reject dialog)', async () => {
    const runId = await startFromDialog(page, options);
    await page.goto(`${options.origin}/dag-runs/${options.dag}/${runId}`);
    await waitForRunStatus(page, 'waiting', WAIT_MS);
    // The header's Reject button is an icon only (lucide's `ban`) while a step waits.
    await page.locator('button:has(svg.lucide-ban)').first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Reject DAG Run').waitFor();
    await dialog.getByLabel('Rejection reason (optional)').fill('not this build');
    const answered = page.waitForResponse((r) => r.url().includes('/steps/review/reject'));
    await dialog.getByRole('button', { name: 'Reject', exact: true }).click();
    const answer = await answered;
    if (!answer.ok()) throw new Error(`Reject answered ${String(answer.status())}: ${await answer.text()}`);
    const seen = await waitForRunStatus(page, 'rejected', WAIT_MS);
    await page.getByText('not this build').first().waitFor();
    await shot(page, options, 'rejected');
    return `run ${runId}: answered 200; its status went ${seen.join(' -> ')}, the reason on the page`;
  });
}

function shot(page: Page, options: ApproveOptions, name: string): Promise<Buffer> {
  return page.screenshot({ path: `${options.screenshotDir}/dagu-v2-approve-${name}.png` });
}

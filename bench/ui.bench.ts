/**
 * Web UI benchmark on a fresh local control plane (figures, not a test): 1,000 DAGs and 10,000
 * finished runs seeded straight into the Kubernetes API (api-seed.ts), the API server serving
 * the built UI, and Debian's headless Chromium (playwright-core) opening pages. For each page:
 * the time from the start of navigation to its data on screen, measured by the page's own
 * clock (`performance.now()` counts from the navigation's time origin), cold (a fresh browser
 * context: no cache) and warm (a reload in the same context). Target: under 1 s.
 * Run with `make bench-ui` (builds the UI first). Figures on a 2-core machine that also runs
 * the control plane are noisy: compare runs of this script with each other.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Browser, Page, Request } from 'playwright-core';
import { parseApiConfig } from '../apiserver/config.ts';
import { startServer, type Server } from '../apiserver/server.ts';
import { ensureBinaries } from '../cluster/binaries.ts';
import { startCluster, stopCluster } from '../cluster/cluster.ts';
import { waitFor } from '../cluster/processes.ts';
import { kubeConfig } from '../cluster/setup.ts';
import { kubedagClients } from '../core/kube/client.ts';
import { launchChromium } from '../scripts/chromium.ts';
import { DAGS, RUNS_PER_DAG, seed, type SeededDag } from './api-seed.ts';

const TARGET_MS = 1000;
const REPEAT = Number(process.env.BENCH_REPEAT ?? 5);
const namespace = 'default';

/** A page to open, and what on it means its data has been rendered. */
interface UiPage {
  readonly label: string;
  readonly path: string;
  readonly ready: string;
}

function pages(dags: readonly SeededDag[]): UiPage[] {
  const busy = dags[0]?.fileName ?? '';
  return [
    { label: 'DAG list, first page (50)', path: '/dags', ready: 'tbody tr .dag-link' },
    { label: 'DAG list, 200 per page', path: '/dags?perPage=200', ready: 'tbody tr:nth-child(200) .dag-link' },
    { label: 'DAG list, sorted by next run', path: '/dags?sort=nextRun', ready: 'tbody tr .dag-link' },
    { label: `a DAG's history (${busy})`, path: `/dags/${busy}/history`, ready: '.history-grid .history-run-link' },
  ];
}

/**
 * Milliseconds from the navigation's start to `ready` on screen, by the page's clock, and the
 * longest API answer on the way (request sent to last byte), to tell the server's share apart.
 */
async function rendered(
  page: Page,
  url: string,
  ready: string,
  reload: boolean,
): Promise<{ ms: number; apiMs: number }> {
  const api: number[] = [];
  const onFinished = (request: Request): void => {
    if (!request.url().includes('/api/v2/')) return;
    const timing = request.timing();
    api.push(timing.responseEnd - timing.requestStart);
  };
  page.on('requestfinished', onFinished);
  if (reload) await page.reload({ waitUntil: 'commit' });
  else await page.goto(url, { waitUntil: 'commit' });
  await page.locator(ready).first().waitFor({ state: 'visible', timeout: 30_000 });
  const ms = await page.evaluate(() => performance.now());
  page.off('requestfinished', onFinished);
  return { ms, apiMs: Math.max(0, ...api) };
}

const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function measure(
  browser: Browser,
  base: string,
  target: UiPage,
): Promise<{ cold: number[]; warm: number[]; api: number[] }> {
  const cold: number[] = [];
  const warm: number[] = [];
  const api: number[] = [];
  for (let i = 0; i < REPEAT; i += 1) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const first = await rendered(page, `${base}${target.path}`, target.ready, false);
    const again = await rendered(page, `${base}${target.path}`, target.ready, true);
    cold.push(first.ms);
    warm.push(again.ms);
    api.push(first.apiMs, again.apiMs);
    await context.close();
  }
  return { cold, warm, api };
}

async function startApi(kubeconfig: string): Promise<{ server: Server; base: string }> {
  const config = parseApiConfig(
    [
      `--namespace=${namespace}`,
      `--kubeconfig=${kubeconfig}`,
      '--operator-url=http://127.0.0.1:1',
      `--lease-namespace=${namespace}`,
    ],
    {},
  );
  const server = await startServer({ config, version: 'bench' });
  const base = await server.app.listen({ host: '127.0.0.1', port: 0 });
  await waitFor(
    'the API server cache',
    () =>
      Promise.resolve(
        server.cache.synced() &&
          server.cache.runs.list(namespace).length >= DAGS * RUNS_PER_DAG &&
          server.cache.dags.list(namespace).length >= DAGS,
      ),
    300_000,
    100,
  );
  return { server, base };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'kubedag-bench-ui-'));
  const state = await startCluster({ dir, binaries: await ensureBinaries(), nodes: [] });
  let server: Server | undefined;
  let browser: Browser | undefined;
  try {
    const seeded = await seed(kubedagClients(kubeConfig(state.kubeconfig)));
    const api = await startApi(state.kubeconfig);
    server = api.server;
    browser = await launchChromium();
    console.log(
      `${String(seeded.dags.length)} DAGs, ${String(seeded.runs.length)} runs; ${String(REPEAT)} loads per page; ms from navigation start to the data on screen (median, then all)\n`,
    );
    for (const target of pages(seeded.dags)) {
      const started = performance.now();
      const {
        cold,
        warm,
        api: answers,
      } = await measure(browser, api.base, target).catch((error: unknown) => {
        console.log(`  ${target.label}: not measured (${(error as Error).message.split('\n')[0] ?? ''})`);
        return { cold: [], warm: [], api: [] };
      });
      if (cold.length === 0) continue;
      const verdict = Math.max(median(cold), median(warm)) < TARGET_MS ? 'under' : 'OVER';
      console.log(
        `  ${target.label}: cold ${median(cold).toFixed(0)} [${cold.map((v) => v.toFixed(0)).join(', ')}], warm ${median(warm).toFixed(0)} [${warm.map((v) => v.toFixed(0)).join(', ')}], slowest API answer ${median(answers).toFixed(0)}: ${verdict} ${String(TARGET_MS)} ms (${((performance.now() - started) / 1000).toFixed(1)} s)`,
      );
    }
  } finally {
    await browser?.close();
    await server?.close();
    await stopCluster(state);
    await rm(dir, { recursive: true, force: true });
  }
}

await main();

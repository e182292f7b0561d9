/**
 * The web UI in a real browser (started by scripts/chromium.ts): pages of their own, the API
 * server serving the built UI, screenshots as test artefacts under .dev/ui-screenshots/.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, CDPSession, Page } from 'playwright-core';
import type { Server } from '../../apiserver/server.ts';
import { uiBuilt } from '../../apiserver/ui.ts';

const root = join(import.meta.dirname, '../..');

export const SCREENSHOTS = join(root, '.dev/ui-screenshots');

export interface PageOptions {
  readonly viewport: { readonly width: number; readonly height: number };
  readonly colorScheme?: 'light' | 'dark';
  /** How long each wait of the page may take (15 s unless said). */
  readonly timeoutMs?: number;
  readonly acceptDownloads?: boolean;
  /** Told of every uncaught error of the page's scripts. */
  readonly onPageError?: (message: string) => void;
}

/** A page in a browser context of its own (its own storage and sign-in), sized and themed as asked. */
export async function openPage(browser: Browser, options: PageOptions): Promise<Page> {
  const context = await browser.newContext({
    viewport: options.viewport,
    colorScheme: options.colorScheme ?? 'light',
    ...(options.acceptDownloads === undefined ? {} : { acceptDownloads: options.acceptDownloads }),
  });
  const page = await context.newPage();
  page.setDefaultTimeout(options.timeoutMs ?? 15_000);
  const { onPageError } = options;
  if (onPageError !== undefined) {
    page.on('pageerror', (error) => {
      onPageError(`${page.url()}: ${error.message}`);
    });
  }
  return page;
}

/** The API server on a free loopback port, serving the built UI; its base URL. */
export async function serve(server: Server): Promise<string> {
  if (!uiBuilt(join(root, 'dist/ui')))
    throw new Error('dist/ui holds no built web UI: run `make ui` first (make integration does)');
  return server.app.listen({ host: '127.0.0.1', port: 0 });
}

/** A full-page PNG of what the page shows now, kept as `<name>.png`; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true, animations: 'disabled' });
  return path;
}

/**
 * Records every HTTP authentication challenge the browser itself would answer (with a login
 * dialog, for a person), cancelling each; the list stays empty when the page never gets one.
 */
export async function authChallenges(page: Page): Promise<string[]> {
  const seen: string[] = [];
  const cdp: CDPSession = await page.context().newCDPSession(page);
  cdp.on('Fetch.requestPaused', (event) => {
    void cdp.send('Fetch.continueRequest', { requestId: event.requestId });
  });
  cdp.on('Fetch.authRequired', (event) => {
    seen.push(event.request.url);
    void cdp.send('Fetch.continueWithAuth', {
      requestId: event.requestId,
      authChallengeResponse: { response: 'CancelAuth' },
    });
  });
  await cdp.send('Fetch.enable', { handleAuthRequests: true });
  return seen;
}

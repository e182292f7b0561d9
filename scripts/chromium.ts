/**
 * Debian's chromium (scripts/ensure-chromium.sh installs it when missing) started headless by
 * playwright-core as a library: the web UI's browser tests and its benchmark share it, and no
 * browser is ever downloaded.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';

const run = promisify(execFile);

export async function launchChromium(): Promise<Browser> {
  const executablePath = (await run(join(import.meta.dirname, 'ensure-chromium.sh'))).stdout.trim();
  // Chromium's sandbox needs user namespaces, which a root shell in a container rarely has.
  const args = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  return chromium.launch({ executablePath, headless: true, args });
}

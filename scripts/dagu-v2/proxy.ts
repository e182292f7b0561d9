/**
 * The small server that puts Dagu v2.15.1's own web UI in front of Kubedag: the UI's built
 * assets at /assets/, its page (with the configuration Dagu's server would template into it) at
 * every other path, and /api/v1 passed through to Kubedag's API server unchanged, server-sent
 * events included. Dagu's server is not involved: every answer the UI reads is Kubedag's.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';

export interface ProxyOptions {
  /** Dagu's `ui/dist` after its webpack build. */
  assetsDir: string;
  /** Kubedag's API server, e.g. `http://127.0.0.1:8080`. */
  upstream: string;
  /**
   * Served at /assets/dag.schema.json, where Dagu's server serves its own: Kubedag's
   * schemas/dag.schema.json, so the UI's editor checks what Kubedag accepts.
   */
  schemaFile: string;
  /** Bearer token for Kubedag, when its API server asks for one. */
  token?: string;
  port?: number;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.ico': 'image/x-icon',
  '.ttf': 'font/ttf',
  '.html': 'text/html',
  '.json': 'application/json',
};

/**
 * The page Dagu's `internal/service/frontend/templates/base.gohtml` renders, with the values of
 * a Dagu server without authentication: the UI then never asks for a sign-in or a licence.
 */
export function daguPage(): string {
  const config = {
    apiURL: '/api/v1',
    basePath: '',
    title: 'Dagu UI on Kubedag',
    navbarColor: '',
    version: '2.15.1',
    tz: 'UTC',
    tzOffsetInSec: 0,
    maxDashboardPageLimit: 100,
    remoteNodes: 'local',
    initialWorkspaces: [],
    authMode: 'none',
    setupRequired: false,
    oidcEnabled: false,
    oidcButtonLabel: '',
    proxyEnabled: false,
    proxyButtonLabel: '',
    terminalEnabled: false,
    gitSyncEnabled: false,
    agentEnabled: false,
    permissions: { writeDags: true, runDags: true },
    updateAvailable: false,
    latestVersion: '',
    license: {
      valid: false,
      plan: '',
      expiry: '',
      features: [],
      gracePeriod: false,
      graceEndsAt: '',
      community: true,
      source: '',
      warningCode: '',
      error: '',
    },
    paths: {},
  };
  return [
    '<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8" />',
    '<link rel="icon" href="/assets/favicon.ico" /><title>Dagu UI on Kubedag</title>',
    `<script>function getConfig() { return ${JSON.stringify(config)}; }</script>`,
    '<script defer="defer" src="/assets/bundle.js"></script>',
    '</head><body><div id="root"></div></body></html>',
  ].join('\n');
}

function forward(req: IncomingMessage, res: ServerResponse, options: ProxyOptions): void {
  const target = new URL(req.url ?? '/', options.upstream);
  const headers = { ...req.headers, host: target.host };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const out = request(target, { method: req.method, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    // Piped, never buffered: the event stream has no end.
    answer.pipe(res);
  });
  out.on('error', (error) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`upstream: ${error.message}`);
  });
  // A page that goes away ends its upstream request too: an event stream's would stay open
  // (and keep the proof's process alive) after the browser closed.
  res.on('close', () => out.destroy());
  req.pipe(out);
}

async function serveAsset(path: string, res: ServerResponse, assetsDir: string): Promise<void> {
  // normalize() before the join keeps a `..` in the URL inside the assets directory.
  const file = join(assetsDir, normalize(`/${path}`));
  const found = await stat(file).catch(() => undefined);
  if (found === undefined || !found.isFile()) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    return;
  }
  res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
  createReadStream(file).pipe(res);
}

export async function startProxy(options: ProxyOptions): Promise<{ server: Server; origin: string }> {
  const page = daguPage();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path.startsWith('/api/')) forward(req, res, options);
    else if (path === '/assets/dag.schema.json') void serveAsset(options.schemaFile, res, '/');
    else if (path.startsWith('/assets/')) void serveAsset(path.slice('/assets/'.length), res, options.assetsDir);
    else res.writeHead(200, { 'content-type': 'text/html' }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, origin: `http://127.0.0.1:${String(port)}` };
}

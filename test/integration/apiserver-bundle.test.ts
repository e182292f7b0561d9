/**
 * The API server as the image and the chart run it: the bundle of build/bundles.ts, a file in
 * dist/, started with the chart's Node.js flags and malloc cap. Every other test runs the
 * sources; this one checks that the bundle is the same program (its settings and help, its
 * version and web UI found from dist/, the API over the cluster).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { API_HELP } from '../../apiserver/config.ts';
import { freePort, signalAndWait } from '../../cluster/processes.ts';
import { renderHelp } from '../../core/settings-help.ts';
import { bundleApiServer, chartLaunch } from '../../build/bundles.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';

const { core } = clients();
const launch = chartLaunch('apiServer');
const root = join(import.meta.dirname, '../..');
// Directly in dist/, as in the image: the bundle finds package.json and dist/ui from its folder.
const bundle = join(root, 'dist', `test-apiserver-${String(process.pid)}.mjs`);
let ns = '';
let child: ChildProcess | undefined;
let output = '';

const runBundle = (args: string[]): ReturnType<typeof spawnSync> =>
  spawnSync(process.execPath, [...launch.flags, bundle, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...launch.env },
    timeout: 60_000,
  });

beforeAll(async () => {
  ns = await createNamespace(core, 'api-bundle');
  await bundleApiServer(bundle);
});

afterAll(async () => {
  if (child !== undefined) await signalAndWait(child);
  await rm(bundle, { force: true });
  await deleteNamespace(core, ns);
});

describe('the bundled API server', () => {
  it('is started by the chart with the memory flags the operator has', () => {
    expect([launch.flags, launch.env]).toEqual([
      ['--max-semi-space-size=2', '--optimize-for-size'],
      { MALLOC_ARENA_MAX: '2' },
    ]);
  });

  it('answers --help as the sources do, with exit status 0', () => {
    const result = runBundle(['--help']);
    expect([result.status, result.stderr]).toEqual([0, '']);
    expect(result.stdout).toBe(renderHelp(API_HELP));
  });

  it('refuses a bad flag naming it, as the sources do', () => {
    const result = runBundle(['--port=many']);
    expect(result.status).toBe(1);
    expect(String(result.stderr)).toMatch(/^kubedag API server: .*port/);
  });

  it('serves the API over the cluster, its version from package.json and the web UI from dist/ui', async () => {
    const port = await freePort();
    const args = [
      `--namespace=${ns}`,
      `--kubeconfig=${inject('cluster').kubeconfig}`,
      '--operator-url=http://127.0.0.1:1',
      `--lease-namespace=${ns}`,
      '--host=127.0.0.1',
      `--port=${String(port)}`,
    ];
    child = spawn(process.execPath, [...launch.flags, bundle, ...args], {
      env: { ...process.env, ...launch.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const base = `http://127.0.0.1:${String(port)}`;
    await waitFor(
      'the bundled API server to listen',
      () =>
        fetch(`${base}/api/v2/dags`).then(
          (r) => r.ok,
          () => false,
        ),
      60_000,
      100,
    ).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; it said:\n${output}`, { cause: error });
    });
    const created = await fetch(`${base}/api/v2/dags`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bundled', spec: 'steps:\n  - echo hi\n' }),
    });
    expect(created.status).toBe(201);
    const listed = (await (await fetch(`${base}/api/v2/dags`)).json()) as { dags: { fileName: string }[] };
    expect(listed.dags.map((d) => d.fileName)).toEqual(['bundled']);
    const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string };
    expect(output).toContain(`"version":"${version}"`);
    const page = await fetch(`${base}/`, { headers: { accept: 'text/html' } });
    expect([page.status, await page.text()]).toEqual([200, await readFile(join(root, 'dist/ui/index.html'), 'utf8')]);
  });
});

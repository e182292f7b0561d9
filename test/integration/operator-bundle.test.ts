/**
 * The operator as the image runs it: the bundle of scripts/operator-bundle.ts, started with the
 * chart's flags and malloc cap. Every other test runs the sources; this one checks that the
 * bundle is the same program (it parses its flags, leads, runs steps and passes outputs on).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bundleOperator, chartOperatorLaunch } from '../../scripts/operator-bundle.ts';
import { freePort } from '../../cluster/processes.ts';
import { finishedRun, givenDag, stepStates, whenRun } from './operator-support.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';

const { core } = clients();
const launch = chartOperatorLaunch();
let ns = '';
let bundle = '';
let stop = (): void => undefined;

beforeAll(async () => {
  ns = await createNamespace(core, 'bundle');
  const dir = await mkdtemp(join(tmpdir(), 'kubedag-bundle-'));
  bundle = join(dir, 'operator.mjs');
  await bundleOperator(bundle);
});

afterAll(async () => {
  stop();
  await deleteNamespace(core, ns);
});

describe('the bundled operator', () => {
  it('refuses a bad flag as the sources do', () => {
    const result = spawnSync(process.execPath, [...launch.flags, bundle, '--workers=many'], { encoding: 'utf8', env: { ...process.env, ...launch.env } });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('workers must be a non-negative integer, not "many"');
  });

  it('leads and runs a DAG whose second step reads the first one’s output', async () => {
    const port = await freePort();
    const logDir = await mkdtemp(join(tmpdir(), 'kubedag-logs-'));
    const args = [`--kubeconfig=${inject('cluster').kubeconfig}`, `--namespaces=${ns}`, `--lease-namespace=${ns}`, `--log-dir=${logDir}`, `--http-port=${String(port)}`];
    const child = spawn(process.execPath, [...launch.flags, bundle, ...args], { env: { ...process.env, ...launch.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    stop = () => void child.kill('SIGTERM');
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor('the bundled operator to lead', () => Promise.resolve(output.includes('leading:')), 30_000, 50);

    await givenDag(ns, 'bundled', 'steps:\n  - {name: make, command: echo forty-two, output: ANSWER}\n  - {name: check, command: test "$ANSWER" = forty-two, depends: make}');
    await whenRun(ns, 'bundled-1', 'bundled');
    const run = await finishedRun(ns, 'bundled-1');
    expect([run.status?.statusLabel, stepStates(run)]).toEqual(['succeeded', { make: 'succeeded', check: 'succeeded' }]);
  });
});

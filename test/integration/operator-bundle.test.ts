/**
 * The operator as the image runs it: the bundle of build/bundles.ts, started with the
 * chart's flags and malloc cap. Every other test runs the sources; this one checks that the
 * bundle is the same program (it parses its flags, leads, runs steps and passes outputs on).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { renderHelp } from '../../core/settings-help.ts';
import { OPERATOR_HELP } from '../../operator/config.ts';
import { bundleOperator, chartOperatorLaunch } from '../../build/bundles.ts';
import { freePort } from '../../cluster/processes.ts';
import { finishedRun, givenDag, stepStates, whenRun } from './operator-support.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';

const { core } = clients();
const launch = chartOperatorLaunch();
let ns = '';
let bundle = '';
let dir = '';
const root = join(import.meta.dirname, '../..');
let stop = (): void => undefined;

beforeAll(async () => {
  ns = await createNamespace(core, 'bundle');
  // Under the repository, as the image keeps it under /app: the AWS SDK, left out of the
  // bundle, is found in the node_modules beside it.
  await mkdir(join(root, 'dist'), { recursive: true });
  dir = await mkdtemp(join(root, 'dist', 'test-bundle-'));
  bundle = join(dir, 'operator.mjs');
  await bundleOperator(bundle);
});

afterAll(async () => {
  stop();
  await rm(dir, { recursive: true, force: true });
  await deleteNamespace(core, ns);
});

describe('the bundled operator', () => {
  it('refuses a bad flag as the sources do', () => {
    const result = spawnSync(process.execPath, [...launch.flags, bundle, '--workers=many'], {
      encoding: 'utf8',
      env: { ...process.env, ...launch.env },
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('workers must be a non-negative integer, not "many"');
  });

  it('answers --help as the sources do, with exit status 0', () => {
    const result = spawnSync(process.execPath, [...launch.flags, bundle, '--help'], {
      encoding: 'utf8',
      env: { ...process.env, ...launch.env },
    });
    expect([result.status, result.stderr]).toEqual([0, '']);
    expect(result.stdout).toBe(renderHelp(OPERATOR_HELP));
  });

  it('loads the S3 log store and its SDK when chosen, and stops with what S3 answered when the bucket cannot be listed', () => {
    const flags = [
      '--log-store=s3',
      '--log-s3-bucket=kubedag-logs',
      '--log-s3-endpoint=http://127.0.0.1:1',
      `--kubeconfig=${inject('cluster').kubeconfig}`,
    ];
    const result = spawnSync(process.execPath, [...launch.flags, bundle, ...flags], {
      encoding: 'utf8',
      env: { ...process.env, ...launch.env, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' },
    });
    expect(result.status).not.toBe(0);
    // A start failure is the log's one fatal line (core/start-failure.ts), on stdout with the rest of the log.
    expect(result.stdout).toContain(
      'S3 log store: listing s3://kubedag-logs/ failed: connect ECONNREFUSED 127.0.0.1:1',
    );
  });

  it('loads the SQLite history store when chosen, and stops naming the file when it cannot be opened', async () => {
    // A regular file where the store's folder should be. (Not a path under /proc: Node's
    // recursive mkdir spins there instead of failing.)
    const dir = await mkdtemp(join(tmpdir(), 'kubedag-history-'));
    await writeFile(join(dir, 'taken'), '');
    const path = join(dir, 'taken', 'history.db');
    const flags = [
      '--history-store=sqlite',
      `--history-sqlite-path=${path}`,
      `--kubeconfig=${inject('cluster').kubeconfig}`,
    ];
    const result = spawnSync(process.execPath, [...launch.flags, bundle, ...flags], {
      encoding: 'utf8',
      env: { ...process.env, ...launch.env },
      timeout: 60_000,
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toContain(`the sqlite history store cannot be opened (the SQLite file ${path})`);
    await rm(dir, { recursive: true, force: true });
  });

  it('leads and runs a DAG whose second step reads the first one’s output', async () => {
    const port = await freePort();
    const logDir = await mkdtemp(join(tmpdir(), 'kubedag-logs-'));
    const args = [
      `--kubeconfig=${inject('cluster').kubeconfig}`,
      `--namespaces=${ns}`,
      `--lease-namespace=${ns}`,
      `--log-dir=${logDir}`,
      `--http-port=${String(port)}`,
    ];
    const child = spawn(process.execPath, [...launch.flags, bundle, ...args], {
      env: { ...process.env, ...launch.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stop = () => void child.kill('SIGTERM');
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor('the bundled operator to lead', () => Promise.resolve(output.includes('leading:')), 30_000, 50);

    await givenDag(
      ns,
      'bundled',
      'steps:\n  - {name: make, command: echo forty-two, output: ANSWER}\n  - {name: check, command: test "$ANSWER" = forty-two, depends: make}',
    );
    await whenRun(ns, 'bundled-1', 'bundled');
    const run = await finishedRun(ns, 'bundled-1');
    expect([run.status?.statusLabel, stepStates(run)]).toEqual([
      'succeeded',
      { make: 'succeeded', check: 'succeeded' },
    ]);
  });
});

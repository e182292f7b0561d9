/**
 * histRetentionDays on the real control plane with an injected clock: runs finish under an
 * operator on the real clock, then an operator whose clock is two days ahead deletes the runs
 * of the DAG that keeps one day, with their logs, and keeps the DAG that keeps 30 days.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseConfig } from '../../operator/config.ts';
import { statusCode } from '../../core/kube/errors.ts';
import { Operator } from '../../operator/operator.ts';
import { silentLogger } from '../../core/log.ts';
import { freePort } from '../../cluster/processes.ts';
import { finishedRun, getRun, givenDag, startOperator, whenRun, type RunningOperator } from './operator-support.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';

const { core } = clients();
let ns = '';
let outside: RunningOperator | undefined;
let inside: Operator | undefined;

beforeAll(async () => {
  ns = await createNamespace(core, 'kd-ret');
});

afterAll(async () => {
  await outside?.stop();
  await inside?.stop();
  await deleteNamespace(core, ns);
});

/** Whether the DAGRun resource is gone (404). */
async function gone(name: string): Promise<boolean> {
  return getRun(ns, name).then(
    () => false,
    (error: unknown) => {
      if (statusCode(error) === 404) return true;
      throw error;
    },
  );
}

describe('retention', () => {
  it('deletes finished runs and their logs once their DAG histRetentionDays have passed', async () => {
    const logDir = mkdtempSync(join(tmpdir(), 'kd-ret-logs-'));
    outside = await startOperator(ns, logDir);
    await givenDag(ns, 'short', 'histRetentionDays: 1\nsteps: [echo gone]');
    await givenDag(ns, 'long', 'steps: [echo kept]');
    await whenRun(ns, 'short-1', 'short');
    await whenRun(ns, 'long-1', 'long');
    const [short, long] = await Promise.all([finishedRun(ns, 'short-1'), finishedRun(ns, 'long-1')]);
    const runDir = (dag: string, id: string | undefined): string => join(logDir, ns, dag, id ?? '');
    await waitFor(
      'both runs logs to be archived',
      () =>
        Promise.resolve(
          existsSync(runDir('short', short.spec.dagRunId)) && existsSync(runDir('long', long.spec.dagRunId)),
        ),
      20_000,
      100,
    );
    // On the real clock a day has not passed: the next looks keep everything.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await gone('short-1')).toBe(false);
    await outside.stop();

    const twoDaysOn = { now: (): Date => new Date(Date.now() + 2 * 86_400_000) };
    const args = [
      `--kubeconfig=${inject('cluster').kubeconfig}`,
      `--namespaces=${ns}`,
      `--lease-namespace=${ns}`,
      `--log-dir=${logDir}`,
      `--http-port=${String(await freePort())}`,
    ];
    inside = new Operator({ config: parseConfig(args, {}), clock: twoDaysOn, log: silentLogger });
    await inside.start();
    await waitFor('short-1 to be deleted', () => gone('short-1'), 30_000, 100);
    expect(existsSync(runDir('short', short.spec.dagRunId))).toBe(false);
    expect(await gone('long-1')).toBe(false);
    expect(existsSync(runDir('long', long.spec.dagRunId))).toBe(true);
  });
});

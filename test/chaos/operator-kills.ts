/**
 * Concurrent mixed runs while the operator is SIGKILLed again and again at moments a seeded
 * generator picks; a new operator process is started after each kill and must take over.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { launchOperator, type RunningOperator } from '../operator-process.ts';
import { applyDag, awaitRuns, chaosNamespace, createRun, operatorLogDir, type ChaosCluster } from './cluster.ts';
import { dagOfRun, MIXED, runName, type Expected } from './fixtures.ts';
import { verifyBatch, type BatchVerdict } from './verify.ts';

export interface OperatorKillOptions {
  readonly runs: number;
  readonly kills: number;
  readonly seed: number;
  /** Longest wait between a takeover and the next kill; the shortest is 200 ms. */
  readonly maxGapMs: number;
  /** How long the runs may take after the last kill. */
  readonly settleMs: number;
}

export interface OperatorKillFigures extends BatchVerdict {
  readonly runs: number;
  readonly kills: number;
  readonly seed: number;
  /** From the first run created to the last run finished. */
  readonly wallSeconds: number;
  /** Each kill's moment, in ms after the first run was created. */
  readonly killsAtMs: number[];
  /** From each kill to the next process leading (process start, informer sync, Lease expiry). */
  readonly takeoverMs: number[];
}

/**
 * The operator's Lease: short, so that each restart waits little for the dead one's to expire,
 * yet long enough that a leader slowed by a busy machine still renews in time.
 */
const LEASE_ARGS = ['--lease-duration-seconds=5'];

export async function operatorKills(cluster: ChaosCluster, options: OperatorKillOptions): Promise<OperatorKillFigures> {
  const { log } = cluster;
  const namespace = await chaosNamespace(cluster, 'chaos-kills');
  const logDir = await operatorLogDir(cluster);
  const launch = (): Promise<RunningOperator> =>
    launchOperator({ kubeconfig: cluster.state.kubeconfig, namespace, logDir, extraArgs: LEASE_ARGS });
  for (const dag of MIXED) await applyDag(cluster, namespace, dag.name, dag.yaml);
  let operator = await launch();
  const rng = xoroshiro128plus(options.seed);
  const expected = new Map<string, Expected>();
  const started = Date.now();
  const killsAtMs: number[] = [];
  const takeoverMs: number[] = [];
  try {
    for (let i = 0; i < options.runs; i += 1) {
      const dag = dagOfRun(i);
      expected.set(runName('mix', i), dag.expected);
      await createRun(cluster, namespace, runName('mix', i), dag.name);
    }
    log(`${String(options.runs)} runs created in ${String(Date.now() - started)} ms`);
    for (let kill = 0; kill < options.kills; kill += 1) {
      await sleep(uniformInt(rng, 200, options.maxGapMs));
      const at = Date.now();
      killsAtMs.push(at - started);
      await operator.stop('SIGKILL');
      operator = await launch();
      takeoverMs.push(Date.now() - at);
      log(
        `kill ${String(kill + 1)}/${String(options.kills)} at ${String(at - started)} ms; the next operator led after ${String(Date.now() - at)} ms`,
      );
    }
    const runs = await awaitRuns(cluster, namespace, [...expected.keys()], options.settleMs);
    const finished = Math.max(...[...runs.values()].map((r) => Date.parse(r.status?.finishedAt ?? '') || 0));
    const verdict = verifyBatch(cluster, namespace, runs, expected);
    return {
      ...verdict,
      runs: options.runs,
      kills: options.kills,
      seed: options.seed,
      wallSeconds: (finished - started) / 1000,
      killsAtMs,
      takeoverMs,
    };
  } finally {
    await operator.stop();
  }
}

/**
 * Failure tests, short variant (`make chaos` runs the long one): on a control plane of its own,
 * since kube-apiserver is killed, etcd paused and a node agent killed here, mixed runs (chains,
 * parallel groups, retries, sub-DAGs, parallel items) must end as their DAGs decide, with no
 * step attempt started twice (node agents' ledgers) and no run stuck. The kill moments come
 * from a seed the test prints; KUBEDAG_CHAOS_SEED replays them (test/chaos/sizes.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChaosCluster, type ChaosCluster } from '../chaos/cluster.ts';
import { apiserverRestart, etcdPause, LEASE_SECONDS } from '../chaos/control-plane.ts';
import { faultCriteria, killCriteria, nodeCriteria } from '../chaos/criteria.ts';
import { nodeAgentKill } from '../chaos/node-loss.ts';
import { operatorKills } from '../chaos/operator-kills.ts';
import { chaosSizes, SHORT } from '../chaos/sizes.ts';

const sizes = chaosSizes(process.env, SHORT);
const log = (line: string): void => void process.stderr.write(`[chaos] ${line}\n`);
let cluster: ChaosCluster | undefined;

beforeAll(async () => {
  log(`seed ${String(sizes.seed)} (KUBEDAG_CHAOS_SEED=${String(sizes.seed)} replays the kill moments)`);
  cluster = await startChaosCluster(log);
}, 300_000);

afterAll(async () => {
  await cluster?.stop();
}, 120_000);

const on = (): ChaosCluster => {
  if (cluster === undefined) throw new Error('the chaos cluster did not start');
  return cluster;
};
const faultTimeout = sizes.settleMs + 180_000;

describe('failures at scale on a control plane of its own', () => {
  it(
    `brings ${String(sizes.runs)} mixed runs to the end their DAGs decide through ${String(sizes.kills)} operator SIGKILLs, starting no step attempt twice`,
    async () => {
      const figures = await operatorKills(on(), {
        runs: sizes.runs,
        kills: sizes.kills,
        seed: sizes.seed,
        maxGapMs: sizes.maxGapMs,
        settleMs: sizes.settleMs,
      });
      log(`operator kills: ${JSON.stringify(figures)}`);
      expect(killCriteria(figures)).toEqual([]);
      expect([figures.duplicates, figures.stuck]).toEqual([0, 0]);
    },
    sizes.settleMs + sizes.kills * 40_000 + 120_000,
  );

  it(
    'carries on after kube-apiserver is killed and started again: every run ends as decided, nothing starts twice, one replica leads',
    async () => {
      const figures = await apiserverRestart(on(), sizes.faultRuns, sizes.settleMs);
      log(`kube-apiserver restart: ${JSON.stringify(figures)}`);
      expect(faultCriteria(figures)).toEqual([]);
    },
    faultTimeout,
  );

  it(
    `carries on after etcd is paused for ${String(LEASE_SECONDS * 2)} s, twice the Lease: the leader steps down and the standby takes over once etcd answers`,
    async () => {
      const figures = await etcdPause(on(), sizes.faultRuns, sizes.settleMs);
      log(`etcd pause: ${JSON.stringify(figures)}`);
      expect(faultCriteria(figures)).toEqual([]);
      expect(figures.takeoverSeconds).toBeLessThan(LEASE_SECONDS + 5);
    },
    faultTimeout,
  );

  it('fails a step without retries and retries one with a retry policy when their node agent is killed and started again mid-step', async () => {
    const figures = await nodeAgentKill(on(), 'restarted', 180_000);
    log(`node agent restarted: ${JSON.stringify(figures)}`);
    expect(nodeCriteria(figures)).toEqual([]);
  }, 300_000);

  it('fails a step without retries and retries one on the other node when their node agent dies for good mid-step', async () => {
    const figures = await nodeAgentKill(on(), 'lost', 180_000);
    log(`node lost: ${JSON.stringify(figures)}`);
    expect(nodeCriteria(figures)).toEqual([]);
    expect(figures.retryNode).toBe('kubedag-node-2');
  }, 300_000);
});

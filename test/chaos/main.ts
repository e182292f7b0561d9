/**
 * `make chaos`: the long failure run on a fresh control plane of its own. 100 concurrent
 * mixed runs through 20 operator SIGKILLs, then kube-apiserver killed and restarted and etcd
 * paused for twice the Lease under 30 runs each, then a node agent killed mid-step (restarted,
 * and for good). Sizes come from the environment (sizes.ts). Prints the figures, writes them to
 * .dev/chaos.json, and exits 1 when any criterion (criteria.ts) is not met.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startChaosCluster } from './cluster.ts';
import { apiserverRestart, etcdPause } from './control-plane.ts';
import { faultCriteria, killCriteria, nodeCriteria } from './criteria.ts';
import { nodeAgentKill } from './node-loss.ts';
import { operatorKills } from './operator-kills.ts';
import { chaosSizes, LONG } from './sizes.ts';

const log = (line: string): void => void process.stdout.write(`[chaos] ${line}\n`);
const sizes = chaosSizes(process.env, LONG);
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const percentile = (values: readonly number[], p: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? 0;

log(`sizes ${JSON.stringify(sizes)}; KUBEDAG_CHAOS_SEED=${String(sizes.seed)} replays the kill moments`);
const started = Date.now();
const cluster = await startChaosCluster(log);
const failed: string[] = [];
const figures: Record<string, unknown> = { sizes };
try {
  const kills = await operatorKills(cluster, sizes);
  figures.kills = kills;
  failed.push(...killCriteria(kills));
  log(
    `operator kills: ${String(kills.runs)} runs, ${String(kills.kills)} kills, wall ${kills.wallSeconds.toFixed(1)} s, ${String(kills.starts)} step starts, duplicates ${String(kills.duplicates)}, stuck ${String(kills.stuck)}, takeover p50 ${seconds(percentile(kills.takeoverMs, 50))} max ${seconds(Math.max(...kills.takeoverMs, 0))}`,
  );
  for (const fault of [apiserverRestart, etcdPause]) {
    const result = await fault(cluster, sizes.faultRuns, sizes.settleMs);
    figures[result.fault] = result;
    failed.push(...faultCriteria(result));
    log(
      `${result.fault}: ${String(result.runs)} runs, outage ${result.outageSeconds.toFixed(1)} s, wall ${result.wallSeconds.toFixed(1)} s, leader ${result.sameLeader ? 'kept' : `handed over ${(result.takeoverSeconds ?? NaN).toFixed(1)} s after the fault ended`}, duplicates ${String(result.duplicates)}, stuck ${String(result.stuck)}`,
    );
  }
  for (const variant of ['restarted', 'lost'] as const) {
    const result = await nodeAgentKill(cluster, variant, sizes.settleMs);
    figures[`node-${variant}`] = result;
    failed.push(...nodeCriteria(result));
    log(
      `node agent ${variant}: the step without retries failed ${result.failedAfterSeconds.toFixed(1)} s after the kill (${result.error}); the retry ran on ${result.retryNode}; duplicates ${String(result.duplicates)}, stuck ${String(result.stuck)}`,
    );
  }
} catch (error) {
  failed.push(`the chaos run broke off: ${String(error)}`);
} finally {
  await cluster.stop();
}
figures.failed = failed;
figures.wallSeconds = (Date.now() - started) / 1000;
mkdirSync(join(import.meta.dirname, '../../.dev'), { recursive: true });
writeFileSync(join(import.meta.dirname, '../../.dev/chaos.json'), `${JSON.stringify(figures, null, 2)}\n`);
log(`done in ${seconds(Date.now() - started)}; figures in .dev/chaos.json`);
for (const line of failed) log(`FAILED: ${line}`);
process.exit(failed.length === 0 ? 0 : 1);

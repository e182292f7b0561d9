/**
 * The control plane failing under running runs, with two operator replicas (a leader and a
 * standby) on one Lease: kube-apiserver killed and started again on the same port and
 * certificates, and etcd paused (SIGSTOP) for longer than the Lease. Afterwards every run must
 * end as its DAG says, no step attempt may have started twice, and exactly one replica leads.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { restartProcess } from '../../cluster/controlplane.ts';
import { pauseProcess, resumeProcess } from '../../cluster/faults.ts';
import { waitFor } from '../../cluster/processes.ts';
import { launchOperator, type RunningOperator } from '../operator-process.ts';
import {
  applyDag,
  awaitRunning,
  awaitRuns,
  chaosNamespace,
  createRun,
  operatorLogDir,
  type ChaosCluster,
} from './cluster.ts';
import { dagOfRun, MIXED, runName, type Expected } from './fixtures.ts';
import { verifyBatch, type BatchVerdict } from './verify.ts';

/** The replicas' Lease: a leader that cannot renew for 80% of it steps down. */
export const LEASE_SECONDS = 6;

export interface FaultFigures extends BatchVerdict {
  readonly fault: string;
  readonly runs: number;
  /** From the fault to the API answering again. */
  readonly outageSeconds: number;
  /** Whether the replica that led before the fault still leads. */
  readonly sameLeader: boolean;
  /** From the fault's end (etcd let go; kube-apiserver answering) to the standby leading, when it took over. */
  readonly takeoverSeconds?: number;
  /** Replicas leading at the end (alive, and announced it): must be 1. */
  readonly leaders: number;
  /** From the first run created to the last run finished. */
  readonly wallSeconds: number;
}

interface Replicas {
  readonly leader: RunningOperator;
  readonly standby: RunningOperator;
}

const alive = (op: RunningOperator): boolean => op.process.exitCode === null && op.process.signalCode === null;

/** When a replica's log said it leads, in epoch ms (its JSON lines carry `time`). */
function ledAt(op: RunningOperator): number | undefined {
  const line = op
    .output()
    .split('\n')
    .find((l) => l.includes('"msg":"leading:'));
  return line === undefined ? undefined : (JSON.parse(line) as { time: number }).time;
}

/**
 * Runs `fault` while the mixed runs are under way; it resolves once the API answers again,
 * with the moment the fault ended. Then waits for the runs and judges.
 */
async function underFault(
  cluster: ChaosCluster,
  name: string,
  runs: number,
  settleMs: number,
  fault: () => Promise<number>,
): Promise<FaultFigures> {
  const namespace = await chaosNamespace(cluster, `chaos-${name}`);
  const logDir = await operatorLogDir(cluster);
  const args = [`--lease-duration-seconds=${String(LEASE_SECONDS)}`];
  for (const dag of MIXED) await applyDag(cluster, namespace, dag.name, dag.yaml);
  const leader = await launchOperator({ kubeconfig: cluster.state.kubeconfig, namespace, logDir, extraArgs: args });
  const standby = await launchOperator({
    kubeconfig: cluster.state.kubeconfig,
    namespace,
    logDir,
    extraArgs: args,
    waitToLead: false,
  });
  const replicas: Replicas = { leader, standby };
  try {
    const expected = new Map<string, Expected>();
    const started = Date.now();
    for (let i = 0; i < runs; i += 1) {
      expected.set(runName(name, i), dagOfRun(i).expected);
      await createRun(cluster, namespace, runName(name, i), dagOfRun(i).name);
    }
    await awaitRunning(cluster, namespace, Math.min(runs, 3));
    const faultAt = Date.now();
    const endedAt = await fault();
    const answeredAt = Date.now();
    cluster.log(`${name}: the API answers again ${String(answeredAt - faultAt)} ms after the fault`);
    const seen = await awaitRuns(cluster, namespace, [...expected.keys()], settleMs);
    // A replica that lost the Lease exits; the other must lead within a Lease and a retry or two.
    await waitFor(
      'one replica to lead',
      () => Promise.resolve(leadersOf(replicas) >= 1),
      (LEASE_SECONDS + 10) * 1000,
      200,
    ).catch(() => undefined);
    const standbyLed = ledAt(standby);
    const finished = Math.max(...[...seen.values()].map((r) => Date.parse(r.status?.finishedAt ?? '') || 0));
    return {
      ...verifyBatch(cluster, namespace, seen, expected),
      fault: name,
      runs,
      outageSeconds: (answeredAt - faultAt) / 1000,
      sameLeader: alive(leader) && standbyLed === undefined,
      ...(standbyLed === undefined ? {} : { takeoverSeconds: (standbyLed - endedAt) / 1000 }),
      leaders: leadersOf(replicas),
      wallSeconds: (finished - started) / 1000,
    };
  } finally {
    await Promise.all([leader.stop(), standby.stop()]);
  }
}

/** Replicas that lead: alive, announced it, and have not lost it since (a loser stops, then exits). */
function leadersOf({ leader, standby }: Replicas): number {
  return [leader, standby].filter(
    (op) => alive(op) && ledAt(op) !== undefined && !op.output().includes('lost leadership'),
  ).length;
}

/** Polls the API until it answers a list. */
async function apiAnswers(cluster: ChaosCluster, timeoutMs: number): Promise<void> {
  await waitFor(
    'the API to answer',
    async () => {
      await cluster.kube.dags.list('default');
      return true;
    },
    timeoutMs,
    200,
  );
}

/** kube-apiserver SIGKILLed and started again at once (same port, same certificates). */
export async function apiserverRestart(cluster: ChaosCluster, runs: number, settleMs: number): Promise<FaultFigures> {
  return underFault(cluster, 'apiserver', runs, settleMs, async () => {
    await restartProcess(cluster.dir, 'kube-apiserver', 'SIGKILL');
    await apiAnswers(cluster, 120_000);
    return Date.now();
  });
}

/** etcd frozen (SIGSTOP) for `pauseSeconds`, longer than the Lease, then let go (SIGCONT). */
export async function etcdPause(
  cluster: ChaosCluster,
  runs: number,
  settleMs: number,
  pauseSeconds = LEASE_SECONDS * 2,
): Promise<FaultFigures> {
  return underFault(cluster, 'etcd', runs, settleMs, async () => {
    await pauseProcess(cluster.dir, 'etcd');
    try {
      await sleep(pauseSeconds * 1000);
    } finally {
      await resumeProcess(cluster.dir, 'etcd');
    }
    const resumedAt = Date.now();
    await apiAnswers(cluster, 120_000);
    return resumedAt;
  });
}

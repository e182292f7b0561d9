/**
 * A node agent killed while steps run on its node: once restarted at once (a kubelet crash:
 * the new agent fails the Pods it cannot vouch for), once left dead (a lost node: the node
 * lifecycle controller taints the Node and evicts the Pods, which stay Terminating since no
 * kubelet confirms). Either way a step without a retry policy fails and one with retries runs
 * its next attempt, on the other node when its own is gone; no run waits forever.
 */
import { readLedger, type LedgerEntry } from '../../cluster/node-agent/ledger.ts';
import { restartProcess } from '../../cluster/controlplane.ts';
import { crashProcess } from '../../cluster/faults.ts';
import { waitFor } from '../../cluster/processes.ts';
import { stepPodName } from '../../core/resources/names.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { launchOperator } from '../operator-process.ts';
import { applyDag, awaitRuns, chaosNamespace, createRun, operatorLogDir, type ChaosCluster } from './cluster.ts';
import type { ChaosDag } from './fixtures.ts';
import { verifyBatch, type BatchVerdict } from './verify.ts';

/** The node whose agent dies; the step Pods prefer it, so that they are there when it does. */
export const DOOMED_NODE = 'kubedag-node-1';

/**
 * What the DAGs share: Pods placed on the doomed node while it is up, evicted 2 s after it is
 * found unreachable (Kubernetes' default is 300 s), and a workspace any node can mount, so a
 * retry is not tied to the lost node's disk.
 */
const PLACEMENT = [
  'kubernetes:',
  '  workspace: {accessMode: ReadWriteMany}',
  '  tolerations:',
  '    - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 2}',
  '    - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 2}',
  '  affinity:',
  '    nodeAffinity:',
  '      preferredDuringSchedulingIgnoredDuringExecution:',
  `        - {weight: 100, preference: {matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [${DOOMED_NODE}]}]}}`,
].join('\n');

/** The first attempt outlives any test; a second one succeeds at once. */
const FIRST_HANGS =
  'n=$(cat attempts 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > attempts; if [ "$n" -eq 1 ]; then sleep 600; fi';

export const NODE_DAGS: readonly ChaosDag[] = [
  {
    name: 'no-retry',
    yaml: [PLACEMENT, 'steps:', '  - {name: hangs, command: "sleep 600"}', '  - {name: after, command: "true"}'].join(
      '\n',
    ),
    expected: { status: 'failed', steps: { hangs: 'failed', after: 'canceled' }, pods: { hangs: 1, after: 0 } },
  },
  {
    name: 'retries',
    yaml: [
      PLACEMENT,
      'steps:',
      '  - name: hangs',
      `    command: '${FIRST_HANGS}'`,
      '    retryPolicy: {limit: 1, intervalSec: 0}',
      '  - {name: after, command: "true"}',
    ].join('\n'),
    expected: { status: 'succeeded', steps: { hangs: 'succeeded', after: 'succeeded' }, pods: { hangs: 2, after: 1 } },
  },
];

export interface NodeLossFigures extends BatchVerdict {
  readonly variant: 'restarted' | 'lost';
  /** From the kill to the step without retries failing. */
  readonly failedAfterSeconds: number;
  /** The failed step's error, as the run shows it. */
  readonly error: string;
  /** Where the retried step's second attempt ran. */
  readonly retryNode: string;
}

const agent = `node-agent ${DOOMED_NODE}`;

function ledger(cluster: ChaosCluster): LedgerEntry[] {
  return cluster.state.nodes.flatMap((node) => readLedger(node.ledger));
}

export async function nodeAgentKill(
  cluster: ChaosCluster,
  variant: 'restarted' | 'lost',
  settleMs: number,
): Promise<NodeLossFigures> {
  const namespace = await chaosNamespace(cluster, `chaos-node-${variant}`);
  for (const dag of NODE_DAGS) await applyDag(cluster, namespace, dag.name, dag.yaml);
  const operator = await launchOperator({
    kubeconfig: cluster.state.kubeconfig,
    namespace,
    logDir: await operatorLogDir(cluster),
  });
  const expected = new Map(NODE_DAGS.map((dag) => [`${dag.name}-run`, dag.expected]));
  try {
    for (const dag of NODE_DAGS) await createRun(cluster, namespace, `${dag.name}-run`, dag.name);
    const firstAttempts = NODE_DAGS.map((dag) => stepPodName(`${dag.name}-run`, 'hangs', 0));
    const runsOnDoomed = (pod: string): boolean =>
      ledger(cluster).some(
        (e) => e.namespace === namespace && e.pod === pod && e.event === 'start' && e.node === DOOMED_NODE,
      );
    await waitFor(
      'both first attempts to run on the doomed node',
      () => Promise.resolve(firstAttempts.every(runsOnDoomed)),
      120_000,
      200,
    );
    const killedAt = Date.now();
    await crashProcess(cluster.dir, agent);
    if (variant === 'restarted') await restartProcess(cluster.dir, agent, 'SIGKILL');
    const runs = await awaitRuns(cluster, namespace, [...expected.keys()], settleMs);
    const failed = runs.get('no-retry-run');
    return {
      ...verifyBatch(cluster, namespace, runs, expected),
      variant,
      failedAfterSeconds: (Date.parse(failed?.status?.finishedAt ?? '') - killedAt) / 1000,
      error: stepError(failed, 'hangs'),
      retryNode:
        ledger(cluster).find(
          (e) => e.namespace === namespace && e.pod === stepPodName('retries-run', 'hangs', 1) && e.event === 'start',
        )?.node ?? 'none',
    };
  } finally {
    await operator.stop();
    // A lost node comes back for what follows; its agent kills what the dead one left running.
    if (variant === 'lost') await restartProcess(cluster.dir, agent, 'SIGKILL');
  }
}

function stepError(run: DagRunResource | undefined, step: string): string {
  return run?.status?.nodes?.find((n) => n.name === step)?.error ?? '';
}

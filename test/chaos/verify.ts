/**
 * The verdict on a batch of chaos runs after the faults: each run's end (checks.ts) and what the
 * node agents' ledgers recorded for its namespace.
 */
import { readLedger } from '../../cluster/node-agent/ledger.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import type { ChaosCluster } from './cluster.ts';
import { attemptProblems, duplicateStarts, runProblems, startsPerPod } from './checks.ts';
import type { Expected } from './fixtures.ts';

export interface BatchVerdict {
  readonly problems: string[];
  /** Pods whose step container started more than once. */
  readonly duplicates: number;
  /** Runs that had not finished when the wait was over. */
  readonly stuck: number;
  /** Step containers started in the namespace (attempts, children's included). */
  readonly starts: number;
}

export function verifyBatch(
  cluster: ChaosCluster,
  namespace: string,
  runs: ReadonlyMap<string, DagRunResource>,
  expected: ReadonlyMap<string, Expected>,
): BatchVerdict {
  const starts = startsPerPod(
    cluster.state.nodes.flatMap((node) => readLedger(node.ledger)),
    namespace,
  );
  const duplicates = duplicateStarts(starts);
  const problems = [...duplicates];
  let stuck = 0;
  for (const [name, want] of expected) {
    const run = runs.get(name);
    if (run?.status?.finishedAt === undefined) stuck += 1;
    problems.push(...runProblems(name, run, want), ...attemptProblems(name, starts, want));
  }
  return { problems, duplicates: duplicates.length, stuck, starts: [...starts.values()].reduce((a, b) => a + b, 0) };
}

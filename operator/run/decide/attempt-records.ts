/**
 * A step's attempts as its node keeps them (`attempts`): one record per attempt, begun when
 * the engine launches (or adopts) it and closed when the engine reads how it ended, so the
 * run's trace can have a span per attempt although the node's own times span them all. Both
 * happen in the decision that changes the node anyway: no write of their own. Bounded: the
 * last ATTEMPTS_KEPT records stay, the rest are only counted (`attemptsDropped`). Pure.
 */
import { ATTEMPTS_KEPT, type AttemptRecord, type RunNode } from '../../../core/resources/schemas.ts';
import { StepStatus, type StepStatusValue } from '../../../core/resources/status.ts';

/** The node with a record of its current attempt, started at `at`; kept as it is when it has one. */
export function attemptBegun(node: RunNode, at: string): RunNode {
  const attempt = node.attempt ?? 0;
  const records = node.attempts ?? [];
  if (records.some((r) => r.attempt === attempt)) return node;
  const all = [...records, { attempt, startedAt: at, status: StepStatus.Running }];
  const dropped = Math.max(0, all.length - ATTEMPTS_KEPT);
  const kept = all.slice(dropped);
  const total = (node.attemptsDropped ?? 0) + dropped;
  return { ...node, attempts: kept, ...(total === 0 ? {} : { attemptsDropped: total }) };
}

export interface AttemptEnd {
  readonly attempt: number;
  readonly at: string;
  readonly status: StepStatusValue;
  readonly exitCode?: number;
}

/**
 * The node with that attempt's record closed. A record that is missing (the node was written by
 * an operator that kept none) or already closed stays as it is: its start is not known, or its
 * end was recorded before.
 */
export function attemptEnded(node: RunNode, end: AttemptEnd): RunNode {
  const records = node.attempts ?? [];
  const index = records.findIndex((r) => r.attempt === end.attempt && r.finishedAt === undefined);
  if (index < 0) return node;
  const closed: AttemptRecord = {
    ...(records[index] as AttemptRecord),
    finishedAt: end.at,
    status: end.status,
    ...(end.exitCode === undefined ? {} : { exitCode: end.exitCode }),
  };
  return { ...node, attempts: records.map((r, i) => (i === index ? closed : r)) };
}

/**
 * How an attempt ended, from the node after the engine judged it: the step's own status when
 * that was its last attempt; else (another attempt follows) by its exit code, since a retry
 * follows a failure and a repeat may follow either.
 */
export function attemptStatus(after: RunNode, exitCode: number): StepStatusValue {
  if (after.status !== StepStatus.Running) return after.status as StepStatusValue;
  return exitCode === 0 ? StepStatus.Succeeded : StepStatus.Failed;
}

import { describe, expect, it } from 'vitest';
import type { DagRunStatus, RunNode } from '../../../core/resources/schemas.ts';
import { dagOf, input, pod } from '../../../test/builders/run-engine.ts';
import { decide, type ObservedPod } from './engine.ts';
import { LOST_AFTER_MS, podLoss } from './lost.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const at = (seconds: number): Date => new Date(T0 + seconds * 1000);
/** Attempt 0 of step a, running on a node; `deleteBy` when it is being deleted. */
const running = (step = 'a', attempt = 0): ObservedPod => ({
  name: pod(step, attempt),
  step,
  attempt,
  phase: 'Running',
  deleting: false,
});
const evicted = (deleteBy: Date, step = 'a', attempt = 0): ObservedPod => ({
  ...running(step, attempt),
  deleting: true,
  deleteBy: deleteBy.toISOString(),
  disruption: 'DeletionByTaintManager',
});

describe('podLoss', () => {
  const cases: { name: string; pod: ObservedPod; now: Date; want: ReturnType<typeof podLoss> }[] = [
    { name: 'a Pod nobody deletes may still report', pod: running(), now: at(3600), want: { lost: false } },
    {
      name: 'a Pod being deleted may report until 20 s past its grace period, and is looked at again then',
      pod: evicted(at(10)),
      now: at(29),
      want: { lost: false, lookAgainAt: T0 + 10_000 + LOST_AFTER_MS },
    },
    {
      name: "a Pod still unconfirmed 20 s past its grace period is lost with its node, with the eviction's reason",
      pod: evicted(at(10)),
      now: at(30),
      want: {
        lost: true,
        why: 'the Pod of attempt 0 was deleted (DeletionByTaintManager) and its node never confirmed it stopped: lost with its node',
      },
    },
    {
      name: "a Failed Pod whose container never ended is lost at once, with the Pod's reason",
      pod: { ...running(), phase: 'Failed', failedWithoutExit: 'OutOfcpu' },
      now: at(0),
      want: { lost: true, why: 'the Pod of attempt 0 failed before its container ended (OutOfcpu)' },
    },
  ];
  it.each(cases)('$name', ({ pod: observed, now, want }) => {
    expect(podLoss(observed, now)).toEqual(want);
  });
});

/** The step's node after one decision, from a run whose attempt 0 of step a is running. */
function after(
  yaml: string,
  pods: ObservedPod[],
  now: Date,
  extra: { stop?: boolean; node?: Partial<RunNode> } = {},
): { node: RunNode | undefined; status: DagRunStatus; requeueAfterMs: number | undefined; launched: string[] } {
  const dag = dagOf(yaml);
  const first = decide(input(dag, {}, [], at(0)));
  const nodes = (first.status.nodes ?? []).map((n) => (n.name === 'a' ? { ...n, ...extra.node } : n));
  const decision = decide(input(dag, { ...first.status, nodes }, pods, now, { stop: extra.stop === true }));
  return {
    node: decision.status.nodes?.find((n) => n.name === 'a'),
    status: decision.status,
    requeueAfterMs: decision.requeueAfterMs,
    launched: decision.launch.map((l) => l.pod),
  };
}

describe('a step attempt lost without an exit code', () => {
  const plain = 'steps:\n  - {name: a, command: sleep 600}\n  - {name: b, command: echo}';
  const retried = 'steps:\n  - {name: a, command: sleep 600, retryPolicy: {limit: 1, intervalSec: 0}}';
  const lostAt = at(40);

  it('fails a step without a retry policy once its node has not confirmed the deletion in time, and cancels what depends on it', () => {
    const { node, status } = after(plain, [evicted(at(10))], lostAt);
    expect([node?.statusLabel, node?.exitCode, node?.error]).toEqual([
      'failed',
      undefined,
      'the Pod of attempt 0 was deleted (DeletionByTaintManager) and its node never confirmed it stopped: lost with its node',
    ]);
    expect(node?.attempts?.map((r) => [r.attempt, r.status, r.exitCode])).toEqual([[0, 2, undefined]]);
    expect(status.nodes?.find((n) => n.name === 'b')?.statusLabel).toBe('canceled');
  });

  it('waits for a deleted Pod until it is due and asks to be woken then', () => {
    const { node, requeueAfterMs } = after(plain, [evicted(at(10))], at(12));
    expect(node?.statusLabel).toBe('running');
    expect(requeueAfterMs).toBe(10_000 + LOST_AFTER_MS - 12_000);
  });

  it('runs the next attempt of a step whose retry policy allows one', () => {
    const { node, launched } = after(retried, [evicted(at(10))], lostAt);
    expect([node?.statusLabel, node?.attempt, node?.retryCount]).toEqual(['running', 1, 1]);
    expect(launched).toEqual([pod('a', 1)]);
  });

  it('runs the next attempt of a step whose Pod vanished when its retry policy allows one', () => {
    const { node, launched } = after(retried, [], at(5));
    expect([node?.statusLabel, node?.attempt, node?.error]).toEqual(['running', 1, 'the Pod of attempt 0 disappeared']);
    expect(launched).toEqual([pod('a', 1)]);
  });

  it('does not retry when the retry policy names exit codes: a lost attempt has none', () => {
    const { node } = after(
      'steps:\n  - {name: a, command: sleep 600, retryPolicy: {limit: 3, intervalSec: 0, exitCode: [137]}}',
      [evicted(at(10))],
      lostAt,
    );
    expect(node?.statusLabel).toBe('failed');
  });

  it('lets the run go on past it with continueOn.failure', () => {
    const { node, status } = after(
      'steps:\n  - {name: a, command: sleep 600, continueOn: {failure: true}}\n  - {name: b, command: echo}',
      [evicted(at(10))],
      lostAt,
    );
    expect([node?.statusLabel, node?.continued]).toEqual(['failed', true]);
    expect(status.nodes?.find((n) => n.name === 'b')?.statusLabel).toBe('running');
  });

  it('keeps no exit code of an earlier attempt', () => {
    const { node } = after(retried, [evicted(at(10), 'a', 1)], lostAt, {
      node: { attempt: 1, retryCount: 1, exitCode: 1, pod: pod('a', 1) },
    });
    expect([node?.statusLabel, node?.exitCode]).toEqual(['failed', undefined]);
  });

  it('ends the step canceled, not retried, when the run is being stopped', () => {
    const { node, launched } = after(retried, [evicted(at(10))], lostAt, { stop: true });
    expect([node?.statusLabel, launched]).toEqual(['canceled', []]);
  });
});

import { describe, expect, it } from 'vitest';
import type { DagRunStatus, RunNode } from '../../../core/resources/schemas.ts';
import { dagOf, input, pod } from '../../../test/builders/run-engine.ts';
import { decide, type ObservedPod, type RunInput } from './engine.ts';

const T0 = new Date('2026-01-01T00:00:00Z');
const later = new Date(T0.getTime() + 5000);
const CHAIN = 'steps:\n  - {name: a, command: x}\n  - {name: b, command: x, depends: a}';

/** A running run as the engine wrote it at T0, with the nodes given. */
function runningWith(nodes: RunNode[], extra: Partial<DagRunStatus> = {}): DagRunStatus {
  return { status: 1, statusLabel: 'running', startedAt: T0.toISOString(), nodes, ...extra };
}
const node = (name: string, status: number, statusLabel: string, extra: Partial<RunNode> = {}): RunNode => ({
  name,
  status,
  statusLabel,
  attempt: 0,
  ...extra,
});
const live = (step: string, extra: Partial<ObservedPod> = {}): ObservedPod => ({
  name: pod(step, 0),
  step,
  attempt: 0,
  phase: 'Running',
  deleting: false,
  ...extra,
});

describe('a running run with nothing to move it on', () => {
  it('ends stalled and failed, naming the steps left, with a Warning Event', () => {
    // A status no engine writes (a step in no known state), while the overall Pod cap is full:
    // the deadlock check does not judge a run whose slots are all taken.
    const status = runningWith([node('a', 9, 'unknown'), node('b', 0, 'not_started')]);
    const decision = decide(input(dagOf(CHAIN), status, [], later, { podBudget: 0 }));
    expect(decision.status).toMatchObject({
      statusLabel: 'failed',
      endReason: 'stalled',
      finishedAt: later.toISOString(),
    });
    expect(decision.status.error).toBe(
      'stalled: the run had nothing running or waiting that could move it on (a Kubedag bug or a lost status write); steps left: a (unknown), b (not_started)',
    );
    expect(decision.events.find((e) => e.reason === 'RunStalled')).toMatchObject({ warning: true });
    expect(decision.launch).toEqual([]);
  });

  it('runs the exit handler first, then finishes failed', () => {
    const dag = dagOf(`${CHAIN}\nhandlerOn: {exit: {command: cleanup}}`);
    const stalled = decide(
      input(dag, runningWith([node('a', 9, 'unknown'), node('b', 0, 'not_started')]), [], later, { podBudget: 0 }),
    );
    expect([stalled.status.endReason, stalled.status.finishedAt, stalled.launch.map((l) => l.handler)]).toEqual([
      'stalled',
      undefined,
      ['exit'],
    ]);
    const cleaned = decide(
      input(
        dag,
        stalled.status,
        [live('onExit', { phase: 'Succeeded', report: { exitCode: 0, preconditionUnmet: false } })],
        later,
        { podBudget: 0 },
      ),
    );
    expect([cleaned.status.statusLabel, cleaned.status.onExit?.statusLabel]).toEqual(['failed', 'succeeded']);
  });
});

describe('what keeps a running run from being stalled', () => {
  const cases: {
    name: string;
    yaml?: string;
    status: DagRunStatus;
    pods?: ObservedPod[];
    extra?: Partial<RunInput>;
  }[] = [
    {
      name: 'a step whose Pod runs',
      status: runningWith([node('a', 1, 'running', { pod: pod('a', 0) }), node('b', 0, 'not_started')]),
      pods: [live('a')],
    },
    {
      name: 'a step whose Pod was just created and is not cached yet',
      status: runningWith([node('a', 1, 'running', { pod: pod('a', 0) }), node('b', 0, 'not_started')]),
      extra: { expected: new Set([pod('a', 0)]) },
    },
    {
      name: 'a step whose Pod ended and waits for its log to report',
      status: runningWith([node('a', 1, 'running', { pod: pod('a', 0) }), node('b', 0, 'not_started')]),
      pods: [live('a', { phase: 'Succeeded' })],
    },
    {
      name: 'a step waiting for its next attempt',
      status: runningWith([
        node('a', 1, 'running', { attempt: 1, nextAttemptAt: new Date(later.getTime() + 10_000).toISOString() }),
        node('b', 0, 'not_started'),
      ]),
    },
    {
      name: 'ready steps the Pod caps hold back',
      status: runningWith([node('a', 0, 'not_started'), node('b', 0, 'not_started')]),
      extra: { podBudget: 0 },
    },
    {
      name: 'the start delay',
      yaml: `delaySec: 60\n${CHAIN}`,
      status: runningWith([node('a', 0, 'not_started'), node('b', 0, 'not_started')]),
    },
  ];
  it.each(cases)('$name', ({ yaml, status, pods, extra }) => {
    const decision = decide(input(dagOf(yaml ?? CHAIN), status, pods ?? [], later, extra ?? {}));
    expect([decision.status.statusLabel, decision.status.endReason]).toEqual(['running', undefined]);
  });
});

describe('a handler recorded as not started', () => {
  it('is started rather than waited for', () => {
    const dag = dagOf('steps: [{name: a, command: x}]\nhandlerOn: {exit: {command: cleanup}}');
    const status = runningWith([node('a', 4, 'succeeded')], { onExit: node('onExit', 0, 'not_started') });
    const decision = decide(input(dag, status, [], later));
    expect([
      decision.launch.map((l) => l.handler),
      decision.status.onExit?.statusLabel,
      decision.status.endReason,
    ]).toEqual([['exit'], 'running', undefined]);
  });
});

import { describe, expect, it } from 'vitest';
import type { RunNode } from '../../../core/resources/schemas.ts';
import { dagOf, input, pod, simulate, type Script } from '../../../test/builders/run-engine.ts';
import { decide } from './engine.ts';
import { attemptBegun, attemptEnded } from './attempt-records.ts';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:00:01.000Z';
const node = (extra: Partial<RunNode> = {}): RunNode => ({
  name: 'a',
  status: 1,
  statusLabel: 'running',
  attempt: 0,
  ...extra,
});
const records = (count: number): NonNullable<RunNode['attempts']> =>
  Array.from({ length: count }, (_, i) => ({ attempt: i, startedAt: T0, finishedAt: T1, status: 2, exitCode: 1 }));

describe('a node keeps a bounded record of its attempts', () => {
  const running = { attempt: 0, startedAt: T0, status: 1 };
  const cases: { name: string; got: () => RunNode; want: RunNode }[] = [
    {
      name: 'the first attempt begins a record that runs',
      got: () => attemptBegun(node(), T0),
      want: node({ attempts: [running] }),
    },
    {
      name: 'an attempt that has a record keeps its first start',
      got: () => attemptBegun(attemptBegun(node(), T0), T1),
      want: node({ attempts: [running] }),
    },
    {
      name: 'the twenty-first attempt drops the oldest record and counts it',
      got: () => attemptBegun(node({ attempt: 20, attempts: records(20) }), T0),
      want: node({ attempt: 20, attempts: [...records(20).slice(1), { ...running, attempt: 20 }], attemptsDropped: 1 }),
    },
    {
      name: 'dropped records add up',
      got: () => attemptBegun(node({ attempt: 25, attempts: records(25).slice(5), attemptsDropped: 5 }), T0),
      want: node({ attempt: 25, attempts: [...records(25).slice(6), { ...running, attempt: 25 }], attemptsDropped: 6 }),
    },
    {
      name: 'an ended attempt gets its end, status and exit code',
      got: () => attemptEnded(attemptBegun(node(), T0), { attempt: 0, at: T1, status: 2, exitCode: 3 }),
      want: node({ attempts: [{ attempt: 0, startedAt: T0, finishedAt: T1, status: 2, exitCode: 3 }] }),
    },
    {
      name: 'an attempt without a record stays without one',
      got: () => attemptEnded(node(), { attempt: 0, at: T1, status: 4 }),
      want: node(),
    },
    {
      name: 'an attempt ended twice keeps its first end',
      got: () =>
        attemptEnded(node({ attempts: records(1) }), { attempt: 0, at: '2026-01-01T00:00:09.000Z', status: 4 }),
      want: node({ attempts: records(1) }),
    },
  ];
  it.each(cases)('$name', ({ got, want }) => {
    expect(got()).toEqual(want);
  });
});

type Shown = [number, number, number | undefined];
/** Each record as [attempt, status, exit code]. */
const shown = (n: RunNode | undefined): Shown[] => (n?.attempts ?? []).map((r) => [r.attempt, r.status, r.exitCode]);

describe('the engine records every attempt of a step as it runs', () => {
  const cases: { name: string; yaml: string; script?: Script; want: Shown[]; dropped?: number }[] = [
    { name: 'a step that ran once has one succeeded attempt', yaml: 'steps: [echo]', want: [[0, 4, 0]] },
    {
      name: 'a step retried twice has two failed attempts and a succeeded one',
      yaml: 'steps:\n  - {name: a, command: x, retryPolicy: {limit: 2, intervalSec: 1}}',
      script: { a: [{ exitCode: 1 }, { exitCode: 2 }, { exitCode: 0 }] },
      want: [
        [0, 2, 1],
        [1, 2, 2],
        [2, 4, 0],
      ],
    },
    {
      name: 'a step that failed after its retries ends with a failed attempt',
      yaml: 'steps:\n  - {name: a, command: x, retryPolicy: {limit: 1, intervalSec: 1}}',
      script: { a: { exitCode: 3 } },
      want: [
        [0, 2, 3],
        [1, 2, 3],
      ],
    },
    {
      name: 'a repeating step has an attempt per execution, each by its own exit code',
      yaml: 'steps:\n  - {name: a, command: x, repeatPolicy: {repeat: until, exitCode: [0], limit: 3, intervalSec: 1}}',
      script: { a: [{ exitCode: 1 }, { exitCode: 0 }] },
      want: [
        [0, 2, 1],
        [1, 4, 0],
      ],
    },
    {
      name: 'a step repeated 25 times keeps its last 20 attempts and counts 5 dropped',
      yaml: 'steps:\n  - {name: a, command: x, repeatPolicy: {repeat: while, exitCode: [0], limit: 25, intervalSec: 1}}',
      want: Array.from({ length: 20 }, (_, i): Shown => [i + 5, 4, 0]),
      dropped: 5,
    },
  ];
  it.each(cases)('$name', ({ yaml, script, want, dropped }) => {
    const [step] = simulate(yaml, script).status.nodes ?? [];
    expect(shown(step)).toEqual(want);
    expect(step?.attemptsDropped).toBe(dropped);
  });

  it('gives each attempt the times of its own Pod, the wait between them in neither', () => {
    const { status } = simulate('steps:\n  - {name: a, command: x, retryPolicy: {limit: 1, intervalSec: 10}}', {
      a: { exitCode: 1 },
    });
    const times = (status.nodes?.[0]?.attempts ?? []).map((r) => [r.startedAt, r.finishedAt]);
    expect(times).toEqual([
      ['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:01.000Z'],
      ['2026-01-01T00:00:11.000Z', '2026-01-01T00:00:12.000Z'],
    ]);
  });
});

describe('attempts that end without a report are recorded too', () => {
  const dag = dagOf('steps:\n  - {name: a, command: sleep 9, timeoutSec: 5}');
  const t = (s: number): Date => new Date(Date.parse(T0) + s * 1000);
  const first = decide(input(dag, {}, [], t(0)));
  const running = { name: pod('a', 0), step: 'a', attempt: 0, phase: 'Running' as const, deleting: false };
  const cases: { name: string; got: () => unknown; want: unknown }[] = [
    {
      name: 'an attempt whose Pod disappeared ends failed, without an exit code',
      got: () => shown(decide(input(dag, first.status, [], t(1))).status.nodes?.[0]),
      want: [[0, 2, undefined]],
    },
    {
      name: 'an attempt stopped at its step timeout ends failed with exit code 124',
      got: () => {
        const late = decide(input(dag, first.status, [running], t(6)));
        return shown(
          decide(
            input(
              dag,
              late.status,
              [{ ...running, phase: 'Failed', report: { exitCode: 143, preconditionUnmet: false } }],
              t(7),
            ),
          ).status.nodes?.[0],
        );
      },
      want: [[0, 2, 124]],
    },
    {
      name: 'an attempt whose Pod was created before a crash lost the status begins when it is adopted',
      got: () => decide(input(dag, { ...first.status, nodes: [] }, [running], t(2))).status.nodes?.[0]?.attempts,
      want: [{ attempt: 0, startedAt: t(2).toISOString(), status: 1 }],
    },
  ];
  it.each(cases)('$name', ({ got, want }) => {
    expect(got()).toEqual(want);
  });
});

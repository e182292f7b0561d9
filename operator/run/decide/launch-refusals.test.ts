import { describe, expect, it } from 'vitest';
import type { DagRunStatus } from '../../../core/resources/schemas.ts';
import { dagOf, input, pod } from '../../../test/builders/run-engine.ts';
import { decide } from './engine.ts';
import { withRefusals } from './launch-refusals.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const at = (seconds: number): Date => new Date(T0 + seconds * 1000);
const DENIED = "pods \"x\" is forbidden: ValidatingAdmissionPolicy 'deny' with binding 'deny' denied request: no";

/** The first decision of a run, its launches refused by the API as act.ts records them, then the next decision. */
function refusedThenNext(
  yaml: string,
  refuse: (step: string) => boolean = () => true,
): { refused: DagRunStatus; next: ReturnType<typeof decide> } {
  const dag = dagOf(yaml);
  const first = decide(input(dag, {}, [], at(0)));
  const refused = withRefusals(
    first.status,
    first.launch.filter((l) => refuse(l.step.name)).map((launch) => ({ launch, message: DENIED })),
    at(1),
  );
  return { refused, next: decide(input(dag, refused, [], at(2))) };
}

const node = (
  status: DagRunStatus,
  name: string,
): DagRunStatus['nodes'] extends (infer N)[] | undefined ? N | undefined : never =>
  status.nodes?.find((n) => n.name === name);

describe('an attempt the Kubernetes API refused to create', () => {
  const cases: {
    name: string;
    yaml: string;
    want: { label: string; continued: boolean | undefined; next: string; run: string | undefined; launched: string[] };
  }[] = [
    {
      name: 'fails its step, cancels what depends on it and fails the run',
      yaml: 'steps:\n  - {name: a, command: echo}\n  - {name: b, command: echo}',
      want: { label: 'failed', continued: false, next: 'canceled', run: 'failed', launched: [] },
    },
    {
      name: 'is not retried by a retryPolicy: the same Pod spec is refused again',
      yaml: 'steps:\n  - {name: a, command: echo, retryPolicy: {limit: 3, intervalSec: 0}}\n  - {name: b, command: echo}',
      want: { label: 'failed', continued: false, next: 'canceled', run: 'failed', launched: [] },
    },
    {
      name: 'lets the run go on with continueOn.failure',
      yaml: 'steps:\n  - {name: a, command: echo, continueOn: {failure: true}}\n  - {name: b, command: echo}',
      want: { label: 'failed', continued: true, next: 'running', run: undefined, launched: [pod('b', 0)] },
    },
    {
      name: 'counts as succeeded with continueOn.markSuccess',
      yaml: 'steps:\n  - {name: a, command: echo, continueOn: {failure: true, markSuccess: true}}\n  - {name: b, command: echo}',
      want: { label: 'succeeded', continued: true, next: 'running', run: undefined, launched: [pod('b', 0)] },
    },
    {
      name: 'of a sub-DAG step fails the step the same way',
      yaml: 'steps:\n  - {name: a, call: child}\n  - {name: b, command: echo}',
      want: { label: 'failed', continued: false, next: 'canceled', run: 'failed', launched: [] },
    },
  ];
  it.each(cases)('$name', ({ yaml, want }) => {
    const { refused, next } = refusedThenNext(yaml, (step) => step === 'a');
    const a = node(refused, 'a');
    expect([a?.statusLabel, a?.continued]).toEqual([want.label, want.continued]);
    expect([
      node(next.status, 'b')?.statusLabel,
      next.status.finishedAt === undefined ? undefined : next.status.statusLabel,
      next.launch.map((l) => l.pod),
    ]).toEqual([want.next, want.run, want.launched]);
  });

  it("keeps the API's message as the step's error and closes the attempt's record as failed", () => {
    const a = node(refusedThenNext('steps:\n  - {name: a, command: echo}').refused, 'a');
    expect([a?.error, a?.exitCode, a?.attempts?.map((r) => [r.attempt, r.status])]).toEqual([
      `the Pod of attempt 0 was refused by the Kubernetes API: ${DENIED}`,
      undefined,
      [[0, 2]],
    ]);
  });

  it("gives the run the refused step's error as its own", () => {
    expect(refusedThenNext('steps:\n  - {name: a, command: echo}').next.status.error).toBe(
      `the Pod of attempt 0 was refused by the Kubernetes API: ${DENIED}`,
    );
  });

  it('leaves a step alone whose current attempt is not the refused one', () => {
    const dag = dagOf('steps:\n  - {name: a, command: echo}');
    const first = decide(input(dag, {}, [], at(0)));
    const launch = { ...(first.launch[0] as (typeof first.launch)[number]), attempt: 1 };
    expect(node(withRefusals(first.status, [{ launch, message: DENIED }], at(1)), 'a')?.statusLabel).toBe('running');
  });

  it('fails a refused exit handler without touching the steps', () => {
    const dag = dagOf('handlerOn: {exit: {command: echo}}\nsteps:\n  - {name: a, command: echo}');
    let status = decide(input(dag, {}, [], at(0))).status;
    const done = [
      {
        name: pod('a', 0),
        step: 'a',
        attempt: 0,
        phase: 'Succeeded' as const,
        deleting: false,
        report: { exitCode: 0, preconditionUnmet: false },
      },
    ];
    const handling = decide(input(dag, status, done, at(1)));
    status = withRefusals(
      handling.status,
      handling.launch.map((launch) => ({ launch, message: DENIED })),
      at(2),
    );
    const next = decide(input(dag, status, done, at(3)));
    expect([node(status, 'a')?.statusLabel, status.onExit?.statusLabel, next.status.statusLabel]).toEqual([
      'succeeded',
      'failed',
      'failed',
    ]);
  });

  it('fails the run when the prepare step is refused, with the API message in the run error', () => {
    const dag = dagOf('env: ["A=`date`"]\nsteps:\n  - {name: a, command: echo}');
    const first = decide(input(dag, {}, [], at(0)));
    const status = withRefusals(
      first.status,
      first.launch.map((launch) => ({ launch, message: DENIED })),
      at(1),
    );
    const next = decide(input(dag, status, [], at(2)));
    expect([
      first.launch.map((l) => l.step.name),
      status.prepare?.statusLabel,
      next.status.statusLabel,
      next.launch,
    ]).toEqual([['kubedag-prepare'], 'failed', 'failed', []]);
    expect(next.status.error).toContain(DENIED);
  });

  it("fails a parallel step when one item's child run is refused", () => {
    const dag = dagOf('steps:\n  - {name: fan, call: child, parallel: {items: [x, y]}}');
    const first = decide(input(dag, {}, [], at(0)));
    const status = withRefusals(
      first.status,
      first.launch.filter((l) => l.item?.index === 0).map((launch) => ({ launch, message: DENIED })),
      at(1),
    );
    const fan = node(status, 'fan');
    expect([first.launch.length, fan?.statusLabel, fan?.error]).toEqual([
      2,
      'failed',
      `the child run of item 0 of attempt 0 was refused by the Kubernetes API: ${DENIED}`,
    ]);
  });
});

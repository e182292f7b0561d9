/** The engine's bounds: what a run's status may hold, and the operator's Pod caps. */
import { describe, expect, it } from 'vitest';
import { dagOf, input, simulate } from '../../../test/builders/run-engine.ts';
import { decide, type RunInput } from './engine.ts';

describe('status size', () => {
  it('stays far below the etcd object limit for a 1,000-step run', () => {
    const steps = Array.from(
      { length: 1000 },
      (_, i) => `  - {name: step-with-a-longish-name-${String(i)}, command: "run --part ${String(i)}"}`,
    ).join('\n');
    const { status } = simulate(`type: graph\nsteps:\n${steps}`);
    expect(status.statusLabel).toBe('succeeded');
    const bytes = Buffer.byteLength(JSON.stringify(status));
    expect(bytes).toBeLessThan(512 * 1024);
  });
});

describe('the operator Pod caps', () => {
  const parallel =
    'type: graph\nsteps:\n  - {name: a, command: "true"}\n  - {name: b, command: "true"}\n  - {name: c, command: "true"}';
  const now = new Date('2026-01-01T00:00:00Z');
  const cases: {
    name: string;
    yaml: string;
    extra: Partial<RunInput>;
    launched: number;
    held?: number;
    recheck: boolean;
  }[] = [
    { name: 'without caps every ready step starts', yaml: parallel, extra: {}, launched: 3, recheck: false },
    {
      name: 'an overall budget of one starts one and reports two held',
      yaml: parallel,
      extra: { podBudget: 1 },
      launched: 1,
      held: 2,
      recheck: true,
    },
    {
      name: 'an exhausted overall budget starts nothing and reports all held',
      yaml: parallel,
      extra: { podBudget: 0 },
      launched: 0,
      held: 3,
      recheck: true,
    },
    {
      name: 'the per-run cap holds steps back the same way',
      yaml: parallel,
      extra: { maxRunningPods: 2 },
      launched: 2,
      held: 1,
      recheck: true,
    },
    {
      name: "the DAG's own maxActiveSteps is not reported as held by the operator",
      yaml: `maxActiveSteps: 1\n${parallel}`,
      extra: { podBudget: 5 },
      launched: 1,
      recheck: false,
    },
  ];
  it.each(cases)('$name', ({ yaml, extra, launched, held, recheck }) => {
    const decision = decide(input(dagOf(yaml), {}, [], now, extra));
    expect(decision.launch.length).toBe(launched);
    expect(decision.status.heldSteps).toBe(held);
    expect(decision.requeueAfterMs !== undefined).toBe(recheck);
  });

  it('a run held at zero budget is not a deadlock', () => {
    const decision = decide(input(dagOf(parallel), {}, [], now, { podBudget: 0 }));
    expect([decision.status.endReason, decision.status.finishedAt]).toEqual([undefined, undefined]);
  });
});

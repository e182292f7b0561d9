import { describe, expect, it } from 'vitest';
import { finishedRun, getRun, givenDag, peakConcurrency, whenRun, withOperatorNamespace } from './operator-support.ts';
import { clients, waitFor } from './support.ts';

const { core } = clients();
let ns = '';

withOperatorNamespace(
  'caps',
  (made) => {
    ({ ns } = made);
  },
  ['--max-pods=2', '--routine-events=true'],
);

describe('an operator with --max-pods=2 and --routine-events', () => {
  it('never runs more step Pods than the cap across runs, reports held steps, and finishes everything', async () => {
    const steps = Array.from({ length: 4 }, (_, i) => `  - {name: s${String(i)}, command: sleep 1}`).join('\n');
    await givenDag(ns, 'wide', `type: graph\nsteps:\n${steps}`);
    await Promise.all(['wide-1', 'wide-2'].map((name) => whenRun(ns, name, 'wide')));
    await waitFor(
      'a run to report held steps',
      async () =>
        ((await getRun(ns, 'wide-1')).status?.heldSteps ?? 0) > 0 ||
        ((await getRun(ns, 'wide-2')).status?.heldSteps ?? 0) > 0,
      30_000,
      50,
    );
    const done = await Promise.all(['wide-1', 'wide-2'].map((name) => finishedRun(ns, name, 90_000)));
    expect(done.map((r) => r.status?.statusLabel)).toEqual(['succeeded', 'succeeded']);
    expect(done.map((r) => r.status?.heldSteps)).toEqual([undefined, undefined]);
    expect(peakConcurrency(ns)).toBe(2);
  }, 120_000);

  it('records an Event for every step start and end and for a plain success', async () => {
    await givenDag(ns, 'eventful', 'steps: [echo one, echo two]');
    await whenRun(ns, 'eventful-run', 'eventful');
    await finishedRun(ns, 'eventful-run');
    await waitFor(
      'the events',
      async () => {
        const list = await core.listNamespacedEvent({
          namespace: ns,
          fieldSelector: 'involvedObject.name=eventful-run',
        });
        const reasons = list.items.map((e) => e.reason ?? '');
        return (
          ['StepStarted', 'StepFinished', 'Finished'].every((r) => reasons.includes(r)) &&
          reasons.filter((r) => r === 'StepStarted').length === 2
        );
      },
      15_000,
      100,
    );
  });
});

import { describe, expect, it } from 'vitest';
import type { DagRunStatus } from '../../../core/resources/schemas.ts';
import { dagOf, input, pod, simulate, type Script } from '../../../test/builders/run-engine.ts';
import { decide, type ObservedPod } from './engine.ts';

const states = (status: DagRunStatus): Record<string, string> =>
  Object.fromEntries((status.nodes ?? []).map((n) => [n.name, n.statusLabel]));

describe('run engine scenarios', () => {
  const cases: { name: string; yaml: string; script?: Script; run: string; steps: Record<string, string> }[] = [
    {
      name: 'a chain of three succeeds',
      yaml: 'steps: [echo a, echo b, echo c]',
      run: 'succeeded',
      steps: { cmd_1: 'succeeded', cmd_2: 'succeeded', cmd_3: 'succeeded' },
    },
    {
      name: 'a failure cancels its dependents and fails the run',
      yaml: 'steps: [echo a, "false", echo c]',
      script: { cmd_2: { exitCode: 1 } },
      run: 'failed',
      steps: { cmd_1: 'succeeded', cmd_2: 'failed', cmd_3: 'canceled' },
    },
    {
      name: 'continueOn.failure lets dependents run and makes the run partially succeeded',
      yaml: 'steps:\n  - {name: a, command: "false", continueOn: {failure: true}}\n  - {name: b, command: echo}',
      script: { a: { exitCode: 1 } },
      run: 'partially_succeeded',
      steps: { a: 'failed', b: 'succeeded' },
    },
    {
      name: 'markSuccess records the matched failure as succeeded and the run succeeds',
      yaml: 'steps:\n  - {name: a, command: x, continueOn: {exitCode: [3], markSuccess: true}}\n  - {name: b, command: echo}',
      script: { a: { exitCode: 3 } },
      run: 'succeeded',
      steps: { a: 'succeeded', b: 'succeeded' },
    },
    {
      name: 'continueOn.output matches a line of stdout',
      yaml: 'steps:\n  - {name: a, command: x, continueOn: {output: "re:^WARN"}}\n  - {name: b, command: echo}',
      script: { a: { exitCode: 2, stdout: 'ok\nWARN: soft failure' } },
      run: 'partially_succeeded',
      steps: { a: 'failed', b: 'succeeded' },
    },
    {
      name: 'an unmet command precondition skips the step and its dependents',
      yaml: 'steps:\n  - {name: a, command: x, preconditions: ["test -f /nope"]}\n  - {name: b, command: echo}',
      script: { a: { preconditionUnmet: true } },
      run: 'succeeded',
      steps: { a: 'skipped', b: 'skipped' },
    },
    {
      name: 'continueOn.skipped lets dependents of a skipped step run',
      yaml: 'steps:\n  - {name: a, command: x, preconditions: [{condition: "1", expected: "2"}], continueOn: {skipped: true}}\n  - {name: b, command: echo}',
      run: 'succeeded',
      steps: { a: 'skipped', b: 'succeeded' },
    },
    {
      name: 'a graph runs independent branches and joins them',
      yaml: 'type: graph\nsteps:\n  - {name: a, command: x}\n  - {name: b, command: x, depends: a}\n  - {name: c, command: x, depends: a}\n  - {name: d, command: x, depends: [b, c]}',
      script: { c: { exitCode: 1 } },
      run: 'failed',
      steps: { a: 'succeeded', b: 'succeeded', c: 'failed', d: 'canceled' },
    },
    {
      name: 'a retried step succeeds on its third attempt',
      yaml: 'steps:\n  - {name: a, command: x, retryPolicy: {limit: 2, intervalSec: 1}}',
      script: { a: [{ exitCode: 1 }, { exitCode: 1 }, { exitCode: 0 }] },
      run: 'succeeded',
      steps: { a: 'succeeded' },
    },
    {
      name: 'retries stop at the limit',
      yaml: 'steps:\n  - {name: a, command: x, retryPolicy: {limit: 1, intervalSec: 1}}',
      script: { a: { exitCode: 1 } },
      run: 'failed',
      steps: { a: 'failed' },
    },
    {
      name: 'a retry exit code filter does not retry other codes',
      yaml: 'steps:\n  - {name: a, command: x, retryPolicy: {limit: 3, intervalSec: 1, exitCode: [75]}}',
      script: { a: [{ exitCode: 2 }, { exitCode: 0 }] },
      run: 'failed',
      steps: { a: 'failed' },
    },
    {
      name: 'repeat until the condition holds',
      yaml: 'steps:\n  - {name: poll, command: check, repeatPolicy: {condition: "$STATE", expected: done, intervalSec: 1}}',
      script: { poll: [{ conditionValue: 'pending' }, { conditionValue: 'pending' }, { conditionValue: 'done' }] },
      run: 'succeeded',
      steps: { poll: 'succeeded' },
    },
    {
      name: 'repeat stops at its limit',
      yaml: 'steps:\n  - {name: poll, command: check, repeatPolicy: {repeat: true, limit: 3, intervalSec: 1}}',
      run: 'succeeded',
      steps: { poll: 'succeeded' },
    },
    {
      name: 'the failure handler then the exit handler run after a failure',
      yaml: 'steps: ["false"]\nhandlerOn: {success: {command: yay}, failure: {command: alert}, exit: {command: cleanup}}',
      script: { cmd_1: { exitCode: 1 } },
      run: 'failed',
      steps: { cmd_1: 'failed' },
    },
    {
      name: 'a failing success handler makes a successful run failed',
      yaml: 'steps: [echo]\nhandlerOn: {success: {command: notify}}',
      script: { onSuccess: { exitCode: 1 } },
      run: 'failed',
      steps: { cmd_1: 'succeeded' },
    },
    {
      name: 'a literal DAG precondition that is not met cancels the run',
      yaml: 'preconditions: [{condition: "a", expected: "b"}]\nsteps: [echo]\nhandlerOn: {cancel: {command: c}, exit: {command: e}}',
      run: 'canceled',
      steps: { cmd_1: 'not_started' },
    },
    {
      name: 'a DAG precondition the prepare Pod finds unmet cancels the run before any step',
      yaml: 'preconditions: [{condition: "`echo 6`", expected: "1"}]\nsteps: [echo]\nhandlerOn: {cancel: {command: c}}',
      script: { 'kubedag-prepare': { stdout: `C0=${Buffer.from('6').toString('base64')}\n` } },
      run: 'canceled',
      steps: { cmd_1: 'not_started' },
    },
    {
      name: 'a DAG command precondition that exits non-zero in the prepare Pod cancels the run',
      yaml: 'preconditions: ["test -f /nope"]\nsteps: [echo]',
      script: { 'kubedag-prepare': { stdout: `C0=${Buffer.from('1').toString('base64')}\n` } },
      run: 'canceled',
      steps: { cmd_1: 'not_started' },
    },
    {
      name: 'DAG preconditions the prepare Pod finds met let the steps run',
      yaml: 'preconditions: ["test -d /", {condition: "`date +%u`", expected: "re:[1-5]"}]\nsteps: [echo]',
      script: {
        'kubedag-prepare': {
          stdout: `C0=${Buffer.from('0').toString('base64')}\nC1=${Buffer.from('3').toString('base64')}\n`,
        },
      },
      run: 'succeeded',
      steps: { cmd_1: 'succeeded' },
    },
    {
      name: 'an output above maxOutputSize fails the step',
      yaml: 'maxOutputSize: 4\nsteps:\n  - {name: a, command: x, output: OUT}',
      script: { a: { stdout: 'too long' } },
      run: 'failed',
      steps: { a: 'failed' },
    },
  ];
  it.each(cases)('$name', ({ yaml, script, run, steps }) => {
    const result = simulate(yaml, script);
    expect(result.status.statusLabel).toBe(run);
    expect(states(result.status)).toEqual(steps);
  });
});

describe('run engine details', () => {
  it('starts a parallel group together after its predecessor', () => {
    const { decisions } = simulate('steps:\n  - echo a\n  - [echo b, echo c]\n  - echo d');
    expect(decisions.map((d) => d.launch.map((l) => l.step.name)).filter((l) => l.length > 0)).toEqual([
      ['cmd_1'],
      ['parallel_2_echo_1', 'parallel_2_echo_2'],
      ['cmd_3'],
    ]);
  });

  it('keeps to maxActiveSteps', () => {
    const { decisions } = simulate('type: graph\nmaxActiveSteps: 2\nsteps: [echo a, echo b, echo c]');
    expect(Math.max(...decisions.map((d) => d.launch.length))).toBe(2);
  });

  it('numbers attempts and counts retries', () => {
    const { status, started } = simulate('steps:\n  - {name: a, command: x, retryPolicy: {limit: 2, intervalSec: 1}}', {
      a: [{ exitCode: 1 }, { exitCode: 1 }, { exitCode: 0 }],
    });
    expect(started).toEqual(['a#0', 'a#1', 'a#2']);
    expect(status.nodes?.[0]).toMatchObject({ retryCount: 2, attempt: 2, exitCode: 0 });
  });

  it('waits the retry interval with backoff before the next attempt', () => {
    const { decisions } = simulate(
      'steps:\n  - {name: a, command: x, retryPolicy: {limit: 2, intervalSec: 10, backoff: 2}}',
      { a: { exitCode: 1 } },
    );
    expect(decisions.map((d) => d.requeueAfterMs).filter((ms) => ms !== undefined && ms > 0)).toEqual([10_000, 20_000]);
  });

  it('records captured outputs on the node', () => {
    const { status } = simulate('steps:\n  - {name: a, command: x, output: RESULT}', { a: { stdout: '  {"n": 1}\n' } });
    expect(status.nodes?.[0]?.outputs).toEqual({ RESULT: '{"n": 1}' });
  });

  it('adopts a Pod created before a crash instead of creating another', () => {
    const dag = dagOf('steps: [echo]');
    const first = decide(input(dag, {}, [], new Date()));
    expect(first.launch.map((l) => l.pod)).toEqual([pod('cmd_1', 0)]);
    // The status write was lost; the Pod exists.
    const again = decide(
      input(
        dag,
        { ...first.status, nodes: [] },
        [{ name: pod('cmd_1', 0), step: 'cmd_1', attempt: 0, phase: 'Running', deleting: false }],
        new Date(),
      ),
    );
    expect(again.launch).toEqual([]);
    expect(again.status.nodes?.[0]).toMatchObject({ statusLabel: 'running', pod: pod('cmd_1', 0) });
  });

  it('fails a step whose Pod vanished, but waits for one it has just created', () => {
    const dag = dagOf('steps: [echo]');
    const first = decide(input(dag, {}, [], new Date()));
    expect(
      decide(input(dag, first.status, [], new Date(), { expected: new Set([pod('cmd_1', 0)]) })).status.nodes?.[0]
        ?.statusLabel,
    ).toBe('running');
    expect(decide(input(dag, first.status, [], new Date())).status.nodes?.[0]).toMatchObject({
      statusLabel: 'failed',
      error: 'the Pod of attempt 0 disappeared',
    });
  });

  it('stops running Pods on a stop request, then ends canceled after the cancel handler', () => {
    const dag = dagOf('maxCleanUpTimeSec: 7\nsteps: [sleep 100, echo]\nhandlerOn: {cancel: {command: c}}');
    const first = decide(input(dag, {}, [], new Date()));
    const running: ObservedPod = {
      name: pod('cmd_1', 0),
      step: 'cmd_1',
      attempt: 0,
      phase: 'Running',
      deleting: false,
    };
    const stopping = decide(input(dag, first.status, [running], new Date(), { stop: true }));
    expect(stopping.stop).toEqual([{ pod: pod('cmd_1', 0) }]);
    const killed: ObservedPod = {
      ...running,
      phase: 'Failed',
      deleting: true,
      report: { exitCode: 143, preconditionUnmet: false },
    };
    const handling = decide(input(dag, stopping.status, [killed], new Date(), { stop: true }));
    expect(handling.launch.map((l) => l.handler)).toEqual(['cancel']);
    const handler: ObservedPod = {
      name: pod('onCancel', 0),
      step: 'onCancel',
      attempt: 0,
      phase: 'Succeeded',
      deleting: false,
      report: { exitCode: 0, preconditionUnmet: false },
    };
    const done = decide(input(dag, handling.status, [killed, handler], new Date(), { stop: true }));
    expect(done.status.statusLabel).toBe('canceled');
    expect(done.status.onCancel?.statusLabel).toBe('succeeded');
    expect(states(done.status)).toEqual({ cmd_1: 'canceled', cmd_2: 'not_started' });
  });

  it('fails the run at timeoutSec, stopping running steps and canceling the rest', () => {
    const dag = dagOf('timeoutSec: 60\nsteps: [sleep 100, echo]');
    const t0 = new Date('2026-01-01T00:00:00Z');
    const first = decide(input(dag, {}, [], t0));
    expect(first.requeueAfterMs).toBe(60_000);
    const running: ObservedPod = {
      name: pod('cmd_1', 0),
      step: 'cmd_1',
      attempt: 0,
      phase: 'Running',
      deleting: false,
    };
    const late = decide(input(dag, first.status, [running], new Date(t0.getTime() + 61_000)));
    expect(late.stop.map((s) => s.pod)).toEqual([pod('cmd_1', 0)]);
    const ended = decide(
      input(
        dag,
        late.status,
        [{ ...running, phase: 'Failed', report: { exitCode: 137, preconditionUnmet: false } }],
        new Date(t0.getTime() + 62_000),
      ),
    );
    expect([ended.status.statusLabel, ended.status.error]).toEqual(['failed', 'run timed out after 60 s']);
    expect(states(ended.status)).toEqual({ cmd_1: 'canceled', cmd_2: 'canceled' });
  });

  it('fails a step with exit code 124 at its own timeoutSec, without retrying', () => {
    const dag = dagOf(
      'steps:\n  - {name: a, command: sleep 9, timeoutSec: 5, retryPolicy: {limit: 3, intervalSec: 1}}',
    );
    const t0 = new Date('2026-01-01T00:00:00Z');
    const first = decide(input(dag, {}, [], t0));
    const running: ObservedPod = { name: pod('a', 0), step: 'a', attempt: 0, phase: 'Running', deleting: false };
    const late = decide(input(dag, first.status, [running], new Date(t0.getTime() + 6000)));
    expect(late.stop.map((s) => s.pod)).toEqual([pod('a', 0)]);
    const ended = decide(
      input(
        dag,
        late.status,
        [{ ...running, phase: 'Failed', report: { exitCode: 143, preconditionUnmet: false } }],
        new Date(t0.getTime() + 7000),
      ),
    );
    expect(ended.status.nodes?.[0]).toMatchObject({ statusLabel: 'failed', exitCode: 124 });
    expect(ended.status.statusLabel).toBe('failed');
  });

  it('waits delaySec before the first step', () => {
    const dag = dagOf('delaySec: 30\nsteps: [echo]');
    const first = decide(input(dag, {}, [], new Date('2026-01-01T00:00:00Z')));
    expect([first.launch.length, first.requeueAfterMs]).toEqual([0, 30_000]);
  });

  it('rejects a run it cannot start with a clear error', () => {
    const decision = decide(
      input(
        { ...dagOf('steps: [echo]'), rejection: 'the gha executor is not supported on Kubernetes' },
        {},
        [],
        new Date(),
      ),
    );
    expect(decision.status).toMatchObject({
      statusLabel: 'failed',
      error: 'the gha executor is not supported on Kubernetes',
      endReason: 'rejected',
    });
    expect(decision.launch).toEqual([]);
  });

  it('is idempotent: the same snapshot gives the same decision', () => {
    const dag = dagOf('steps: [echo a, echo b]');
    const now = new Date();
    const first = decide(input(dag, {}, [], now));
    expect(decide(input(dag, first.status, [], now, { expected: new Set([pod('cmd_1', 0)]) })).launch).toEqual([]);
  });
});

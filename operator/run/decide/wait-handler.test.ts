import { describe, expect, it } from 'vitest';
import type { DagRunSpec, DagRunStatus } from '../../../core/resources/schemas.ts';
import type { ApprovalAnswer } from '../../../core/resources/types.ts';
import { dagOf, input, SIMULATION_START } from '../../../test/builders/run-engine.ts';
import { decide, type ObservedPod } from './engine.ts';
import { waitHandlerVars } from './wait-handler.ts';

const DAG = `
handler_on:
  wait: {run: notify}
  exit: {run: cleanup}
steps:
  - {name: build, run: echo built}
  - name: review
    depends: [build]
    run: echo review
    approval: {input: [NOTE], rewind_to: build}
  - {name: ship, depends: [review], run: echo ship}
`;

interface State {
  status: DagRunStatus;
  pods: ObservedPod[];
  started: string[];
  /** DAG_WAITING_STEPS of each wait handler launched, in order. */
  waitingSteps: string[];
  clock: number;
}

/** Decides until the run ends or nothing moves; each Pod ends at once with its step's exit code (0 unless listed). */
function drive(state: State, approvals: NonNullable<DagRunSpec['approvals']> = {}, exits: Record<string, number> = {}) {
  const definition = dagOf(DAG);
  let { status, pods, clock } = state;
  const started = [...state.started];
  const waitingSteps = [...state.waitingSteps];
  for (let round = 0; round < 50; round += 1) {
    const decision = decide(input(definition, status, pods, new Date(clock), { approvals }));
    const moved = JSON.stringify(decision.status) !== JSON.stringify(status) || decision.launch.length > 0;
    status = decision.status;
    for (const launch of decision.launch) {
      started.push(`${launch.step.name}#${String(launch.attempt)}`);
      for (const v of waitHandlerVars(launch, status)) waitingSteps.push(v.value);
      const report = { exitCode: exits[launch.step.name] ?? 0, preconditionUnmet: false };
      const phase = report.exitCode === 0 ? ('Succeeded' as const) : ('Failed' as const);
      pods = [
        ...pods,
        { name: launch.pod, step: launch.step.name, attempt: launch.attempt, phase, deleting: false, report },
      ];
    }
    clock += 1000;
    if (!moved || status.finishedAt !== undefined) break;
  }
  return { status, pods, started, waitingSteps, clock };
}

const fresh = (): State => ({
  status: {},
  pods: [],
  started: [],
  waitingSteps: [],
  clock: Date.parse(SIMULATION_START),
});
const answer = (action: ApprovalAnswer['action'], iteration = 0): ApprovalAnswer => ({
  iteration,
  action,
  at: '2026-01-01T01:00:00Z',
  by: 'ana',
});

describe('the wait handler (Dagu 2.x handler_on.wait)', () => {
  it('runs once when the run starts waiting, with DAG_WAITING_STEPS, and the run stays waiting', () => {
    const waiting = drive(fresh());
    expect(waiting.started).toEqual(['build#0', 'review#0', 'onWait#1']);
    expect(waiting.waitingSteps).toEqual(['review']);
    expect(waiting.status).toMatchObject({ status: 7, waits: 1 });
    expect(waiting.status.onWait).toMatchObject({ status: 4, attempt: 1 });
  });

  it('is not started again by decisions made again during the same wait (a restart)', () => {
    const waiting = drive(fresh());
    const again = drive(drive(waiting));
    expect(again.started).toEqual(waiting.started);
    expect(again.status.waits).toBe(1);
  });

  it('runs again after a push-back, once the run waits again, for the second wait', () => {
    const waiting = drive(fresh());
    const pushed = drive(waiting, { review: answer('pushBack') });
    expect(pushed.started).toEqual(['build#0', 'review#0', 'onWait#1', 'build#1', 'review#1', 'onWait#2']);
    expect(pushed.waitingSteps).toEqual(['review', 'review']);
    expect(pushed.status).toMatchObject({ status: 7, waits: 2 });
  });

  it('does not run after the approval that ends the waits; the exit handler runs as the run ends', () => {
    const done = drive(drive(fresh()), { review: answer('approve') });
    expect(done.started).toEqual(['build#0', 'review#0', 'onWait#1', 'ship#0', 'onExit#0']);
    expect(done.status).toMatchObject({ statusLabel: 'succeeded', waits: 1 });
  });

  it('failing, does not fail the run: the run waits, then succeeds once approved', () => {
    const waiting = drive(fresh(), {}, { onWait: 1 });
    expect(waiting.status.onWait).toMatchObject({ status: 2 });
    expect(waiting.status).toMatchObject({ status: 7, statusLabel: 'waiting' });
    const done = drive(waiting, { review: answer('approve') });
    expect(done.status).toMatchObject({ statusLabel: 'succeeded' });
  });

  it('still running when the answer comes, the run ends only after it has ended', () => {
    const definition = dagOf(DAG);
    const waiting = drive(fresh());
    // The wait handler's record as running, with no report yet from its Pod.
    const status = { ...waiting.status, onWait: { name: 'onWait', attempt: 1, status: 1, statusLabel: 'running' } };
    const pods = waiting.pods.filter((p) => p.step !== 'onWait');
    const running = { name: 'wait-pod', step: 'onWait', attempt: 1, phase: 'Running' as const, deleting: false };
    let decision = decide(
      input(definition, status, [...pods, running], new Date(waiting.clock), {
        approvals: { review: answer('approve') },
      }),
    );
    const shipPod = decision.launch.map((l) => ({
      name: l.pod,
      step: l.step.name,
      attempt: l.attempt,
      phase: 'Succeeded' as const,
      deleting: false,
      report: { exitCode: 0, preconditionUnmet: false },
    }));
    decision = decide(
      input(definition, decision.status, [...pods, running, ...shipPod], new Date(waiting.clock + 1000), {
        approvals: { review: answer('approve') },
      }),
    );
    expect(decision.status.finishedAt).toBeUndefined();
    expect(decision.launch.map((l) => l.step.name)).toEqual([]);
  });
});

describe('waitHandlerVars', () => {
  it('gives the wait handler the waiting steps in order, comma-separated, and other Pods nothing', () => {
    const status: DagRunStatus = {
      nodes: [
        { name: 'a', status: 7, statusLabel: 'waiting' },
        { name: 'b', status: 4, statusLabel: 'succeeded' },
        { name: 'c', status: 7, statusLabel: 'waiting' },
      ],
    };
    expect(waitHandlerVars({ handler: 'wait' }, status)).toEqual([{ name: 'DAG_WAITING_STEPS', value: 'a,c' }]);
    expect(waitHandlerVars({ handler: 'exit' }, status)).toEqual([]);
    expect(waitHandlerVars({}, status)).toEqual([]);
  });
});

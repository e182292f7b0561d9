import { describe, expect, it } from 'vitest';
import type { Step } from '../../../core/dag/index.ts';
import type { DagRunSpec, DagRunStatus } from '../../../core/resources/schemas.ts';
import { dagOf, input, SIMULATION_START } from '../../../test/builders/run-engine.ts';
import type { ApprovalAnswer } from '../../../core/resources/types.ts';
import { pushBackVars } from './approval.ts';
import { decide, type ObservedPod } from './engine.ts';
import { variables } from './variables.ts';

const DAG = `
steps:
  - name: build
    run: echo built
  - name: review
    depends: [build]
    run: echo review
    approval: {input: [TICKET, NOTE], required: [TICKET], rewind_to: build}
  - name: ship
    depends: [review]
    run: echo ship
`;

interface State {
  status: DagRunStatus;
  pods: ObservedPod[];
  started: string[];
  clock: number;
}

/** Decides until the run ends or nothing moves any more; every Pod succeeds at once. */
function drive(state: State, approvals: NonNullable<DagRunSpec['approvals']> = {}, stop = false): State {
  const definition = dagOf(DAG);
  let { status, pods, clock } = state;
  const started = [...state.started];
  for (let round = 0; round < 50; round += 1) {
    const decision = decide(input(definition, status, pods, new Date(clock), { approvals, stop }));
    const moved = JSON.stringify(decision.status) !== JSON.stringify(status) || decision.launch.length > 0;
    status = decision.status;
    for (const launch of decision.launch) {
      started.push(`${launch.step.name}#${String(launch.attempt)}`);
      const report = { exitCode: 0, preconditionUnmet: false };
      pods = [
        ...pods,
        {
          name: launch.pod,
          step: launch.step.name,
          attempt: launch.attempt,
          phase: 'Succeeded',
          deleting: false,
          report,
        },
      ];
    }
    clock += 1000;
    if (!moved || status.finishedAt !== undefined) break;
  }
  return { status, pods, started, clock };
}

const fresh = (): State => ({ status: {}, pods: [], started: [], clock: Date.parse(SIMULATION_START) });
const node = (state: State, name: string) => state.status.nodes?.find((n) => n.name === name);
const answer = (action: ApprovalAnswer['action'], fields: Partial<ApprovalAnswer> = {}): ApprovalAnswer => ({
  iteration: 0,
  action,
  at: '2026-01-01T01:00:00Z',
  by: 'ana',
  ...fields,
});

describe('an approval step', () => {
  it('runs its command, then waits with no Pod while its dependents hold, and the run says waiting', () => {
    const waiting = drive(fresh());
    expect(waiting.started).toEqual(['build#0', 'review#0']);
    expect(node(waiting, 'review')).toMatchObject({ status: 7, statusLabel: 'waiting' });
    expect(node(waiting, 'ship')).toMatchObject({ status: 0 });
    expect(waiting.status).toMatchObject({ status: 7, statusLabel: 'waiting' });
    expect(waiting.status.finishedAt).toBeUndefined();
    expect(waiting.status.endReason).toBeUndefined();
  });

  it('goes on once approved, and later steps read the inputs as variables', () => {
    const done = drive(drive(fresh()), { review: answer('approve', { inputs: { TICKET: 'T-1' } }) });
    expect(done.started).toEqual(['build#0', 'review#0', 'ship#0']);
    expect(node(done, 'review')).toMatchObject({
      status: 4,
      approvedBy: 'ana',
      approvalInputs: { TICKET: 'T-1' },
      outputs: { TICKET: 'T-1' },
    });
    expect(done.status.statusLabel).toBe('succeeded');
  });

  it('ignores an answer of an earlier iteration', () => {
    const still = drive(drive(fresh()), { review: answer('approve', { iteration: 1 }) });
    expect(still.status.statusLabel).toBe('waiting');
  });

  it('ends the run rejected with the reason when rejected, its dependents canceled', () => {
    const done = drive(drive(fresh()), { review: answer('reject', { reason: 'not today' }) });
    expect(node(done, 'review')).toMatchObject({ status: 8, rejectionReason: 'not today', rejectedBy: 'ana' });
    expect(node(done, 'ship')).toMatchObject({ status: 3, error: 'upstream rejected: review' });
    expect(done.status).toMatchObject({ status: 8, statusLabel: 'rejected', error: 'rejected by ana: not today' });
  });

  it('re-runs from its rewind target with new attempt numbers when pushed back, then waits again', () => {
    const again = drive(drive(fresh()), { review: answer('pushBack', { inputs: { NOTE: 'fix it', OTHER: 'x' } }) });
    expect(again.started).toEqual(['build#0', 'review#0', 'build#1', 'review#1']);
    expect(node(again, 'review')).toMatchObject({
      status: 7,
      approvalIteration: 1,
      pushBackInputs: { NOTE: 'fix it' },
    });
    expect(node(again, 'build')).toMatchObject({ status: 4, approvalIteration: 1, attempt: 1 });
    expect(again.status.statusLabel).toBe('waiting');
    const done = drive(again, { review: answer('approve', { iteration: 1 }) });
    expect(done.status.statusLabel).toBe('succeeded');
  });

  it('is canceled when the run is stopped while it waits', () => {
    const done = drive(drive(fresh()), {}, true);
    expect(node(done, 'review')).toMatchObject({ status: 3, error: 'canceled while waiting for approval' });
    expect(done.status.statusLabel).toBe('canceled');
  });

  it('gives a pushed-back step the inputs, the iteration and the push-back as JSON', () => {
    const definition = dagOf(DAG);
    const status: DagRunStatus = {
      nodes: [
        {
          name: 'build',
          status: 0,
          statusLabel: 'not_started',
          approvalIteration: 2,
          pushBackInputs: { NOTE: 'n' },
          pushBackBy: 'ana',
          pushBackAt: '2026-01-01T01:00:00Z',
        },
      ],
    };
    expect(pushBackVars(definition.dag.steps[0] as Step, status)).toEqual([
      { name: 'NOTE', value: 'n' },
      { name: 'DAG_PUSHBACK_ITERATION', value: '2' },
      {
        name: 'DAG_PUSHBACK',
        value: '{"iteration":2,"by":"ana","at":"2026-01-01T01:00:00Z","inputs":{"NOTE":"n"}}',
      },
    ]);
  });

  it("gives a step after the approval the push-back's input over the later approval's of the same name, as Dagu", () => {
    const definition = dagOf(DAG);
    const rerun = { approvalIteration: 1, pushBackInputs: { TICKET: 'T-push' } };
    const status: DagRunStatus = {
      nodes: [
        { name: 'build', status: 4, statusLabel: 'succeeded', ...rerun },
        { name: 'review', status: 4, statusLabel: 'succeeded', outputs: { TICKET: 'T-approve' }, ...rerun },
        { name: 'ship', status: 0, statusLabel: 'not_started', ...rerun },
      ],
    };
    const ship = definition.dag.steps[2] as Step;
    expect(variables(definition, status, ship, definition.dag.steps).TICKET).toBe('T-push');
    // Without a push-back the approval's input is what the step reads.
    const plain: DagRunStatus = {
      nodes: [{ name: 'review', status: 4, statusLabel: 'succeeded', outputs: { TICKET: 'T-approve' } }],
    };
    expect(variables(definition, plain, ship, definition.dag.steps).TICKET).toBe('T-approve');
  });
});

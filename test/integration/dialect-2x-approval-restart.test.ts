/**
 * An answer to a step that waits for approval, written while no operator runs: the wait and the
 * answer are data in the DAGRun (status and `spec.approvals`), so the operator started again
 * applies the answer and the run goes on exactly once. What really ran is read from the node
 * agents' ledgers, not from a status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../apiserver/server.ts';
import { dagRunResourceName, stepPodName } from '../../core/resources/names.ts';
import { ContractClient, startApi } from './api-support.ts';
import { getRun, ledgerOf, startOperator, stepLog, type RunningOperator } from './operator-support.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';

const { core } = clients();
let ns: string;
let operator: RunningOperator;
let server: Server;
let v1: ContractClient;

const GATE = `steps:
  - id: build
    run: echo built
  - id: review
    depends: [build]
    run: echo "ready for review"
    approval:
      input: [TICKET]
      required: [TICKET]
  - id: ship
    depends: [review]
    run: echo "shipping \${TICKET}"
`;

interface Run {
  status: number;
  statusLabel: string;
  finishedAt: string;
  nodes: { step: { name: string }; status: number; approvedBy?: string }[];
}

async function until(id: string, what: string, done: (run: Run) => boolean): Promise<Run> {
  let run: Run | undefined;
  await waitFor(
    `run ${id} ${what}`,
    async () => {
      const answer = await v1.call('GET', `/api/v1/dag-runs/gate/${id}`);
      run = (answer.body as { dagRunDetails: Run }).dagRunDetails;
      return done(run);
    },
    60_000,
    200,
  );
  return run as Run;
}

/** How many times the node agents started each attempt's Pod of the run's steps. */
function starts(runId: string, steps: readonly string[], attempts: number): Record<string, number> {
  const run = dagRunResourceName('gate', runId);
  return Object.fromEntries(
    steps.flatMap((step) =>
      Array.from({ length: attempts }, (_, attempt) => [
        `${step}#${String(attempt)}`,
        ledgerOf(ns, stepPodName(run, step, attempt)).filter((e) => e.event === 'start').length,
      ]),
    ),
  );
}

beforeAll(async () => {
  ns = await createNamespace(core, 'kd-approval-restart');
  operator = await startOperator(ns);
  server = await startApi(ns, operator.url);
  v1 = new ContractClient(server.app);
  await v1.load('/api/v1/openapi.json');
  expect((await v1.call('POST', '/api/v1/dags', { name: 'gate', spec: GATE })).status).toBe(201);
});

afterAll(async () => {
  await server.close();
  await operator.stop();
  await deleteNamespace(core, ns);
});

describe('an approval answered while the operator is down', () => {
  it('is applied by the operator started again, and every step runs once', async () => {
    await v1.call('POST', '/api/v1/dags/gate/start', { dagRunId: 'o1' });
    await until('o1', 'to wait', (run) => run.status === 7);
    await operator.stop();
    const approved = await v1.call('POST', '/api/v1/dag-runs/gate/o1/steps/review/approve', {
      inputs: { TICKET: 'T-9' },
    });
    expect(approved.status).toBe(200);
    // Nobody applies it yet: the answer waits in the run's spec.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const held = await getRun(ns, dagRunResourceName('gate', 'o1'));
    expect([held.status?.status, held.spec.approvals?.review?.action]).toEqual([7, 'approve']);
    operator = await startOperator(ns, operator.logDir);
    const done = await until('o1', 'to end', (run) => run.finishedAt !== '');
    expect([done.statusLabel, done.nodes.map((n) => n.status)]).toEqual(['succeeded', [4, 4, 4]]);
    expect(starts('o1', ['build', 'review', 'ship'], 2)).toEqual({
      'build#0': 1,
      'build#1': 0,
      'review#0': 1,
      'review#1': 0,
      'ship#0': 1,
      'ship#1': 0,
    });
    const run = await getRun(ns, dagRunResourceName('gate', 'o1'));
    expect(await stepLog(operator, run, 'ship')).toBe('shipping T-9\n');
  });
});

/**
 * Dagu 2.x's step `approval` on the local control plane, the real operator running the steps:
 * a step waits for a person after its command, /api/v1 answers it (approve with inputs, reject
 * with a reason, push back), and /api/v2 shows the wait and the rejection in Dagu 1.24's numbers.
 */
import { describe, expect, it } from 'vitest';
import { ContractClient } from './api-support.ts';
import { withApiStack } from './api-stack.ts';
import { clients, waitFor } from './support.ts';

const { core } = clients();
let ns: string;
let v1: ContractClient;
let v2: ContractClient;

interface Node {
  step: { name: string };
  status: number;
  statusLabel: string;
  approvalInputs?: Record<string, string>;
}
interface Run {
  status: number;
  statusLabel: string;
  finishedAt: string;
  nodes: Node[];
}

const GATE = `steps:
  - id: build
    run: echo built
  - id: review
    depends: [build]
    run: echo "ready for review"
    approval:
      prompt: Ship this build?
      input: [TICKET, NOTE]
      required: [TICKET]
  - id: ship
    depends: [review]
    run: echo "shipping \${TICKET}"
`;

async function details(api: ContractClient, prefix: string, id: string): Promise<Run> {
  return ((await api.call('GET', `${prefix}/dag-runs/gate/${id}`)).body as { dagRunDetails: Run }).dagRunDetails;
}

async function until(id: string, what: string, done: (run: Run) => boolean): Promise<Run> {
  let run: Run | undefined;
  await waitFor(
    `run ${id} ${what}`,
    async () => {
      run = await details(v1, '/api/v1', id);
      return done(run);
    },
    60_000,
    100,
  );
  return run as Run;
}

const review = (run: Run): Node | undefined => run.nodes.find((n) => n.step.name === 'review');
const waits = (run: Run): boolean => run.status === 7 && review(run)?.status === 7;

withApiStack('kd-approval', '/api/v1/openapi.json', async (stack) => {
  ({ ns, api: v1 } = stack);
  v2 = new ContractClient(stack.server.app);
  await v2.load();
  expect((await v1.call('POST', '/api/v1/dags', { name: 'gate', spec: GATE })).status).toBe(201);
});

describe('a step that waits for approval', () => {
  it('waits with no Pod, shows 7 on v1 and 1 on v2, refuses an answer without required inputs, goes on when approved', async () => {
    await v1.call('POST', '/api/v1/dags/gate/start', { dagRunId: 'a1' });
    const waiting = await until('a1', 'to wait', waits);
    expect(waiting.statusLabel).toBe('waiting');
    const onV2 = await details(v2, '/api/v2', 'a1');
    expect([onV2.status, onV2.statusLabel, review(onV2)?.status, review(onV2)?.statusLabel]).toEqual([
      1,
      'running',
      1,
      'running',
    ]);
    const pods = await core.listNamespacedPod({ namespace: ns });
    expect(pods.items.filter((p) => p.status?.phase === 'Running' || p.status?.phase === 'Pending')).toEqual([]);
    expect((await v1.call('POST', '/api/v1/dag-runs/gate/a1/steps/review/approve', { inputs: {} })).body).toMatchObject(
      { code: 'bad_request' },
    );
    expect((await v1.call('POST', '/api/v1/dag-runs/gate/a1/steps/build/approve', { inputs: {} })).status).toBe(400);
    const approved = await v1.call('POST', '/api/v1/dag-runs/gate/a1/steps/review/approve', {
      inputs: { TICKET: 'T-1' },
    });
    expect([approved.status, approved.body]).toMatchObject([200, { stepName: 'review' }]);
    const done = await until('a1', 'to end', (run) => run.finishedAt !== '');
    expect(done.statusLabel).toBe('succeeded');
    const log = (await v1.call('GET', '/api/v1/dag-runs/gate/a1/steps/ship/log')).body as { content: string };
    expect(log.content).toBe('shipping T-1');
  });

  it('answers start-sync as soon as the run waits for a person, as Dagu does', async () => {
    const sync = await v1.call('POST', '/api/v1/dags/gate/start-sync', { dagRunId: 's1', timeout: 60 });
    expect([sync.status, (sync.body as { dagRun: Run }).dagRun.status]).toEqual([200, 7]);
    expect((await v1.call('POST', '/api/v1/dag-runs/gate/s1/stop')).status).toBe(200);
    // A stop cancels the wait; the DAG runs one at a time, so the next test waits for this end.
    expect((await until('s1', 'to end', (run) => run.finishedAt !== '')).statusLabel).toBe('canceled');
  });

  it('ends the run rejected when a person rejects: 8 on v1, 2 on v2, the next step never runs', async () => {
    await v1.call('POST', '/api/v1/dags/gate/start', { dagRunId: 'r1' });
    await until('r1', 'to wait', waits);
    const rejected = await v1.call('POST', '/api/v1/dag-runs/gate/r1/steps/review/reject', { reason: 'not today' });
    expect(rejected.status).toBe(200);
    const done = await until('r1', 'to end', (run) => run.finishedAt !== '');
    expect([done.status, done.statusLabel, review(done)?.status]).toEqual([8, 'rejected', 8]);
    expect(done.nodes.find((n) => n.step.name === 'ship')?.status).not.toBe(4);
    const onV2 = await details(v2, '/api/v2', 'r1');
    expect([onV2.status, onV2.statusLabel, review(onV2)?.status]).toEqual([2, 'failed', 2]);
    // A step that no longer waits cannot be answered again.
    expect((await v1.call('POST', '/api/v1/dag-runs/gate/r1/steps/review/approve', { inputs: {} })).status).toBe(400);
  });

  it('runs the step again when pushed back, then goes on when approved', async () => {
    await v1.call('POST', '/api/v1/dags/gate/start', { dagRunId: 'p1' });
    await until('p1', 'to wait', waits);
    const pushed = await v1.call('POST', '/api/v1/dag-runs/gate/p1/steps/review/push-back', {
      inputs: { TICKET: 'T-2', NOTE: 'again' },
    });
    expect([pushed.status, pushed.body]).toMatchObject([200, { approvalIteration: 1 }]);
    // A push-back needs the required inputs too, as in Dagu. It is applied by the operator; until then an
    // approval is refused (an answer is pending).
    // The approval gives TICKET another value: ship, re-run by the push-back, reads the push-back's (Dagu's rule).
    await waitFor(
      'an approval of the step waiting again',
      async () =>
        (await v1.call('POST', '/api/v1/dag-runs/gate/p1/steps/review/approve', { inputs: { TICKET: 'T-3' } }))
          .status === 200,
      60_000,
      200,
    );
    const done = await until('p1', 'to end', (run) => run.finishedAt !== '');
    expect([done.statusLabel, review(done)?.approvalInputs]).toEqual(['succeeded', { ticket: 'T-3' }]);
    const log = (await v1.call('GET', '/api/v1/dag-runs/gate/p1/steps/ship/log')).body as { content: string };
    expect(log.content).toBe('shipping T-2');
  });
});

/**
 * Dagu 2.x's notifications of an approval wait on the local control plane, the real operator
 * running the steps: the wait handler (`handler_on.wait`) runs once each time the run starts
 * waiting, with DAG_WAITING_STEPS, again after a push-back, and its failure does not fail the
 * run; the wait mail (`mail_on.wait`, `wait_mail`) reaches the loopback SMTP server once per wait
 * and is recorded when the run has ended; an operator started again during a wait neither runs
 * the handler again (read from the node agents' ledgers) nor mails again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../apiserver/server.ts';
import { startSmtpServer, type SmtpTestServer } from '../servers/smtp.ts';
import { ContractClient, startApi } from './api-support.ts';
import { dagRunResourceName, stepPodName } from '../../core/resources/names.ts';
import { ledgerOf, runsOf, startOperator, type RunningOperator } from './operator-support.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';

const { core } = clients();
let ns: string;
let operator: RunningOperator;
let server: Server;
let smtp: SmtpTestServer;
let v1: ContractClient;

interface Node {
  step: { name: string };
  status: number;
  statusLabel: string;
}
interface Run {
  status: number;
  statusLabel: string;
  finishedAt: string;
  nodes: Node[];
  onWait?: Node;
}

const gate = (port: number, handler: string): string => `smtp: {host: 127.0.0.1, port: "${String(port)}"}
mail_on: {wait: true}
wait_mail: {from: kubedag@example.com, to: [lead@example.com], prefix: "[approval]"}
handler_on:
  wait:
    run: ${handler}
steps:
  - id: build
    run: echo built
  - id: review
    depends: [build]
    run: echo "ready for review"
    approval: {prompt: Ship this build?}
  - id: ship
    depends: [review]
    run: echo shipping
`;

async function details(dag: string, id: string): Promise<Run> {
  return ((await v1.call('GET', `/api/v1/dag-runs/${dag}/${id}`)).body as { dagRunDetails: Run }).dagRunDetails;
}

async function until(dag: string, id: string, what: string, done: (run: Run) => boolean): Promise<Run> {
  let run: Run | undefined;
  await waitFor(
    `run ${id} ${what}`,
    async () => {
      run = await details(dag, id);
      return done(run);
    },
    90_000,
    200,
  );
  return run as Run;
}

/** The run's status as the operator wrote it: its waits and the wait handler's record. */
async function statusOf(dag: string) {
  const [run] = await runsOf(ns, dag);
  return run?.status ?? {};
}

const handlerLog = async (dag: string, id: string): Promise<string> =>
  ((await v1.call('GET', `/api/v1/dag-runs/${dag}/${id}/steps/onWait/log`)).body as { content: string }).content;
const waitMails = (dag: string) => smtp.deliveries.filter((d) => d.mail.subject === `[approval] ${dag} (waiting)`);

beforeAll(async () => {
  smtp = await startSmtpServer({});
  ns = await createNamespace(core, 'kd-approval-wait');
  operator = await startOperator(ns);
  server = await startApi(ns, operator.url);
  v1 = new ContractClient(server.app);
  await v1.load('/api/v1/openapi.json');
}, 600_000);

afterAll(async () => {
  await server.close();
  await operator.stop();
  await smtp.close();
  await deleteNamespace(core, ns);
});

describe('the notifications of a run that waits for approval', () => {
  it('runs the wait handler once per wait with DAG_WAITING_STEPS, again after a push-back, and mails each wait once', async () => {
    const spec = gate(smtp.port, 'echo "waiting on $DAG_WAITING_STEPS"');
    expect((await v1.call('POST', '/api/v1/dags', { name: 'waitgate', spec })).status).toBe(201);
    await v1.call('POST', '/api/v1/dags/waitgate/start', { dagRunId: 'w1' });
    const first = await until(
      'waitgate',
      'w1',
      'to wait, its wait handler done',
      (r) => r.status === 7 && r.onWait?.status === 4,
    );
    expect(first.statusLabel).toBe('waiting');
    expect(await handlerLog('waitgate', 'w1')).toBe('waiting on review');
    expect((await statusOf('waitgate')).waits).toBe(1);
    await waitFor('the first wait mail', () => Promise.resolve(waitMails('waitgate').length === 1), 60_000, 200);
    expect(waitMails('waitgate')[0]?.rcptTo).toEqual(['lead@example.com']);
    expect(waitMails('waitgate')[0]?.mailFrom).toBe('kubedag@example.com');
    expect(waitMails('waitgate')[0]?.mail.html).toContain('review');

    const pushed = await v1.call('POST', '/api/v1/dag-runs/waitgate/w1/steps/review/push-back', { inputs: {} });
    expect(pushed.status).toBe(200);
    await waitFor(
      'the second wait, its handler done',
      async () => {
        const status = await statusOf('waitgate');
        return status.waits === 2 && status.status === 7 && status.onWait?.status === 4;
      },
      90_000,
      200,
    );
    expect((await statusOf('waitgate')).onWait?.attempt).toBe(2);
    expect(await handlerLog('waitgate', 'w1')).toBe('waiting on review');
    await waitFor('the second wait mail', () => Promise.resolve(waitMails('waitgate').length === 2), 60_000, 200);

    await waitFor(
      'an approval of the step waiting again',
      async () =>
        (await v1.call('POST', '/api/v1/dag-runs/waitgate/w1/steps/review/approve', { inputs: {} })).status === 200,
      60_000,
      200,
    );
    expect((await until('waitgate', 'w1', 'to end', (r) => r.finishedAt !== '')).statusLabel).toBe('succeeded');
    await waitFor(
      'both wait mails recorded',
      async () => ((await statusOf('waitgate')).notifications ?? []).length === 2,
      60_000,
      200,
    );
    const status = await statusOf('waitgate');
    expect(status.notifications?.map((n) => [n.key, n.state])).toEqual([
      ['wait:1', 'sent'],
      ['wait:2', 'sent'],
    ]);
    expect(status.waits).toBe(2);
    // Each wait mailed once: nothing more came while the run ran on and ended.
    expect(waitMails('waitgate')).toHaveLength(2);
  });

  it('is not run again nor mailed again by an operator started again during the wait', async () => {
    const spec = gate(smtp.port, 'echo "waiting on ${DAG_WAITING_STEPS}"');
    expect((await v1.call('POST', '/api/v1/dags', { name: 'restartgate', spec })).status).toBe(201);
    await v1.call('POST', '/api/v1/dags/restartgate/start', { dagRunId: 'r1' });
    await until('restartgate', 'r1', 'to wait, its wait handler done', (r) => r.status === 7 && r.onWait?.status === 4);
    expect(await handlerLog('restartgate', 'r1')).toBe('waiting on review');
    await waitFor('the wait mail', () => Promise.resolve(waitMails('restartgate').length === 1), 60_000, 200);
    await operator.stop();
    operator = await startOperator(ns, operator.logDir);
    // The new operator decides the waiting run at start; give it a few rounds to do something wrong.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const pod = (attempt: number) => stepPodName(dagRunResourceName('restartgate', 'r1'), 'onWait', attempt);
    const starts = (attempt: number) => ledgerOf(ns, pod(attempt)).filter((e) => e.event === 'start').length;
    expect([starts(1), starts(2)]).toEqual([1, 0]);
    expect((await statusOf('restartgate')).waits).toBe(1);
    expect(waitMails('restartgate')).toHaveLength(1);
    const approved = await v1.call('POST', '/api/v1/dag-runs/restartgate/r1/steps/review/approve', { inputs: {} });
    expect(approved.status).toBe(200);
    expect((await until('restartgate', 'r1', 'to end', (r) => r.finishedAt !== '')).statusLabel).toBe('succeeded');
  });

  it('keeps the run waiting when the wait handler fails, and lets it succeed once approved', async () => {
    const spec = gate(smtp.port, 'exit 3');
    expect((await v1.call('POST', '/api/v1/dags', { name: 'failgate', spec })).status).toBe(201);
    await v1.call('POST', '/api/v1/dags/failgate/start', { dagRunId: 'f1' });
    const waiting = await until('failgate', 'f1', 'to wait, its wait handler failed', (r) => r.onWait?.status === 2);
    expect([waiting.status, waiting.statusLabel]).toEqual([7, 'waiting']);
    const approved = await v1.call('POST', '/api/v1/dag-runs/failgate/f1/steps/review/approve', { inputs: {} });
    expect(approved.status).toBe(200);
    const done = await until('failgate', 'f1', 'to end', (r) => r.finishedAt !== '');
    expect([done.statusLabel, done.onWait?.statusLabel]).toEqual(['succeeded', 'failed']);
  });
});

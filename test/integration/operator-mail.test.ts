/**
 * Mail notifications of runs (issue 13) end to end, against a real SMTP server in the test
 * process on loopback (smtp-server, parsed with mailparser): mailOn.success and mailOn.failure
 * with their prefix, subject, recipients and attached step logs, a step's mailOnError, no mail
 * when none is asked for, nothing sent twice by a restarted operator, and a mail whose step log
 * was never archived (its Pod deleted while running) sent once its wait is over, naming the
 * missing log. The mail Pods run
 * `kubedag-step notify`, which the local cluster puts on the node agents' PATH.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DagRunResource } from '../../core/resources/types.ts';
import { startSmtpServer, type Delivery, type SmtpTestServer } from '../servers/smtp.ts';
import {
  finishedRun,
  givenDag,
  runningStep,
  runsOf,
  startOperator,
  whenRun,
  type RunningOperator,
} from './operator-support.ts';
import { clients, createNamespace, deleteNamespace, running, waitFor, waitForPod } from './support.ts';

const { core } = clients();

let ns = '';
let operator: RunningOperator;
let smtp: SmtpTestServer;

beforeAll(async () => {
  smtp = await startSmtpServer({});
  ns = await createNamespace(core, 'mail');
  operator = await startOperator(ns);
}, 600_000);

afterAll(async () => {
  await operator.stop();
  await smtp.close();
  await deleteNamespace(core, ns);
});

const mailing = (port: number): string => `
smtp: {host: 127.0.0.1, port: "${String(port)}"}
mailOn: {success: true, failure: true}
errorMail: {from: kubedag@example.com, to: [oncall@example.com, lead@example.com], prefix: "[FAIL]", attachLogs: true}
infoMail: {from: kubedag@example.com, to: team@example.com, prefix: "[OK]"}
`;

const subjects = (): string[] => smtp.deliveries.map((d) => d.mail.subject ?? '').sort();
const bySubject = (subject: string): Delivery[] => smtp.deliveries.filter((d) => d.mail.subject === subject);
const mailPods = async (): Promise<string[]> =>
  (await core.listNamespacedPod({ namespace: ns, labelSelector: 'kubedag.io/notify' })).items.map(
    (p) => p.metadata?.name ?? '',
  );

async function allRecorded(dag: string, count: number): Promise<void> {
  await waitFor(
    `${dag} to record ${String(count)} mails`,
    async () => (await runsOf(ns, dag)).some((r) => (r.status?.notifications ?? []).length === count),
    60_000,
    200,
  );
}

describe('mail about runs', () => {
  it('sends the success mail to infoMail when mailOn.success, its settings expanded from the DAG env and params', async () => {
    // The SMTP port from the DAG env, the recipient from a param: as the run's steps see them.
    const settings = mailing(smtp.port)
      .replace(`port: "${String(smtp.port)}"`, 'port: "${SMTP_PORT}"')
      .replace('to: team@example.com', 'to: "${TEAM}"');
    await givenDag(
      ns,
      'fine',
      `env:\n  - SMTP_PORT: "${String(smtp.port)}"\nparams: TEAM=team@example.com\n${settings}steps:\n  - {name: greet, command: echo hello}\n`,
    );
    await whenRun(ns, 'fine-1', 'fine');
    expect((await finishedRun(ns, 'fine-1', 90_000)).status?.statusLabel).toBe('succeeded');
    await allRecorded('fine', 1);
    const [mail] = bySubject('[OK] fine (succeeded)');
    expect(mail?.rcptTo).toEqual(['team@example.com']);
    expect(mail?.mailFrom).toBe('kubedag@example.com');
    expect(mail?.mail.html).toContain('greet');
    expect(mail?.mail.attachments).toEqual([]);
  });

  it('sends the failure mail with its prefix and the step logs, and the failed step its own mail', async () => {
    const steps =
      'type: graph\nsteps:\n  - {name: extract, command: echo extracted rows}\n  - {name: load, depends: extract, command: "sh -c \'echo loading; exit 3\'", mailOnError: true, retryPolicy: {limit: 1, intervalSec: 1}}\n';
    await givenDag(ns, 'broken', `${mailing(smtp.port)}${steps}`);
    await whenRun(ns, 'broken-1', 'broken');
    expect((await finishedRun(ns, 'broken-1', 90_000)).status?.statusLabel).toBe('failed');
    await allRecorded('broken', 2);
    const [run] = await runsOf(ns, 'broken');
    expect(run?.status?.notifications?.map((n) => [n.key, n.state]).sort()).toEqual([
      ['run', 'sent'],
      ['step:load', 'sent'],
    ]);
    // load is the last step: the run has failed by the time its step mail is composed, so both
    // mails say `failed` (a step failing while others run says `running`).
    const failure = bySubject('[FAIL] broken (failed)');
    expect(failure).toHaveLength(2);
    for (const mail of failure) {
      expect(mail.rcptTo).toEqual(['oncall@example.com', 'lead@example.com']);
      expect(mail.mail.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([
        ['extract.out', 'extracted rows\n'],
        ['load.out', 'loading\n'],
      ]);
    }
  });

  it('sends nothing when the DAG asks for no mail', async () => {
    const before = smtp.deliveries.length;
    await givenDag(
      ns,
      'silent',
      `smtp: {host: 127.0.0.1, port: "${String(smtp.port)}"}\nerrorMail: {to: oncall@example.com}\nsteps:\n  - {name: fail, command: exit 1}\n`,
    );
    await whenRun(ns, 'silent-1', 'silent');
    expect((await finishedRun(ns, 'silent-1', 90_000)).status?.statusLabel).toBe('failed');
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(smtp.deliveries.length).toBe(before);
    expect((await runsOf(ns, 'silent'))[0]?.status?.notifications).toBeUndefined();
  });

  it('is not sent again by a restarted operator, and the mail Pods are gone', async () => {
    await waitFor('the mail Pods to be removed', async () => (await mailPods()).length === 0, 30_000, 200);
    const sent = subjects();
    await operator.stop();
    operator = await startOperator(ns);
    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect(await mailPods()).toEqual([]);
    expect(subjects()).toEqual(sent);
    expect(sent).toHaveLength(3);
  });

  it('sends the failure mail without a log that was never archived once the wait for it is over, naming the missing log', async () => {
    await operator.stop();
    operator = await startOperator(ns, undefined, ['--mail-log-wait-seconds=3']);
    await givenDag(ns, 'lost', `${mailing(smtp.port)}steps:\n  - {name: hang, command: sleep 60}\n`);
    await whenRun(ns, 'lost-1', 'lost');
    await loseStepPod('lost-1', 'hang');
    const ended = await finishedRun(ns, 'lost-1', 90_000);
    expect([ended.status?.statusLabel, ended.status?.nodes?.[0]?.error]).toEqual([
      'failed',
      'the Pod of attempt 0 disappeared',
    ]);
    await allRecorded('lost', 1);
    const [run] = await runsOf(ns, 'lost');
    expect(run?.status?.notifications?.map((n) => [n.key, n.state])).toEqual([['run', 'sent']]);
    expect(waited(run)).toBeGreaterThanOrEqual(3000);
    const [mail] = bySubject('[FAIL] lost (failed)');
    expect(mail?.mail.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([
      [
        'hang.out',
        '[kubedag: the log of step hang (attempt 0) was not in the log store when this mail was sent; its Pod may have ended before its log was archived]\n',
      ],
    ]);
    expect(mail?.mail.html).toContain('The logs of these steps were not available when this mail was sent: hang.');
  });
});

/** Deletes a step's Pod at once while it runs: the archiver reads only Pods that ended, so its log never comes. */
async function loseStepPod(name: string, step: string): Promise<void> {
  const pod = (await runningStep(ns, name, step)).status?.nodes?.find((n) => n.name === step)?.pod ?? '';
  await waitForPod(core, { namespace: ns, name: pod }, 'to run', running);
  await core.deleteNamespacedPod({ namespace: ns, name: pod, gracePeriodSeconds: 0 });
}

/** How long after the run finished its first mail was recorded as sent. */
function waited(run: DagRunResource | undefined): number {
  const sent = run?.status?.notifications?.[0]?.finishedAt ?? '';
  return Date.parse(sent) - Date.parse(run?.status?.finishedAt ?? '');
}

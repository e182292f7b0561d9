import { describe, expect, it } from 'vitest';
import { loadDag } from '../../core/dag/index.ts';
import type { DagRunStatus } from '../../core/resources/schemas.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { dagRun } from '../../test/builders/dag-run.ts';
import { owedMails } from './mails.ts';
import { notifyPodName } from './pod.ts';

const WAITING = `
mail_on: {wait: true}
wait_mail: {from: ops@x, to: [lead@x], prefix: "[WAIT]", attach_logs: false}
steps:
  - name: review
    run: echo review
    approval: {prompt: ship it?}
`;

const run = (status: DagRunStatus): DagRunResource =>
  dagRun('etl-1').namespace('ns').spec({ dagName: 'etl', dagRunId: '1' }).status(status).build();

const waiting = (waits: number): DagRunStatus => ({
  status: 7,
  statusLabel: 'waiting',
  waits,
  nodes: [{ name: 'review', status: 7, statusLabel: 'waiting' }],
});

describe('the wait mail (Dagu 2.x mail_on.wait and wait_mail)', () => {
  const dag = loadDag(WAITING, { fileName: 'etl' }).dag;

  it('reads wait_mail with its fields and mail_on.wait', () => {
    expect(dag.mailOn).toEqual({ success: false, failure: false, wait: true });
    expect(dag.waitMail).toEqual({ from: 'ops@x', to: ['lead@x'], prefix: '[WAIT]', attachLogs: false });
  });

  it('is owed once per wait the run has begun, with the subject "<prefix> <dag> (waiting)"', () => {
    expect(owedMails(dag, run(waiting(1))).map((m) => [m.key, m.subject, m.config.to])).toEqual([
      ['wait:1', '[WAIT] etl (waiting)', ['lead@x']],
    ]);
    expect(owedMails(dag, run(waiting(2))).map((m) => m.key)).toEqual(['wait:1', 'wait:2']);
  });

  it('keeps saying "waiting" in its subject once the run has moved on, and each wait has its own Pod', () => {
    const moved: DagRunStatus = { ...waiting(2), status: 1, statusLabel: 'running' };
    const mails = owedMails(dag, run(moved));
    expect(mails.map((m) => m.subject)).toEqual(['[WAIT] etl (waiting)', '[WAIT] etl (waiting)']);
    expect(new Set(mails.map((m) => notifyPodName(run(moved), m.key))).size).toBe(2);
  });

  it('is not owed before any wait, without mail_on.wait, or without wait_mail', () => {
    expect(owedMails(dag, run({ status: 1, statusLabel: 'running' }))).toEqual([]);
    const unset = loadDag(WAITING.replace('mail_on: {wait: true}', 'mail_on: {wait: false}'), { fileName: 'etl' }).dag;
    expect(owedMails(unset, run(waiting(1)))).toEqual([]);
    const noMail = loadDag(WAITING.replace(/wait_mail: .*\n/, ''), { fileName: 'etl' }).dag;
    expect(owedMails(noMail, run(waiting(1)))).toEqual([]);
  });
});

import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { loadDag } from '../../core/dag/index.ts';
import type { DagRunStatus } from '../../core/resources/schemas.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { dagRun } from '../../test/builders/dag-run.ts';
import { owedMails } from './mails.ts';
import { boundedRows, mailBody, ROWS_BYTES } from './body.ts';
import { attachedLogs, boundedLogs, LOG_LIMIT, missingLogNote, NOTIFY_COMMAND, notifyPodName } from './pod.ts';
import { decideNotify, DEFAULT_LOG_WAIT_MS, type NotifyAction } from './reconciler.ts';

const yaml = `
mailOn: {success: true, failure: true}
errorMail: {from: ops@x, to: [a@x, b@x], prefix: "[ERR]", attachLogs: true}
infoMail: {from: ops@x, to: c@x, prefix: "[OK]"}
steps:
  - {name: extract, command: make, mailOnError: true}
  - {name: load, command: make}
`;
const dag = loadDag(yaml, { fileName: 'etl' }).dag;
const quiet = loadDag('errorMail: {to: a@x}\ninfoMail: {to: a@x}\nsteps:\n  - {name: extract, command: make}\n', {
  fileName: 'etl',
}).dag;
const node = (name: string, status: number, statusLabel: string): NonNullable<DagRunStatus['nodes']>[number] => ({
  name,
  status,
  statusLabel,
  pod: `etl-1-${name}`,
  attempt: 0,
});
const running: DagRunStatus = {
  status: 1,
  statusLabel: 'running',
  nodes: [{ ...node('extract', 2, 'failed'), finishedAt: '2026-11-24T10:00:02Z' }, node('load', 1, 'running')],
};
const failed: DagRunStatus = { ...running, status: 2, statusLabel: 'failed', finishedAt: '2026-11-24T10:00:05Z' };
const succeeded: DagRunStatus = {
  status: 4,
  statusLabel: 'succeeded',
  finishedAt: '2026-11-24T10:00:05Z',
  nodes: [node('extract', 4, 'succeeded')],
};
const canceled: DagRunStatus = {
  status: 3,
  statusLabel: 'canceled',
  finishedAt: '2026-11-24T10:00:05Z',
  nodes: [node('extract', 3, 'canceled')],
};

const run = (status: DagRunStatus): DagRunResource =>
  dagRun('etl-1').namespace('default').uid('u1').spec({ dagName: 'etl', dagRunId: 'r1' }).status(status).build();

describe('owedMails decides which mails a run owes, as Dagu does', () => {
  const cases: { name: string; status: DagRunStatus; dag?: typeof dag; want: [string, string, readonly string[]][] }[] =
    [
      {
        name: 'a running run with a failed mailOnError step owes that step a mail saying running',
        status: running,
        want: [['step:extract', '[ERR] etl (running)', ['a@x', 'b@x']]],
      },
      {
        name: 'a failed run owes the step mail and the failure mail',
        status: failed,
        want: [
          ['step:extract', '[ERR] etl (failed)', ['a@x', 'b@x']],
          ['run', '[ERR] etl (failed)', ['a@x', 'b@x']],
        ],
      },
      {
        name: 'a succeeded run owes the success mail to infoMail',
        status: succeeded,
        want: [['run', '[OK] etl (succeeded)', ['c@x']]],
      },
      { name: 'a canceled run owes nothing', status: canceled, want: [] },
      { name: 'without mailOn and mailOnError nothing is owed', status: failed, dag: quiet, want: [] },
    ];
  it.each(cases)('$name', ({ status, dag: given, want }) => {
    expect(owedMails(given ?? dag, run(status)).map((m) => [m.key, m.subject, m.config.to])).toEqual(want);
  });
});

const runner = { image: 'kubedag:test', command: NOTIFY_COMMAND };
const steps = { security: 'restricted', user: 1000 } as const;
function pod(name: string, phase: string, extra: Partial<NonNullable<V1Pod['metadata']>> = {}): V1Pod {
  return {
    metadata: { name, ...extra },
    status: {
      phase,
      containerStatuses: [
        {
          name: 'notify',
          image: '',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { terminated: { exitCode: 1, message: 'mail not sent' } },
        },
      ],
    },
  };
}
const show = (action: NotifyAction): unknown =>
  action.kind === 'create'
    ? {
        kind: 'create',
        name: action.pod.metadata?.name,
        logs: action.logs.map((l) => l.file),
        ...(action.missing.length === 0 ? {} : { missing: action.missing.map((l) => l.step) }),
      }
    : action;
/** Seconds after the run fixture finished (10:00:05). */
const after = (seconds: number): Date => new Date(Date.parse('2026-11-24T10:00:05Z') + seconds * 1000);

describe('decideNotify sends each mail once per execution', () => {
  const stepMail = owedMails(dag, run(running))[0];
  const runMail = owedMails(dag, run(failed))[1];
  if (stepMail === undefined || runMail === undefined) throw new Error('fixture owes no mail');
  const STEP = notifyPodName(run(running), 'step:extract');
  const RUN = notifyPodName(run(failed), 'run');
  const cases: {
    name: string;
    status: DagRunStatus;
    mail: typeof stepMail;
    pod?: V1Pod;
    missing?: string[];
    now?: Date;
    want: unknown;
  }[] = [
    {
      name: 'a mail with its logs archived gets its Pod, attaching every step that ran',
      status: running,
      mail: stepMail,
      want: { kind: 'create', name: STEP, logs: ['extract.out', 'load.out'] },
    },
    {
      name: 'a run mail waits for a log not archived yet until two minutes after the run finished',
      status: failed,
      mail: runMail,
      missing: ['load'],
      now: after(30),
      want: { kind: 'wait', requeueAfterMs: DEFAULT_LOG_WAIT_MS - 30_000 },
    },
    {
      name: 'a run mail whose log is still missing two minutes after the run finished goes without it, naming it',
      status: failed,
      mail: runMail,
      missing: ['load'],
      now: after(120),
      want: { kind: 'create', name: RUN, logs: ['extract.out', 'load.out'], missing: ['load'] },
    },
    {
      name: "a step mail's wait counts from the step's end, not the run's",
      status: running,
      mail: stepMail,
      missing: ['load'],
      now: new Date('2026-11-24T10:02:02Z'),
      want: { kind: 'create', name: STEP, logs: ['extract.out', 'load.out'], missing: ['load'] },
    },
    {
      name: 'a mail whose Pod exists does not look at logs again',
      status: failed,
      mail: runMail,
      pod: pod(RUN, 'Running'),
      missing: ['load'],
      now: after(0),
      want: { kind: 'none' },
    },
    {
      name: 'a sent step mail is not recorded while the run runs',
      status: running,
      mail: stepMail,
      pod: pod(STEP, 'Succeeded'),
      want: { kind: 'none' },
    },
    {
      name: 'a sent step mail is recorded once the run finished',
      status: failed,
      mail: stepMail,
      pod: pod(STEP, 'Succeeded'),
      want: { kind: 'record', notification: { key: 'step:extract', token: '', state: 'sent' } },
    },
    {
      name: 'a Pod that failed is recorded with why',
      status: failed,
      mail: runMail,
      pod: pod(RUN, 'Failed'),
      want: {
        kind: 'record',
        notification: {
          key: 'run',
          token: '',
          state: 'failed',
          message: `the mail Pod ${RUN} failed (exit code 1): mail not sent`,
        },
      },
    },
    {
      name: 'a running mail Pod is waited for',
      status: failed,
      mail: runMail,
      pod: pod(RUN, 'Running'),
      want: { kind: 'none' },
    },
    {
      name: 'once recorded, the Pod is removed',
      status: { ...failed, notifications: [{ key: 'run', token: '', state: 'sent' }] },
      mail: runMail,
      pod: pod(RUN, 'Succeeded'),
      want: { kind: 'delete', pod: RUN },
    },
    {
      name: 'once recorded and the Pod gone, nothing is sent again',
      status: { ...failed, notifications: [{ key: 'run', token: '', state: 'sent' }] },
      mail: runMail,
      want: { kind: 'none' },
    },
    {
      name: 'a Pod already being deleted is left to go',
      status: { ...failed, notifications: [{ key: 'run', token: '', state: 'failed' }] },
      mail: runMail,
      pod: pod(RUN, 'Failed', { deletionTimestamp: new Date() }),
      want: { kind: 'none' },
    },
    {
      name: 'a retry in place that finished sends its own mail',
      status: { ...failed, retryToken: 't2', notifications: [{ key: 'run', token: '', state: 'sent' }] },
      mail: runMail,
      want: {
        kind: 'create',
        name: notifyPodName(run({ ...failed, retryToken: 't2' }), 'run'),
        logs: ['extract.out', 'load.out'],
      },
    },
  ];
  it.each(cases)('$name', ({ status, mail, pod: found, missing = [], now = after(1), want }) => {
    const missingLogs = attachedLogs(run(status)).filter((l) => missing.includes(l.step));
    expect(
      show(
        decideNotify({
          run: run(status),
          dag,
          mail,
          pod: found,
          missingLogs,
          now,
          logWaitMs: DEFAULT_LOG_WAIT_MS,
          runner,
          steps,
        }),
      ),
    ).toEqual(want);
  });
});

describe('a mail sent without a log says so', () => {
  it('attaches a note naming the step in place of the log', () => {
    expect(missingLogNote({ step: 'load', attempt: 1, file: 'load.out' })).toBe(
      '[kubedag: the log of step load (attempt 1) was not in the log store when this mail was sent; its Pod may have ended before its log was archived]\n',
    );
  });

  it('names the steps in the body, and says nothing when every log was there', () => {
    expect(mailBody(dag, run(failed), ['load', 'x<y'])).toContain(
      '<p>The logs of these steps were not available when this mail was sent: load, x&lt;y.</p>',
    );
    expect(mailBody(dag, run(failed))).not.toContain('not available');
  });
});

describe('boundedLogs keeps what it attaches within a Secret', () => {
  it('keeps a short log whole and the end of a long one, saying how much was left out', () => {
    const long = `${'a'.repeat(10)}${'b'.repeat(LOG_LIMIT)}`;
    const out = boundedLogs([
      { file: 'short.out', text: 'hi\n' },
      { file: 'long.out', text: long },
    ]);
    expect(out['short.out']).toBe('hi\n');
    expect(out['long.out']).toBe(`[kubedag: the first 10 bytes are left out]\n${'b'.repeat(LOG_LIMIT)}`);
  });
});

describe('a mail about a run of thousands of steps', () => {
  it('lists its steps in the DAG order within the size limit, and says how many more there are', () => {
    const names = Array.from({ length: 2000 }, (_, i) => `s${String(i).padStart(4, '0')}`);
    const big = loadDag(`type: graph\nsteps:\n${names.map((n) => `  - {name: ${n}, command: "true"}`).join('\n')}`, {
      fileName: 'big',
    }).dag;
    // Sealed records come back in the order they were sealed, not the DAG's.
    const nodes = [...names].reverse().map((n) => node(n, 4, 'succeeded'));
    const body = mailBody(big, run({ status: 4, statusLabel: 'succeeded', nodes }));
    expect(body.length).toBeLessThan(ROWS_BYTES + 4096);
    expect(body).toMatch(/\.\.\. and \d+ more steps: see the run in Kubedag/);
    expect(body.indexOf('s0000')).toBeLessThan(body.indexOf('s0001'));
    expect(boundedRows(['a', 'b'])).toEqual(['a', 'b']);
  });
});

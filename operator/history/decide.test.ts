import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { dagRun, type DagRunBuilder } from '../../test/builders/dag-run.ts';
import { runDefinition } from '../run/decide/run-definition.ts';
import { RETRY_ANNOTATION } from '../run/decide/retry-status.ts';
import {
  ARCHIVE_RECHECK_MAX_MS,
  archiveReadiness,
  owedAfterEnd,
  OWED_RECHECK_MS,
  type CachedRunFacts,
} from './decide.ts';
import { retentionPlan } from './retention.ts';

const ENDED = '2026-11-28T10:00:00Z';
const HOUR = 3_600_000;
const at = (iso: string): number => Date.parse(iso);

const finished = (name: string, fields: Partial<NonNullable<DagRunResource['status']>> = {}): DagRunBuilder =>
  dagRun(name)
    .of('etl', name)
    .status({ status: 4, statusLabel: 'succeeded', finishedAt: ENDED, ...fields });
const finishedRun = (name: string, fields: Partial<NonNullable<DagRunResource['status']>> = {}): DagRunResource =>
  finished(name, fields).build();
const running = (name: string): DagRunBuilder =>
  dagRun(name).of('etl', name).status({ status: 1, statusLabel: 'running' });
/** A sub run of the run `root` of etl. */
const sub = (run: DagRunBuilder): DagRunResource => run.child(['etl', 'root']).build();
const facts = (run: DagRunResource, more: Partial<CachedRunFacts> = {}): CachedRunFacts => ({
  run,
  attemptPods: [],
  copiedByRetry: false,
  ...more,
});
const pod = (name: string): V1Pod => ({ metadata: { name } });

describe('archiveReadiness', () => {
  const root = finishedRun('root');

  it('is due once the root and its sub runs ended, nothing is owed and the window has passed', () => {
    expect(archiveReadiness(facts(root), [facts(sub(finished('child')))], at(ENDED) + HOUR, HOUR)).toEqual({
      kind: 'due',
    });
  });

  it('waits until the window has passed, looking again when it will have', () => {
    expect(archiveReadiness(facts(root), [], at(ENDED) + HOUR - 5_000, HOUR)).toEqual({
      kind: 'wait',
      reason: 'the archive window has not passed',
      requeueAfterMs: 5_000,
    });
  });

  it('looks again within an hour however long the window', () => {
    expect(archiveReadiness(facts(root), [], at(ENDED), 30 * 24 * HOUR)).toMatchObject({
      kind: 'wait',
      requeueAfterMs: ARCHIVE_RECHECK_MAX_MS,
    });
  });

  it('counts the window from when the DAGRun was made when that is later: a run put back from the store stays its window', () => {
    const putBack = finished('root').created('2026-11-28T20:00:00Z').build();
    expect(archiveReadiness(facts(putBack), [], at('2026-11-28T20:30:00Z'), HOUR)).toMatchObject({
      kind: 'wait',
      requeueAfterMs: HOUR / 2,
    });
    expect(archiveReadiness(facts(putBack), [], at('2026-11-28T21:00:00Z'), HOUR)).toEqual({ kind: 'due' });
  });

  it('is due at once with a window of zero', () => {
    expect(archiveReadiness(facts(root), [], at(ENDED), 0)).toEqual({ kind: 'due' });
  });

  it('leaves a run that has not finished, and a sub run, which goes with its root', () => {
    expect(archiveReadiness(facts(running('root').build()), [], at(ENDED) + HOUR, 0)).toMatchObject({
      kind: 'not-finished',
    });
    expect(archiveReadiness(facts(sub(finished('child'))), [], at(ENDED) + HOUR, 0)).toEqual({
      kind: 'not-finished',
      reason: 'a sub run is archived with its root',
    });
  });

  it('leaves a finished root while one of its sub runs still runs', () => {
    expect(
      archiveReadiness(facts(root), [facts(sub(finished('done'))), facts(sub(running('busy')))], at(ENDED) + HOUR, 0),
    ).toEqual({ kind: 'not-finished', reason: 'sub run busy has not finished' });
  });

  it.each([
    {
      name: 'a retry asked for and not started',
      owing: facts(finishedRun('root', { retryToken: 'a' }), {
        run: finished('root')
          .annotate({ [RETRY_ANNOTATION]: 'b' })
          .build(),
      }),
      reason: 'root: a retry was asked for',
    },
    {
      name: "a restart tick's promised run",
      owing: facts(
        finished('root')
          .annotate({ [ANNOTATIONS.restartRunId]: 'restart-1' })
          .build(),
      ),
      reason: "root: a restart tick's new run is still to come",
    },
    {
      name: 'a retry under a new id that has not copied it',
      owing: facts(root, { copiedByRetry: true }),
      reason: 'root: a retry under a new id has yet to copy its steps',
    },
    {
      name: 'step Pods whose logs are not archived',
      owing: facts(root, { attemptPods: [pod('a'), pod('b')] }),
      reason: 'root: 2 step Pod(s) whose logs are not archived yet',
    },
  ])('waits while $name', ({ owing, reason }) => {
    expect(archiveReadiness(owing, [], at(ENDED) + HOUR, 0)).toEqual({
      kind: 'wait',
      reason,
      requeueAfterMs: OWED_RECHECK_MS,
    });
  });

  it('does not count a retry already answered', () => {
    const answered = finished('root', { retryToken: 'b' })
      .annotate({ [RETRY_ANNOTATION]: 'b' })
      .build();
    expect(archiveReadiness(facts(answered), [], at(ENDED), 0)).toEqual({ kind: 'due' });
  });

  it('waits for what a sub run owes as for the root', () => {
    expect(
      archiveReadiness(facts(root), [facts(sub(finished('child')), { attemptPods: [pod('x')] })], at(ENDED), 0),
    ).toMatchObject({ kind: 'wait', reason: 'child: 1 step Pod(s) whose logs are not archived yet' });
  });
});

describe('owedAfterEnd', () => {
  const definition = (spec: Record<string, unknown>): ReturnType<typeof runDefinition> =>
    runDefinition(spec, 'etl', undefined);
  const mailing = {
    mailOn: { success: true },
    infoMail: { from: 'a@example.com', to: 'b@example.com' },
    smtp: { host: 'smtp', port: '25' },
    steps: ['echo hi'],
  };

  it('owes nothing for a run whose definition asks for nothing after its end, or that never had one', () => {
    expect(
      owedAfterEnd({ run: finishedRun('r'), definition: definition({ steps: ['echo hi'] }), containerPod: undefined }),
    ).toEqual([]);
    expect(owedAfterEnd({ run: finishedRun('r'), definition: undefined, containerPod: undefined })).toEqual([]);
  });

  it('owes a mail until its result is recorded', () => {
    expect(owedAfterEnd({ run: finishedRun('r'), definition: definition(mailing), containerPod: undefined })).toEqual([
      'r: 1 mail(s) not sent yet',
    ]);
    const sent = finishedRun('r', { notifications: [{ key: 'run', token: '', state: 'sent', finishedAt: ENDED }] });
    expect(owedAfterEnd({ run: sent, definition: definition(mailing), containerPod: undefined })).toEqual([]);
  });

  it('owes a trace export until it is recorded', () => {
    const traced = definition({ otel: { enabled: true, endpoint: 'collector:4317' }, steps: ['echo hi'] });
    expect(owedAfterEnd({ run: finishedRun('r'), definition: traced, containerPod: undefined })).toEqual([
      'r: its trace is not exported yet',
    ]);
    expect(
      owedAfterEnd({
        run: finishedRun('r', { telemetry: { token: '', state: 'exported', finishedAt: ENDED } }),
        definition: traced,
        containerPod: undefined,
      }),
    ).toEqual([]);
  });

  it('owes the removal of a container Pod that is still there, unless the DAG keeps it', () => {
    const container = { container: { image: 'alpine:3' }, steps: ['echo hi'] };
    expect(
      owedAfterEnd({ run: finishedRun('r'), definition: definition(container), containerPod: pod('r-container') }),
    ).toEqual(['r: its container Pod is still to be removed']);
    expect(
      owedAfterEnd({
        run: finishedRun('r'),
        definition: definition({ ...container, container: { image: 'alpine:3', keepContainer: true } }),
        containerPod: pod('r-container'),
      }),
    ).toEqual([]);
    expect(owedAfterEnd({ run: finishedRun('r'), definition: definition(container), containerPod: undefined })).toEqual(
      [],
    );
  });
});

describe('retentionPlan', () => {
  const now = at('2026-11-28T00:00:00Z');
  const DAY = 24 * HOUR;

  it("cuts each stored DAG at its histRetentionDays, Dagu's 30 for a DAG that is gone, in watched namespaces only", () => {
    const stored = [
      { namespace: 'a', dagName: 'short' },
      { namespace: 'a', dagName: 'deleted' },
      { namespace: 'a', dagName: 'forever' },
      { namespace: 'b', dagName: 'short' },
    ];
    const days = (_ns: string, dag: string): number | undefined => ({ short: 1, forever: 0 })[dag];
    expect(retentionPlan(stored, days, (ns) => ns === 'a', now)).toEqual([
      { namespace: 'a', dagName: 'short', finishedBefore: now - DAY },
      { namespace: 'a', dagName: 'deleted', finishedBefore: now - 30 * DAY },
    ]);
  });
});

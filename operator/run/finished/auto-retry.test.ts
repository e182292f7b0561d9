import { describe, expect, it } from 'vitest';
import type { DagRetryPolicy } from '../../../core/dag/index.ts';
import { ANNOTATIONS } from '../../../core/resources/constants.ts';
import { RunStatus } from '../../../core/resources/status.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import { dagRun } from '../../../test/builders/dag-run.ts';
import { autoRetry, type AutoRetryDecision } from './auto-retry.ts';

const policy: DagRetryPolicy = { limit: 3, intervalSec: 60, backoff: 2, maxIntervalSec: 150 };
const finishedAt = '2026-01-01T00:00:00Z';
const at = (seconds: number): Date => new Date(Date.parse(finishedAt) + seconds * 1000);

function failedRun(extra: { status?: number; parent?: boolean; created?: string } = {}) {
  return dagRun('r1')
    .spec({
      dagName: 'd',
      dagRunId: 'r1',
      dagRef: { name: 'd' },
      ...(extra.parent === true ? { parent: { name: 'p', dagRunId: 'p' } } : {}),
    })
    .status({ status: extra.status ?? RunStatus.Failed, statusLabel: 'failed', finishedAt })
    .build();
}

function withMeta(run: DagRunResource, retries: number | undefined, created = '2025-12-31T23:00:00Z'): DagRunResource {
  const annotations: Record<string, string> =
    retries === undefined ? {} : { [ANNOTATIONS.autoRetries]: String(retries) };
  return {
    ...run,
    metadata: {
      ...run.metadata,
      creationTimestamp: new Date(created),
      annotations,
    },
  };
}

describe('the DAG-level retry policy of a finished run', () => {
  it.each<[string, DagRunResource, Date, AutoRetryDecision]>([
    [
      'waits interval_sec after the end before the first retry',
      withMeta(failedRun(), undefined),
      at(30),
      { kind: 'wait', untilMs: 30_000 },
    ],
    [
      'retries once the wait is over, counting it',
      withMeta(failedRun(), undefined),
      at(60),
      { kind: 'retry', count: 1 },
    ],
    [
      'waits interval * backoff^n after the nth retry',
      withMeta(failedRun(), 1),
      at(60),
      { kind: 'wait', untilMs: 60_000 },
    ],
    ['caps the wait at max_interval_sec', withMeta(failedRun(), 2), at(150), { kind: 'retry', count: 3 }],
    ['stops at the limit', withMeta(failedRun(), 3), at(9999), { kind: 'none', why: 'retries exhausted' }],
    [
      'leaves a run that did not fail',
      withMeta(failedRun({ status: RunStatus.Succeeded }), undefined),
      at(60),
      { kind: 'none', why: 'not failed' },
    ],
    [
      'leaves a sub run to its parent',
      withMeta(failedRun({ parent: true }), undefined),
      at(60),
      { kind: 'none', why: 'a sub run' },
    ],
    [
      'leaves a run created more than a day ago (the retry window)',
      withMeta(failedRun(), undefined, '2025-12-30T00:00:00Z'),
      at(60),
      { kind: 'none', why: 'outside the retry window' },
    ],
  ])('%s', (_name, run, now, want) => {
    expect(autoRetry({ run, policy, dagSuspended: false, now })).toEqual(want);
  });

  it('leaves a run of a suspended DAG, and a DAG without a policy or with limit 0', () => {
    const run = withMeta(failedRun(), undefined);
    expect(autoRetry({ run, policy, dagSuspended: true, now: at(60) }).kind).toBe('none');
    expect(autoRetry({ run, policy: undefined, dagSuspended: false, now: at(60) }).kind).toBe('none');
    expect(autoRetry({ run, policy: { ...policy, limit: 0 }, dagSuspended: false, now: at(60) }).kind).toBe('none');
  });
});

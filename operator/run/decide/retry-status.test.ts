import { describe, expect, it } from 'vitest';
import { loadDag } from '../../../core/dag/index.ts';
import type { DagRunStatus, RunNode } from '../../../core/resources/schemas.ts';
import { RunStatus } from '../../../core/resources/status.ts';
import { dagRun } from '../../../test/builders/dag-run.ts';
import {
  copiedRetry,
  copiedRetryStatus,
  inPlaceRetry,
  RETRY_ANNOTATION,
  RETRY_STEP_ANNOTATION,
  retryRequest,
  retryStatus,
  stepForAttempt,
} from './retry-status.ts';

const dag = loadDag(
  'type: graph\nsteps:\n  - {name: a, command: x}\n  - {name: b, command: x, depends: a}\n  - {name: c, command: x, depends: b}\n  - {name: d, command: x, depends: a}',
  { fileName: 'r' },
).dag;
const node = (name: string, status: number, extra: Partial<RunNode> = {}): RunNode => ({
  name,
  status,
  statusLabel: '',
  attempt: 0,
  retryCount: 0,
  doneCount: 0,
  ...extra,
});
const finished: DagRunStatus = {
  status: 2,
  statusLabel: 'failed',
  startedAt: '2026-01-01T00:00:00Z',
  finishedAt: '2026-01-01T00:01:00Z',
  error: 'exit code 1',
  endReason: undefined,
  nodes: [node('a', 4, { outputs: { A: '1' } }), node('b', 2, { attempt: 2 }), node('c', 3), node('d', 4)],
  onFailure: node('onFailure', 4),
};
const states = (status: DagRunStatus): Record<string, [string, number | undefined]> =>
  Object.fromEntries((status.nodes ?? []).map((n) => [n.name, [n.statusLabel, n.attempt]]));

describe('retryStatus', () => {
  it('resets failed and canceled steps and their dependents, keeping the rest and its outputs', () => {
    const status = retryStatus(dag, finished, new Date('2026-01-02T00:00:00Z'));
    expect(states(status)).toEqual({ a: ['', 0], b: ['not_started', 3], c: ['not_started', 1], d: ['', 0] });
    expect(status.nodes?.[0]?.outputs).toEqual({ A: '1' });
    expect(status).toMatchObject({ status: 1, statusLabel: 'running', startedAt: '2026-01-02T00:00:00.000Z' });
    expect(status.finishedAt).toBeUndefined();
    expect(status.onFailure).toBeUndefined();
    expect(status.error).toBeUndefined();
  });

  it('resets only the named step', () => {
    const status = retryStatus(dag, finished, new Date(), 'd');
    expect(states(status)).toEqual({ a: ['', 0], b: ['', 2], c: ['', 0], d: ['not_started', 1] });
    expect(status.retriedStep).toBe('d');
  });

  it('forgets the step an earlier retry named when the whole run is retried', () => {
    expect(retryStatus(dag, { ...finished, retriedStep: 'd' }, new Date()).retriedStep).toBeUndefined();
  });
});

describe('stepForAttempt', () => {
  const flaky = loadDag(
    'steps:\n  - {name: a, command: x, retryPolicy: {limit: 3, intervalSec: 1}}\n  - {name: b, command: x, retryPolicy: {limit: 3, intervalSec: 1}}',
    { fileName: 'f' },
  ).dag;
  const cases = [
    {
      name: 'a step retried on its own runs once, without its retryPolicy',
      step: 'a',
      retriedStep: 'a',
      keepsPolicy: false,
    },
    {
      name: 'other steps keep their retryPolicy during a single-step retry',
      step: 'b',
      retriedStep: 'a',
      keepsPolicy: true,
    },
    {
      name: 'every step keeps its retryPolicy when no step was named',
      step: 'a',
      retriedStep: undefined,
      keepsPolicy: true,
    },
  ];
  it.each(cases)('$name', ({ step, retriedStep, keepsPolicy }) => {
    const original = flaky.steps.find((s) => s.name === step);
    if (original === undefined) throw new Error('fixture step missing');
    const judged = stepForAttempt(original, retriedStep === undefined ? {} : { retriedStep });
    expect(judged.retryPolicy !== undefined).toBe(keepsPolicy);
  });
});

describe('copiedRetryStatus', () => {
  it('starts a new run from the original steps without their Pods, spilled outputs or retry token', () => {
    const original: DagRunStatus = {
      ...finished,
      retryToken: 't1',
      observedGeneration: 3,
      nodes: [
        node('a', 4, { pod: 'p-a', outputs: { A: '1' }, outputRefs: { BIG: { attempt: 0, bytes: 99_999 } } }),
        node('b', 2),
      ],
    };
    const status = copiedRetryStatus(dag, original, new Date('2026-01-02T00:00:00Z'));
    expect(status.nodes?.[0]).toEqual({
      name: 'a',
      status: 4,
      statusLabel: '',
      attempt: 0,
      retryCount: 0,
      doneCount: 0,
      outputs: { A: '1' },
    });
    expect(states(status)).toMatchObject({ b: ['not_started', 1] });
    expect([status.retryToken, status.observedGeneration, status.status]).toEqual([undefined, undefined, 1]);
  });
});

describe('retryRequest', () => {
  it.each([
    ['a run without a retry token is asked for nothing', {}, {}, false, { kind: 'none' }],
    [
      'a token the run has answered already asks for nothing',
      { [RETRY_ANNOTATION]: 't1' },
      { retryToken: 't1' },
      false,
      { kind: 'none' },
    ],
    [
      'a new token on a stopped run lifts the stop first',
      { [RETRY_ANNOTATION]: 't2' },
      { retryToken: 't1' },
      true,
      { kind: 'liftStop' },
    ],
    [
      'a new token asks for a retry of the failed steps',
      { [RETRY_ANNOTATION]: 't2' },
      {},
      false,
      { kind: 'retry', token: 't2' },
    ],
    [
      'a new token with a step name asks for that step',
      { [RETRY_ANNOTATION]: 't2', [RETRY_STEP_ANNOTATION]: 'b' },
      {},
      false,
      { kind: 'retry', token: 't2', step: 'b' },
    ],
  ])('%s', (_name, annotations, status, stop, want) => {
    const run = dagRun('r1')
      .annotate(annotations)
      .spec({ dagName: 'r', ...(stop ? { stop: true } : {}) })
      .status({ ...finished, ...status })
      .build();
    expect(retryRequest(run)).toEqual(want);
  });
});

describe('inPlaceRetry and copiedRetry', () => {
  const now = new Date('2026-01-02T00:00:00Z');

  it('a retry in place runs again with its token and says which steps it redoes', () => {
    const write = inPlaceRetry(dag, finished, { kind: 'retry', token: 't2', step: 'b' }, now);
    expect([write.status.status, write.status.statusLabel, write.status.retryToken, write.message]).toEqual([
      RunStatus.Running,
      'running',
      't2',
      'retrying step b',
    ]);
  });

  it('a retry under a new id names the run it retries', () => {
    const write = copiedRetry(dag, finished, 'original-id', now);
    expect([write.status.status, write.message]).toEqual([
      RunStatus.Running,
      'retrying run original-id under a new id',
    ]);
  });
});

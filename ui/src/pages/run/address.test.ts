import { describe, expect, it } from 'vitest';
import {
  breadcrumbs,
  isActive,
  paramList,
  runActions,
  runAddress,
  runPage,
  type Crumb,
  type RunActions,
  type RunLineage,
} from './address.ts';
import { newRunId, runIdProblem } from './run-id.ts';

const root: RunLineage = {
  name: 'etl',
  dagRunId: 'r1',
  rootDAGRunName: 'etl',
  rootDAGRunId: 'r1',
  parentDAGRunName: '',
  parentDAGRunId: '',
};

describe('the address of a run page', () => {
  it.each<[string, Record<string, string>, string]>([
    ['a root run is its DAG name and id', { name: 'etl', dagRunId: 'r1' }, '/runs/etl/r1'],
    [
      'a sub-run hangs under its root run',
      { name: 'etl', dagRunId: 'r1', subDagRunId: 'c 1' },
      '/runs/etl/r1/sub-runs/c%201',
    ],
  ])('%s', (_, params, want) => {
    const address = runAddress(params);
    expect(address === undefined ? undefined : runPage(address)).toBe(want);
  });

  it('is no address without a run id', () => {
    expect(runAddress({ name: 'etl' })).toBeUndefined();
  });
});

describe('breadcrumbs from the run details', () => {
  it.each<[string, RunLineage, Crumb[]]>([
    [
      'a root run: its DAG, then itself',
      root,
      [
        { label: 'etl', kind: 'dag', href: '/dags/etl' },
        { label: 'r1', kind: 'run' },
      ],
    ],
    [
      'a sub-run of the root: the root DAG, the root run, then itself',
      {
        name: 'load',
        dagRunId: 'c1',
        rootDAGRunName: 'etl',
        rootDAGRunId: 'r1',
        parentDAGRunName: 'etl',
        parentDAGRunId: 'r1',
      },
      [
        { label: 'etl', kind: 'dag', href: '/dags/etl' },
        { label: 'r1', kind: 'run', href: '/runs/etl/r1' },
        { label: 'load c1', kind: 'sub-run' },
      ],
    ],
    [
      'a sub-run deeper down: the root, a gap, the parent under the root, then itself',
      {
        name: 'part',
        dagRunId: 'g1',
        rootDAGRunName: 'etl',
        rootDAGRunId: 'r1',
        parentDAGRunName: 'load',
        parentDAGRunId: 'c1',
      },
      [
        { label: 'etl', kind: 'dag', href: '/dags/etl' },
        { label: 'r1', kind: 'run', href: '/runs/etl/r1' },
        { label: '…', kind: 'gap' },
        { label: 'load c1', kind: 'sub-run', href: '/runs/etl/r1/sub-runs/c1' },
        { label: 'part g1', kind: 'sub-run' },
      ],
    ],
  ])('%s', (_, run, want) => {
    expect(breadcrumbs(run)).toEqual(want);
  });
});

describe('what can be done with a run', () => {
  const none: RunActions = {
    stop: false,
    dequeue: false,
    retry: false,
    reschedule: false,
    retryStep: false,
    editStep: false,
  };
  const ended = { ...none, retry: true, reschedule: true, retryStep: true, editStep: true };
  it.each<[string, number, string, boolean, RunActions]>([
    ['a running run can be stopped, nothing else', 1, '', false, { ...none, stop: true }],
    ['a queued run can be dequeued, nothing else', 5, '', false, { ...none, dequeue: true }],
    ['a run not started yet waits', 0, '', false, none],
    [
      'a failed run can be retried, rescheduled, and its steps retried and edited',
      2,
      '2026-05-01T10:00:00Z',
      false,
      ended,
    ],
    ['a succeeded run too', 4, '2026-05-01T10:00:00Z', false, ended],
    ['a cancelled run too', 3, '2026-05-01T10:00:00Z', false, ended],
    ['a running sub-run cannot be stopped from its page (the API stops root runs)', 1, '', true, none],
    ['an ended sub-run can only have its steps edited', 2, '2026-05-01T10:00:00Z', true, { ...none, editStep: true }],
  ])('%s', (_, status, finishedAt, sub, want) => {
    expect(runActions({ status, finishedAt }, sub)).toEqual(want);
  });

  it('polls a run while it is not started, running or queued, and not once it ended', () => {
    expect([0, 1, 5, 2, 3, 4, 6].map((status) => isActive({ status, finishedAt: '' }))).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
    expect(isActive({ status: 1, finishedAt: '2026-05-01T10:00:00Z' })).toBe(false);
  });
});

describe('run ids the UI makes', () => {
  it('makes a UUID version 7 that starts with the time, and the API accepts it', () => {
    const id = newRunId(Date.parse('2026-05-01T10:00:00Z'), (b) => {
      b.fill(0xab);
    });
    expect([id, runIdProblem(id)]).toEqual(['019de2fb-1900-7bab-abab-abababababab', undefined]);
  });

  it.each<[string, string, string | undefined]>([
    ['an empty id is refused', '', 'A run id is needed.'],
    ['a slash is refused', 'a/b', 'Only letters, digits, "-" and "_".'],
    ['65 characters are too many', 'x'.repeat(65), 'At most 64 characters.'],
    ['letters, digits, dash and underscore are fine', 'retry_2-b', undefined],
  ])('%s', (_, id, want) => {
    expect(runIdProblem(id)).toBe(want);
  });
});

describe('the params of a run', () => {
  it.each<[string, string, string[]]>([
    ['none are no list', '', []],
    ['a JSON list of NAME=value is that list', '["DATE=2026-05-01","FULL=true"]', ['DATE=2026-05-01', 'FULL=true']],
    ['a JSON object is NAME=value, other values as JSON', '{"DATE":"2026-05-01","N":3}', ['DATE=2026-05-01', 'N=3']],
    ['text that is not JSON is shown as written', 'DATE=2026-05-01 FULL=true', ['DATE=2026-05-01 FULL=true']],
  ])('%s', (_, params, want) => {
    expect(paramList(params)).toEqual(want);
  });
});

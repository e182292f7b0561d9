import { describe, expect, it } from 'vitest';
import {
  filterSteps,
  FILTER_FROM_STEPS,
  NO_FILTER,
  offersFilter,
  parseStepFilter,
  statusChoices,
  withStepFilter,
  type StepFilter,
} from './step-filter.ts';

const row = (name: string, statusLabel: string) => ({ node: { step: { name }, statusLabel } });
const rows = [
  row('extract-eu', 'succeeded'),
  row('extract-us', 'failed'),
  row('Load-EU', 'succeeded'),
  row('report', 'not_started'),
];
const names = (list: readonly { node: { step: { name: string } } }[]): string[] => list.map((r) => r.node.step.name);

describe('filterSteps', () => {
  it.each<[string, StepFilter, string[]]>([
    ['no filter keeps every row in order', NO_FILTER, ['extract-eu', 'extract-us', 'Load-EU', 'report']],
    ['part of a name matches in any case', { text: 'eu', status: '' }, ['extract-eu', 'Load-EU']],
    ['spaces around the text do not count', { text: '  report ', status: '' }, ['report']],
    ['a status keeps only its steps', { text: '', status: 'succeeded' }, ['extract-eu', 'Load-EU']],
    ['name and status both apply', { text: 'extract', status: 'failed' }, ['extract-us']],
    ['nothing matches: no rows', { text: 'nope', status: '' }, []],
  ])('%s', (_, filter, want) => {
    expect(names(filterSteps(rows, filter))).toEqual(want);
  });
});

describe('the filter in the URL', () => {
  it('reads the step name and status, and writes them back beside other parameters', () => {
    const search = new URLSearchParams('step=load&status=failed&other=1');
    const filter = parseStepFilter(search);
    expect([filter, withStepFilter(search, { text: '', status: 'running' }).toString()]).toEqual([
      { text: 'load', status: 'failed' },
      'status=running&other=1',
    ]);
  });
  it('an empty URL is no filter', () => {
    expect(parseStepFilter(new URLSearchParams())).toEqual(NO_FILTER);
  });
});

describe('offersFilter', () => {
  it.each<[string, number, StepFilter, boolean]>([
    ['a small run has no filter', 5, NO_FILTER, false],
    ['a run of more than a screen or two of steps has one', FILTER_FROM_STEPS + 1, NO_FILTER, true],
    [
      'a link with a filter shows it even on a small run, so it can be cleared',
      5,
      { text: '', status: 'failed' },
      true,
    ],
  ])('%s', (_, count, filter, want) => {
    expect(offersFilter(count, filter)).toBe(want);
  });
});

describe('statusChoices', () => {
  it('lists the statuses the steps have with their counts, failures first', () => {
    expect(statusChoices(rows, '')).toEqual([
      { status: 'failed', count: 1 },
      { status: 'succeeded', count: 2 },
      { status: 'not_started', count: 1 },
    ]);
  });
  it('keeps the chosen status when no step has it any more, with no steps', () => {
    expect(statusChoices(rows, 'running').at(-1)).toEqual({ status: 'running', count: 0 });
  });
});

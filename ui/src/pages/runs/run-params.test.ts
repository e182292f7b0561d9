import { describe, expect, it } from 'vitest';
import { parseRunsParams, RUNS_DEFAULTS, runsApiQuery, runsHref, runsSearch, type RunsParams } from './run-params.ts';

const now = new Date(2026, 10, 24, 12).getTime();

describe('the runs list state in the URL', () => {
  it.each<[string, string, Partial<RunsParams>]>([
    ['an empty query is the defaults', '', {}],
    [
      'every field is read',
      'status=failed&name=etl&id=abc&period=30d',
      { status: 2, name: 'etl', dagRunId: 'abc', period: '30d' },
    ],
    ['a status is read by its label', 'status=queued', { status: 5 }],
    ['an unknown status is every status', 'status=exploded', {}],
    ['an unknown period is the default', 'period=forever', {}],
  ])('%s', (_, query, want) => {
    expect(parseRunsParams(new URLSearchParams(query))).toEqual({ ...RUNS_DEFAULTS, ...want });
  });

  it('writes only what differs from the defaults, the status by its label', () => {
    expect(runsSearch({ ...RUNS_DEFAULTS, status: 4, period: 'all' }).toString()).toBe('status=succeeded&period=all');
  });

  it('reads back what it writes', () => {
    const params: RunsParams = { status: 0, name: 'etl daily', dagRunId: 'x/y', period: 'today' };
    expect(parseRunsParams(runsSearch(params))).toEqual(params);
  });

  it.each<[string, Partial<RunsParams>, string]>([
    ['links to the plain list with no filter', {}, '/runs'],
    ['links to failed runs of today', { status: 2, period: 'today' }, '/runs?status=failed&period=today'],
  ])('%s', (_, params, want) => {
    expect(runsHref(params)).toBe(want);
  });
});

describe('what GET /dag-runs is asked', () => {
  it.each<[string, Partial<RunsParams>, object]>([
    ['the default is the last 7 days', {}, { fromDate: new Date(2026, 10, 18).getTime() / 1000 }],
    ['all time with no filter asks for everything', { period: 'all' }, {}],
    [
      'filters are sent trimmed, status 0 included',
      { period: 'all', status: 0, name: ' etl ', dagRunId: ' 42 ' },
      { status: 0, name: 'etl', dagRunId: '42' },
    ],
    ['blank text is no filter', { period: 'all', name: '   ' }, {}],
  ])('%s', (_, params, want) => {
    expect(runsApiQuery({ ...RUNS_DEFAULTS, ...params }, now)).toEqual(want);
  });
});

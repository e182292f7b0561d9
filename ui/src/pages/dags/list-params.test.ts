import { describe, expect, it } from 'vitest';
import { apiQuery, DEFAULTS, listSearch, parseListParams, withChange } from './list-params.ts';

describe('the DAG list state in the URL', () => {
  it.each<[string, string, Partial<typeof DEFAULTS>]>([
    ['an empty query is the defaults', '', {}],
    [
      'every field is read',
      'search=etl&tag=daily&page=3&perPage=100&sort=nextRun&order=desc',
      { search: 'etl', tag: 'daily', page: 3, perPage: 100, sort: 'nextRun', order: 'desc' },
    ],
    ['a page that is no positive integer is the first', 'page=-2', {}],
    ['a page size that is not offered is the default', 'perPage=100000', {}],
    ['an unknown sort is by name, an unknown order ascending', 'sort=size&order=up', {}],
  ])('%s', (_, query, want) => {
    expect(parseListParams(new URLSearchParams(query))).toEqual({ ...DEFAULTS, ...want });
  });

  it('writes only what differs from the defaults', () => {
    expect(listSearch({ ...DEFAULTS, tag: 'ops', page: 2 }).toString()).toBe('tag=ops&page=2');
  });

  it('starts from the first page when a filter changes, and keeps the page when only the page does', () => {
    const onPage4 = { ...DEFAULTS, page: 4 };
    expect([withChange(onPage4, { tag: 'ops' }).page, withChange(onPage4, { page: 5 }).page]).toEqual([1, 5]);
  });

  it('asks the API by name and tag only when they are set, trimming the search', () => {
    expect(apiQuery({ ...DEFAULTS, search: '  etl ' })).toEqual({
      page: 1,
      perPage: 50,
      sort: 'name',
      order: 'asc',
      name: 'etl',
    });
  });
});

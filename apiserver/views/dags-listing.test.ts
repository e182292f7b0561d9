import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PER_PAGE,
  MAX_PER_PAGE,
  paginate,
  searchText,
  selectDags,
  uniqueTags,
  type DagQuery,
  type Pagination,
} from './dags.ts';
import { entry } from '../../test/dag-entries.ts';

const numbers = (count: number): number[] => Array.from({ length: count }, (_, i) => i + 1);

describe('paginate', () => {
  interface PageCase {
    readonly total: number;
    readonly page: number | undefined;
    readonly perPage: number | undefined;
    /** First and last item of the page, or [] for an empty page. */
    readonly span: [number, number] | [];
    readonly pagination: Pagination;
  }

  it.each<[string, PageCase]>([
    [
      'the first page of 50 when neither page nor perPage is given',
      {
        total: 120,
        page: undefined,
        perPage: undefined,
        span: [1, 50],
        pagination: { totalRecords: 120, currentPage: 1, totalPages: 3, nextPage: 2, prevPage: null },
      },
    ],
    [
      'a middle page with both neighbours',
      {
        total: 120,
        page: 2,
        perPage: undefined,
        span: [51, 100],
        pagination: { totalRecords: 120, currentPage: 2, totalPages: 3, nextPage: 3, prevPage: 1 },
      },
    ],
    [
      'a short last page without a next page',
      {
        total: 120,
        page: 3,
        perPage: undefined,
        span: [101, 120],
        pagination: { totalRecords: 120, currentPage: 3, totalPages: 3, nextPage: null, prevPage: 2 },
      },
    ],
    [
      'the default size for perPage 0',
      {
        total: 60,
        page: 1,
        perPage: 0,
        span: [1, 50],
        pagination: { totalRecords: 60, currentPage: 1, totalPages: 2, nextPage: 2, prevPage: null },
      },
    ],
    [
      'the default size for a negative perPage',
      {
        total: 60,
        page: 1,
        perPage: -5,
        span: [1, 50],
        pagination: { totalRecords: 60, currentPage: 1, totalPages: 2, nextPage: 2, prevPage: null },
      },
    ],
    [
      'pages of 1000 when perPage is larger',
      {
        total: 2500,
        page: 1,
        perPage: 5000,
        span: [1, 1000],
        pagination: { totalRecords: 2500, currentPage: 1, totalPages: 3, nextPage: 2, prevPage: null },
      },
    ],
    [
      'page 1 for page 0',
      {
        total: 10,
        page: 0,
        perPage: 4,
        span: [1, 4],
        pagination: { totalRecords: 10, currentPage: 1, totalPages: 3, nextPage: 2, prevPage: null },
      },
    ],
    [
      'page 1 for a negative page',
      {
        total: 10,
        page: -3,
        perPage: 4,
        span: [1, 4],
        pagination: { totalRecords: 10, currentPage: 1, totalPages: 3, nextPage: 2, prevPage: null },
      },
    ],
    [
      'one empty page for no items',
      {
        total: 0,
        page: undefined,
        perPage: undefined,
        span: [],
        pagination: { totalRecords: 0, currentPage: 1, totalPages: 1, nextPage: null, prevPage: null },
      },
    ],
    [
      'an empty page past the end, whose previous page is the last one',
      {
        total: 10,
        page: 4,
        perPage: 5,
        span: [],
        pagination: { totalRecords: 10, currentPage: 4, totalPages: 2, nextPage: null, prevPage: 2 },
      },
    ],
    [
      'exactly full pages without a trailing empty one',
      {
        total: 10,
        page: 2,
        perPage: 5,
        span: [6, 10],
        pagination: { totalRecords: 10, currentPage: 2, totalPages: 2, nextPage: null, prevPage: 1 },
      },
    ],
  ])('gives %s', (_, { total, page, perPage, span, pagination }) => {
    const result = paginate(numbers(total), page, perPage);
    expect(result.pagination).toEqual(pagination);
    expect(span.length === 0 ? result.items : [result.items[0], result.items.at(-1)]).toEqual(span);
  });

  it('uses a default of 50 and a maximum of 1000 per page', () => {
    expect([DEFAULT_PER_PAGE, MAX_PER_PAGE]).toEqual([50, 1000]);
  });

  it('leaves the list it pages through unchanged', () => {
    const items = numbers(7);
    paginate(items, 2, 3);
    expect(items).toEqual(numbers(7));
  });
});

describe('selectDags', () => {
  /** Monday 2026-03-02 00:00 UTC: `15 * * * *` fires at 00:15, `0 2 * * *` at 02:00. */
  const now = new Date('2026-03-02T00:00:00Z');
  const all = [
    entry('nightly', { name: 'Nightly', schedule: '0 2 * * *', tags: ['prod', 'ETL'] }),
    entry('hourly', { schedule: '15 * * * *', tags: ['prod'] }),
    entry('adhoc', { tags: ['production'] }),
    entry('also-hourly', { name: 'Beta', schedule: '15 * * * *' }),
    entry('manual', { name: 'zeta' }),
  ];
  const select = (query: DagQuery): string[] => selectDags(all, query, now).map((e) => e.fileName);

  it.each<[string, DagQuery, string[]]>([
    ['sorts by DAG name, ignoring case, by default', {}, ['adhoc', 'also-hourly', 'hourly', 'nightly', 'manual']],
    [
      'sorts by DAG name in reverse for order=desc',
      { order: 'desc' },
      ['manual', 'nightly', 'hourly', 'also-hourly', 'adhoc'],
    ],
    ['sorts an unknown sort key by name', { sort: 'bogus' }, ['adhoc', 'also-hourly', 'hourly', 'nightly', 'manual']],
    [
      'sorts sort=name by name',
      { sort: 'name', order: 'desc' },
      ['manual', 'nightly', 'hourly', 'also-hourly', 'adhoc'],
    ],
    ['filters by a case-insensitive substring of the file name', { name: 'HOUR' }, ['also-hourly', 'hourly']],
    ['filters on the file name, not the DAG name', { name: 'beta' }, []],
    ['keeps every DAG for an empty name filter', { name: '' }, ['adhoc', 'also-hourly', 'hourly', 'nightly', 'manual']],
    ['filters by an exact tag, ignoring case', { tag: 'PROD' }, ['hourly', 'nightly']],
    ['trims the tag it filters by', { tag: ' etl ' }, ['nightly']],
    ['finds nothing for a tag no DAG has', { tag: 'prod*' }, []],
    ['combines the name and tag filters', { name: 'night', tag: 'prod' }, ['nightly']],
    ["keeps DAGs with every one of v1's labels", { labels: 'prod, etl' }, ['nightly']],
    ['keeps every DAG for empty labels', { labels: ' , ' }, ['adhoc', 'also-hourly', 'hourly', 'nightly', 'manual']],
  ])('%s', (_, query, expected) => {
    expect(select(query)).toEqual(expected);
  });

  it.each<[string, DagQuery, string[]]>([
    [
      'puts the earliest next start first and unscheduled DAGs last, ties by name',
      { sort: 'nextRun' },
      ['also-hourly', 'hourly', 'nightly', 'adhoc', 'manual'],
    ],
    [
      'puts the latest next start first for order=desc, still unscheduled DAGs last',
      { sort: 'nextRun', order: 'desc' },
      ['nightly', 'also-hourly', 'hourly', 'adhoc', 'manual'],
    ],
  ])('%s under sort=nextRun', (_, query, expected) => {
    expect(select(query)).toEqual(expected);
  });

  it('takes the next start from the given now', () => {
    // At 01:30 the hourly DAGs next fire at 02:15, after the nightly one at 02:00.
    const later = selectDags(all, { sort: 'nextRun' }, new Date('2026-03-02T01:30:00Z')).map((e) => e.fileName);
    expect(later).toEqual(['nightly', 'also-hourly', 'hourly', 'adhoc', 'manual']);
  });

  it('leaves the list it selects from unchanged', () => {
    const before = all.map((e) => e.fileName);
    selectDags(all, { sort: 'nextRun', order: 'desc' }, now);
    expect(all.map((e) => e.fileName)).toEqual(before);
  });
});

describe('searchText', () => {
  it.each<[string, string, RegExp, { line: string; lineNumber: number; startLine: number }[]]>([
    ['nothing when no line matches', 'a\nb', /zzz/, []],
    [
      'a match on the first line with the next line only',
      'foo\nbar\nbaz',
      /foo/,
      [{ line: 'foo\nbar', lineNumber: 1, startLine: 1 }],
    ],
    [
      'a middle match with one line either side',
      'a\nfoo\nb\nc',
      /foo/,
      [{ line: 'a\nfoo\nb', lineNumber: 2, startLine: 1 }],
    ],
    [
      'a match on the last line with the previous line only',
      'a\nb\nfoo',
      /foo/,
      [{ line: 'b\nfoo', lineNumber: 3, startLine: 2 }],
    ],
    [
      'each matching line, 1-based',
      'foo\nx\ny\nfoo',
      /foo/,
      [
        { line: 'foo\nx', lineNumber: 1, startLine: 1 },
        { line: 'y\nfoo', lineNumber: 4, startLine: 3 },
      ],
    ],
    [
      'every line of a global pattern, whatever its lastIndex',
      'foo\nfoo',
      /foo/g,
      [
        { line: 'foo\nfoo', lineNumber: 1, startLine: 1 },
        { line: 'foo\nfoo', lineNumber: 2, startLine: 1 },
      ],
    ],
    [
      'matches of a case-insensitive pattern',
      'steps:\n  - command: ECHO',
      /echo/i,
      [{ line: 'steps:\n  - command: ECHO', lineNumber: 2, startLine: 1 }],
    ],
    ['a single-line text', 'foo', /o+/, [{ line: 'foo', lineNumber: 1, startLine: 1 }]],
  ])('finds %s', (_, text, pattern, expected) => {
    expect(searchText(text, pattern)).toEqual(expected);
  });
});

describe('uniqueTags', () => {
  it.each<[string, Record<string, unknown>[], string[]]>([
    ['no tags for no DAGs', [], []],
    ['no tags for DAGs without tags', [{}, {}], []],
    [
      'each tag once, sorted',
      [{ tags: ['prod', 'etl'] }, { tags: ['prod'] }, { tags: ['batch'] }],
      ['batch', 'etl', 'prod'],
    ],
    ['tags lowercased as the DAGs load them', [{ tags: ['Prod'] }, { tags: ['prod'] }], ['prod']],
    ['tags written as one comma-separated string', [{ tags: 'b, a' }], ['a', 'b']],
  ])('lists %s', (_, fields, expected) => {
    expect(uniqueTags(fields.map((f, i) => entry(`dag-${String(i)}`, f)))).toEqual(expected);
  });
});

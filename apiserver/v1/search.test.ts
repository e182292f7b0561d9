import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import { grepWindow, labelScope, searchFeed, searchMatches, type SearchableDag } from './search.ts';

const TEXT = ['steps:', '  - name: load', '    run: LOAD data', '  - name: check', '    run: echo load done', ''].join(
  '\n',
);

describe('a search over one spec text', () => {
  it('finds the query case-blind, with two lines of context either side', () => {
    expect(grepWindow(TEXT, 'load', 0, 10)).toEqual({
      matches: [
        { line: 'steps:\n  - name: load\n    run: LOAD data\n  - name: check', lineNumber: 2, startLine: 1 },
        {
          line: 'steps:\n  - name: load\n    run: LOAD data\n  - name: check\n    run: echo load done',
          lineNumber: 3,
          startLine: 1,
        },
        { line: '    run: LOAD data\n  - name: check\n    run: echo load done', lineNumber: 5, startLine: 3 },
      ],
      hasMore: false,
      nextOffset: 0,
    });
  });

  it('pages from an offset and says where the next page starts', () => {
    expect(grepWindow(TEXT, 'LOAD', 1, 1)).toMatchObject({
      matches: [{ lineNumber: 3 }],
      hasMore: true,
      nextOffset: 2,
    });
  });

  it('takes the query literally and answers nothing when it is not there', () => {
    expect(grepWindow('a.b\naxb', 'a.b', 0, 5)?.matches.map((m) => m.lineNumber)).toEqual([1]);
    expect(grepWindow(TEXT, 'absent', 0, 5)).toBeUndefined();
  });

  it('compares labels trimmed, lower case and sorted', () => {
    expect(labelScope(' Ops, daily ,')).toBe('daily,ops');
  });
});

const dags: SearchableDag[] = [
  { fileName: 'c', tags: ['ops'], text: 'steps:\n  - run: echo needle\n  - run: echo needle again\n' },
  { fileName: 'a', tags: [], text: 'steps:\n  - run: echo needle\n' },
  { fileName: 'b', tags: ['ops'], text: 'steps:\n  - run: echo hay\n' },
  { fileName: 'd', tags: ['ops', 'daily'], text: 'needle: no\n' },
];

describe('the DAG search feed', () => {
  it('goes through DAGs in file-name order, with the first match of each, page by page', () => {
    const first = searchFeed(dags, { q: 'needle', limit: 2 });
    expect(first.results.map((r) => [r.fileName, r.matches[0]?.lineNumber, r.hasMoreMatches])).toEqual([
      ['a', 2, false],
      ['c', 2, true],
    ]);
    expect(first.hasMore).toBe(true);
    const second = searchFeed(dags, { q: 'needle', limit: 2, cursor: first.nextCursor ?? '' });
    expect([second.results.map((r) => r.fileName), second.hasMore, second.nextCursor]).toEqual([
      ['d'],
      false,
      undefined,
    ]);
  });

  it('keeps only DAGs with every label', () => {
    expect(searchFeed(dags, { q: 'needle', labels: 'OPS,daily', limit: 20 }).results.map((r) => r.fileName)).toEqual([
      'd',
    ]);
  });

  it.each([
    { name: 'an empty query', request: { q: ' ', limit: 20 }, message: "query parameter 'q' is required" },
    {
      name: 'a cursor of another query',
      request: { q: 'hay', limit: 20, cursor: '' },
      message: 'invalid search cursor',
    },
    {
      name: 'a cursor it did not make',
      request: { q: 'needle', limit: 20, cursor: 'bm9wZQ' },
      message: 'invalid search cursor',
    },
  ])('refuses $name with a 400', ({ request }) => {
    const cursor =
      request.cursor === '' ? (searchFeed(dags, { q: 'needle', limit: 1 }).nextCursor ?? '') : request.cursor;
    expect(() => searchFeed(dags, { ...request, ...(cursor === undefined ? {} : { cursor }) })).toThrow(ApiError);
  });
});

describe("one DAG's matches", () => {
  const c = dags[0] as SearchableDag;

  it('page on from the cursor the feed gave', () => {
    const feed = searchFeed(dags, { q: 'needle', labels: 'ops', limit: 20 });
    const cursor = feed.results.find((r) => r.fileName === 'c')?.nextMatchesCursor ?? '';
    expect(searchMatches(c, { q: 'needle', labels: 'ops', limit: 5, cursor })).toEqual({
      matches: [{ line: 'steps:\n  - run: echo needle\n  - run: echo needle again', lineNumber: 3, startLine: 1 }],
      hasMore: false,
    });
  });

  it("are none for a DAG without the labels, and a 400 for another DAG's cursor", () => {
    expect(searchMatches(c, { q: 'needle', labels: 'daily', limit: 5 })).toEqual({ matches: [], hasMore: false });
    const other = searchMatches(c, { q: 'needle', limit: 1 }).nextCursor ?? '';
    expect(() => searchMatches(dags[1] as SearchableDag, { q: 'needle', limit: 1, cursor: other })).toThrow(
      'invalid search cursor',
    );
  });
});

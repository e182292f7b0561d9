import { describe, expect, it } from 'vitest';
import { clientPage, pageItems, PAGE_DEFAULTS, parsePageParams, withPageParams } from './pages.ts';

describe('pageItems', () => {
  it.each<[string, number, number, (number | 'gap')[]]>([
    ['a single page is just that page', 1, 1, [1]],
    ['few pages are all shown', 3, 5, [1, 2, 3, 4, 5]],
    ['far from both ends there are two gaps', 10, 25, [1, 'gap', 8, 9, 10, 11, 12, 'gap', 25]],
    ['near the start only the end has a gap', 2, 25, [1, 2, 3, 4, 'gap', 25]],
    ['a gap of one page shows that page instead', 5, 25, [1, 2, 3, 4, 5, 6, 7, 'gap', 25]],
  ])('%s', (_, current, total, want) => {
    expect(pageItems(current, total)).toEqual(want);
  });
});

describe('clientPage', () => {
  const items = Array.from({ length: 120 }, (_, i) => i);
  it.each<
    [string, readonly number[], number, number, { rows: number[]; page: number; totalPages: number; offset: number }]
  >([
    ['the first page is the first rows', items, 1, 50, { rows: items.slice(0, 50), page: 1, totalPages: 3, offset: 0 }],
    ['the last page holds what is left', items, 3, 50, { rows: items.slice(100), page: 3, totalPages: 3, offset: 100 }],
    [
      'a page past the end shows the last one (the list shrank under it)',
      items,
      9,
      50,
      { rows: items.slice(100), page: 3, totalPages: 3, offset: 100 },
    ],
    [
      'a page before the start shows the first',
      items,
      0,
      50,
      { rows: items.slice(0, 50), page: 1, totalPages: 3, offset: 0 },
    ],
    ['nothing is one empty page', [], 2, 50, { rows: [], page: 1, totalPages: 1, offset: 0 }],
    [
      'an exact fit has no empty page after it',
      items.slice(0, 100),
      2,
      50,
      { rows: items.slice(50, 100), page: 2, totalPages: 2, offset: 50 },
    ],
  ])('%s', (_, list, page, perPage, want) => {
    expect(clientPage(list, page, perPage)).toEqual({ ...want, totalRecords: list.length });
  });
});

describe('the page in the URL', () => {
  it.each<[string, string, { page: number; perPage: number }]>([
    ['no page is the first, of the default size', '', PAGE_DEFAULTS],
    ['a page and an offered size are read', 'page=3&perPage=100', { page: 3, perPage: 100 }],
    [
      'a size not offered is the default: a URL cannot ask for every row',
      'perPage=100000',
      { page: 1, perPage: PAGE_DEFAULTS.perPage },
    ],
    ['a page that is no positive whole number is the first', 'page=-2', { page: 1, perPage: PAGE_DEFAULTS.perPage }],
  ])('%s', (_, query, want) => {
    expect(parsePageParams(new URLSearchParams(query))).toEqual(want);
  });

  it('writes the page beside the other parameters, leaving defaults out', () => {
    const search = new URLSearchParams('status=failed&page=4');
    expect([
      withPageParams(search, { page: 2, perPage: 100 }).toString(),
      withPageParams(search, PAGE_DEFAULTS).toString(),
    ]).toEqual(['status=failed&page=2&perPage=100', 'status=failed']);
  });
});

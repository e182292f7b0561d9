import { describe, expect, it } from 'vitest';
import { pageItems } from './pages.ts';

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

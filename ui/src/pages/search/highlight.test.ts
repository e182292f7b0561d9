import { describe, expect, it } from 'vitest';
import { highlight, searchPattern, snippets, type SearchMatch } from './highlight.ts';

/** Parts as text with hits in [brackets]. */
const marked = (parts: readonly { text: string; hit: boolean }[]): string =>
  parts.map((p) => (p.hit ? `[${p.text}]` : p.text)).join('');

describe('search highlight', () => {
  it.each<[string, string, string, string]>([
    [
      'marks every match, case-insensitively as the server matches',
      'echo Hello; echo hello',
      'hello',
      'echo [Hello]; echo [hello]',
    ],
    ['reads the query as a regular expression', 'sleep 300 && sleep 5', 'sleep \\d+', '[sleep 300] && [sleep 5]'],
    ['reads an invalid expression literally', 'run (a', 'n (', 'ru[n (]a'],
    ['marks nothing for a pattern that matches only empty text', 'steps:', '^', 'steps:'],
    ['keeps a line with no match whole', 'name: etl', 'report', 'name: etl'],
    ['keeps an empty line', '', 'x', ''],
  ])('%s', (_, text, query, want) => {
    expect(marked(highlight(text, searchPattern(query)))).toBe(want);
  });

  it('merges overlapping context blocks into runs of lines, marking the matching lines', () => {
    const spec = [
      'name: etl',
      'steps:',
      '  - echo extract',
      '  - echo load',
      'tags: [x]',
      '',
      'a',
      'b',
      'c',
      '  - echo tail',
    ];
    const block = (n: number): SearchMatch => ({
      line: spec.slice(Math.max(0, n - 2), n + 1).join('\n'),
      lineNumber: n,
      startLine: Math.max(1, n - 1),
    });
    const got = snippets([block(3), block(4), block(10)], searchPattern('echo'));
    expect(
      got.map((lines) => lines.map((l) => `${String(l.number)}${l.matched ? '*' : ' '}${marked(l.parts)}`)),
    ).toEqual([
      ['2 steps:', '3*  - [echo] extract', '4*  - [echo] load', '5 tags: [x]'],
      ['9 c', '10*  - [echo] tail'],
    ]);
  });
});

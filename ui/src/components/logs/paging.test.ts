import { describe, expect, it } from 'vitest';
import { logFileName, readWholeLog } from './download.ts';
import {
  appendLines,
  displayLine,
  followQuery,
  HEAD,
  lastLine,
  nextWindow,
  previousWindow,
  splitLines,
  TAIL,
  windowLines,
  windowQuery,
  type LogChunk,
  type LogLines,
  type LogQuery,
  type LogWindow,
} from './paging.ts';

/** A log of `total` lines "line 1" ... "line n", cut as the API cuts it (core/logs/chunk.ts). */
function serve(total: number, query: LogQuery): LogChunk {
  const start = query.tail === undefined ? (query.offset ?? 1) - 1 : Math.max(0, total - query.tail);
  const end = query.tail === undefined ? Math.min(total, start + (query.limit ?? 1000)) : total;
  const lines = Array.from({ length: Math.max(0, end - start) }, (_, i) => `line ${String(start + i + 1)}`);
  return {
    content: lines.join('\n'),
    lineCount: lines.length,
    totalLines: total,
    hasMore: start < total && end < total,
    isEstimate: false,
  };
}

const view = (first: number, count: number, total: number): LogLines => ({
  first,
  lines: Array.from({ length: count }, (_, i) => `line ${String(first + i)}`),
  total,
  estimate: false,
});

describe('splitting a chunk into lines', () => {
  it.each<[string, string, string[]]>([
    ['the empty chunk has no lines', '', []],
    ['one line without a newline is a line', 'a', ['a']],
    ['a final newline ends the last line', 'a\nb\n', ['a', 'b']],
    ['empty lines in between are kept', 'a\n\nb', ['a', '', 'b']],
  ])('%s', (_, content, want) => {
    expect(splitLines(content)).toEqual(want);
  });
});

describe('windows of a log', () => {
  it.each<[string, LogWindow, LogQuery]>([
    ['the tail asks for the last page of lines', TAIL, { tail: 5_000 }],
    ['the head is the page at line 1', HEAD, { offset: 1, limit: 5_000 }],
    ['a short page asks for its own length', { kind: 'page', offset: 1, limit: 200 }, { offset: 1, limit: 200 }],
  ])('%s', (_, window, want) => {
    expect(windowQuery(window)).toEqual(want);
  });

  it.each<[string, LogWindow, number, [number, number]]>([
    ['the tail of 12,000 lines is lines 7,001 to 12,000', TAIL, 12_000, [7_001, 12_000]],
    ['the tail of a short log is all of it', TAIL, 30, [1, 30]],
    ['the head of 12,000 lines is lines 1 to 5,000', HEAD, 12_000, [1, 5_000]],
    [
      'a page at 10,001 of 12,000 lines is lines 10,001 to 12,000',
      { kind: 'page', offset: 10_001 },
      12_000,
      [10_001, 12_000],
    ],
  ])('%s', (_, window, total, [first, last]) => {
    const lines = windowLines(window, serve(total, windowQuery(window)));
    expect([lines.first, lastLine(lines), lines.lines[0]]).toEqual([first, last, `line ${String(first)}`]);
  });

  it('numbers the empty log from line 1, with no lines', () => {
    const lines = windowLines(TAIL, serve(0, { tail: 5_000 }));
    expect([lines.first, lines.lines, lines.total]).toEqual([1, [], 0]);
  });

  it.each<[string, LogLines, LogWindow | undefined]>([
    [
      'before the tail of 12,000 lines is the page 2,001 to 7,000',
      view(7_001, 5_000, 12_000),
      { kind: 'page', offset: 2_001 },
    ],
    [
      'before lines 2,001 to 7,000 are the 2,000 lines at the start',
      view(2_001, 5_000, 12_000),
      { kind: 'page', offset: 1, limit: 2_000 },
    ],
    ['before the head there is nothing', view(1, 5_000, 12_000), undefined],
  ])('%s', (_, shown, want) => {
    expect(previousWindow(shown)).toEqual(want);
  });

  it.each<[string, LogLines, LogWindow | undefined]>([
    [
      'after lines 1 to 2,000 of 12,000 is the page from 2,001',
      view(1, 2_000, 12_000),
      { kind: 'page', offset: 2_001 },
    ],
    ['after the last line there is nothing', view(7_001, 5_000, 12_000), undefined],
  ])('%s', (_, shown, want) => {
    expect(nextWindow(shown)).toEqual(want);
  });
});

describe('following a log that grows', () => {
  it('reads again from the last line held, and then as much as the API gives', () => {
    expect([followQuery(view(1, 30, 30)), followQuery(view(1, 0, 0))]).toEqual([
      { offset: 30, limit: 10_000 },
      { offset: 1, limit: 10_000 },
    ]);
  });

  it('appends the new lines after the ones held', () => {
    const held = view(1, 30, 30);
    const next = appendLines(held, serve(45, followQuery(held)));
    expect(next === 'restart' ? next : [next.first, lastLine(next), next.lines.at(-1), next.total]).toEqual([
      1,
      45,
      'line 45',
      45,
    ]);
  });

  it('replaces the last line when it was still being written', () => {
    const held: LogLines = { first: 1, lines: ['done', 'progr'], total: 2, estimate: false };
    const next = appendLines(held, {
      content: 'progress 100%\nfinished',
      lineCount: 2,
      totalLines: 3,
      hasMore: false,
      isEstimate: false,
    });
    expect(next === 'restart' ? next : next.lines).toEqual(['done', 'progress 100%', 'finished']);
  });

  it('starts again when the log shrank (a new attempt writes a new log)', () => {
    expect(appendLines(view(1, 30, 30), serve(4, { offset: 30, limit: 10_000 }))).toBe('restart');
  });

  it('starts again when the line read again is not the line held', () => {
    const held: LogLines = { first: 1, lines: ['attempt 1 says hi'], total: 1, estimate: false };
    expect(
      appendLines(held, {
        content: 'attempt 2 says hi\nmore',
        lineCount: 2,
        totalLines: 2,
        hasMore: false,
        isEstimate: false,
      }),
    ).toBe('restart');
  });

  it('starts again when the log grew by more than one read (back on a log left a while)', () => {
    const held = view(1, 30, 30);
    expect(appendLines(held, serve(20_000, followQuery(held)))).toBe('restart');
  });

  it('keeps no more than the cap, dropping the oldest lines and counting on from them', () => {
    const held = view(1, 90, 90);
    const next = appendLines(held, serve(120, followQuery(held)), 100);
    expect(next === 'restart' ? next : [next.first, next.lines.length, next.lines[0], lastLine(next)]).toEqual([
      21,
      100,
      'line 21',
      120,
    ]);
  });

  it('holds the same lines when nothing was written', () => {
    const held = view(7_001, 5_000, 12_000);
    const next = appendLines(held, serve(12_000, followQuery(held)));
    expect(next === 'restart' ? next : [next.first, lastLine(next)]).toEqual([7_001, 12_000]);
  });
});

describe('downloading a whole log', () => {
  it('reads 25,000 lines in three chunks of the largest limit, in order', async () => {
    const asked: LogQuery[] = [];
    const progress: [number, number][] = [];
    const text = await readWholeLog(
      (query) => {
        asked.push(query);
        return Promise.resolve(serve(25_000, query));
      },
      (done, total) => progress.push([done, total]),
    );
    const lines = splitLines(text);
    expect([asked, progress, lines.length, lines[0], lines.at(-1), text.endsWith('\n')]).toEqual([
      [
        { offset: 1, limit: 10_000 },
        { offset: 10_001, limit: 10_000 },
        { offset: 20_001, limit: 10_000 },
      ],
      [
        [10_000, 25_000],
        [20_000, 25_000],
        [25_000, 25_000],
      ],
      25_000,
      'line 1',
      'line 25000',
      true,
    ]);
  });

  it('reads the empty log once, as an empty file', async () => {
    expect(await readWholeLog((query) => Promise.resolve(serve(0, query)))).toBe('');
  });

  it('names the file after the run, step and stream, with nothing a file system could trip on', () => {
    expect(logFileName(['etl', '0192-ab', 'load data/part', 'stderr'])).toBe('etl.0192-ab.load_data_part.stderr.log');
  });
});

describe('a line as a terminal shows it', () => {
  it.each<[string, string, string]>([
    ['colours are dropped', '\u001b[31merror\u001b[0m: disk full', 'error: disk full'],
    ['a window title is dropped', '\u001b]0;title\u0007done', 'done'],
    ['a line redrawn with carriage returns shows its last drawing', '10%\r50%\r100%', '100%'],
    ['a Windows line ending is no redrawing', 'done\r', 'done'],
    ['plain text stays as it is', '  indented\ttext', '  indented\ttext'],
  ])('%s', (_, line, want) => {
    expect(displayLine(line)).toBe(want);
  });
});

import { describe, expect, it } from 'vitest';
import { logChunk } from './chunk.ts';

const text = Array.from({ length: 10 }, (_, i) => `line ${String(i + 1)}`).join('\n') + '\n';

describe('logChunk', () => {
  const cases = [
    {
      name: 'gives everything from line 1 by default',
      query: {},
      want: { first: 'line 1', lineCount: 10, hasMore: false },
    },
    {
      name: 'gives the last lines for tail, with earlier lines left out',
      query: { tail: 3 },
      want: { first: 'line 8', lineCount: 3, hasMore: true },
    },
    {
      name: 'gives the whole log for a tail longer than it, with nothing left out',
      query: { tail: 10 },
      want: { first: 'line 1', lineCount: 10, hasMore: false },
    },
    {
      name: 'gives the first lines for head, with more to come',
      query: { head: 4 },
      want: { first: 'line 1', lineCount: 4, hasMore: true },
    },
    {
      name: 'lets tail win over head and offset',
      query: { tail: 2, head: 5, offset: 3 },
      want: { first: 'line 9', lineCount: 2, hasMore: true },
    },
    {
      name: 'lets head win over offset',
      query: { head: 2, offset: 5 },
      want: { first: 'line 1', lineCount: 2, hasMore: true },
    },
    {
      name: 'reads a 1-based offset and limit window',
      query: { offset: 4, limit: 3 },
      want: { first: 'line 4', lineCount: 3, hasMore: true },
    },
    {
      name: 'gives nothing past the end',
      query: { offset: 50 },
      want: { first: undefined, lineCount: 0, hasMore: false },
    },
    {
      name: 'ignores a limit with tail',
      query: { tail: 5, limit: 1 },
      want: { first: 'line 6', lineCount: 5, hasMore: true },
    },
  ];
  it.each(cases)('$name', ({ query, want }) => {
    const chunk = logChunk(text, query);
    expect({
      first: chunk.content === '' ? undefined : chunk.content.split('\n')[0],
      lineCount: chunk.lineCount,
      hasMore: chunk.hasMore,
    }).toEqual(want);
    expect(chunk.totalLines).toBe(10);
    expect(chunk.content.endsWith('\n')).toBe(false);
    expect(chunk.isEstimate).toBe(false);
  });

  it('caps the limit at 10,000 lines', () => {
    const big = Array.from({ length: 12_000 }, () => 'x').join('\n');
    expect(logChunk(big, { limit: 50_000 }).lineCount).toBe(10_000);
    expect(logChunk(big).lineCount).toBe(1000);
  });

  it('counts an empty log as no lines', () => {
    expect(logChunk('')).toEqual({ content: '', lineCount: 0, totalLines: 0, hasMore: false, isEstimate: false });
  });
});

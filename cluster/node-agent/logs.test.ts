import { describe, expect, it } from 'vitest';
import { parseLogLine, selectLines, type LogLine } from './logs.ts';

const line = (time: string, text: string, stream: 'stdout' | 'stderr' = 'stdout'): LogLine => ({ time, stream, text });
const lines = [line('2026-01-01T00:00:00.000000000Z', 'one'), line('2026-01-01T00:00:10.000000000Z', 'two', 'stderr'), line('2026-01-01T00:00:20.000000000Z', 'three')];
const now = Date.parse('2026-01-01T00:00:25Z');

describe('selectLines, the kubelet log options', () => {
  const cases: { name: string; query: Parameters<typeof selectLines>[1]; want: string }[] = [
    { name: 'gives every line by default, both streams', query: {}, want: 'one\ntwo\nthree\n' },
    { name: 'keeps the last N lines with tailLines', query: { tailLines: 2 }, want: 'two\nthree\n' },
    { name: 'gives nothing for tailLines 0', query: { tailLines: 0 }, want: '' },
    { name: 'keeps lines newer than sinceSeconds', query: { sinceSeconds: 10 }, want: 'three\n' },
    { name: 'keeps lines from sinceTime on', query: { sinceTime: '2026-01-01T00:00:10Z' }, want: 'two\nthree\n' },
    { name: 'cuts the output at limitBytes', query: { limitBytes: 6 }, want: 'one\ntw' },
    { name: 'prefixes timestamps on request', query: { timestamps: true, tailLines: 1 }, want: '2026-01-01T00:00:20Z three\n' },
  ];
  it.each(cases)('$name', ({ query, want }) => {
    expect(selectLines(lines, query, now)).toBe(want);
  });
});

describe('parseLogLine', () => {
  it('reads the CRI format and keeps spaces in the text', () => {
    expect(parseLogLine('2026-01-01T00:00:00.1Z stderr F  two  spaces')).toEqual({ time: '2026-01-01T00:00:00.1Z', stream: 'stderr', text: ' two  spaces' });
  });

  it('refuses other text', () => {
    expect(parseLogLine('garbage')).toBeUndefined();
  });
});

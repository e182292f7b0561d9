import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../core/kube/time.ts';
import { criTime, LogWriter, parseLogLine, selectLines, type LogLine } from './logs.ts';

const line = (time: string, text: string, stream: 'stdout' | 'stderr' = 'stdout'): LogLine => ({ time, stream, text });
const lines = [
  line('2026-01-01T00:00:00.000000000Z', 'one'),
  line('2026-01-01T00:00:10.000000000Z', 'two', 'stderr'),
  line('2026-01-01T00:00:20.000000000Z', 'three'),
];
const now = Date.parse('2026-01-01T00:00:25Z');

describe('selectLines, the kubelet log options', () => {
  const cases: { name: string; query: Parameters<typeof selectLines>[1]; want: string }[] = [
    { name: 'gives every line by default, both streams', query: {}, want: 'one\ntwo\nthree\n' },
    { name: 'keeps the last N lines with tailLines', query: { tailLines: 2 }, want: 'two\nthree\n' },
    { name: 'gives nothing for tailLines 0', query: { tailLines: 0 }, want: '' },
    { name: 'keeps lines newer than sinceSeconds', query: { sinceSeconds: 10 }, want: 'three\n' },
    { name: 'keeps lines from sinceTime on', query: { sinceTime: '2026-01-01T00:00:10Z' }, want: 'two\nthree\n' },
    { name: 'cuts the output at limitBytes', query: { limitBytes: 6 }, want: 'one\ntw' },
    {
      name: 'prefixes timestamps on request',
      query: { timestamps: true, tailLines: 1 },
      want: '2026-01-01T00:00:20Z three\n',
    },
  ];
  it.each(cases)('$name', ({ query, want }) => {
    expect(selectLines(lines, query, now)).toBe(want);
  });
});

describe('parseLogLine', () => {
  it('reads the CRI format and keeps spaces in the text', () => {
    expect(parseLogLine('2026-01-01T00:00:00.1Z stderr F  two  spaces')).toEqual({
      time: '2026-01-01T00:00:00.1Z',
      stream: 'stderr',
      text: ' two  spaces',
    });
  });

  it('keeps a carriage return at the end of the text', () => {
    expect(parseLogLine('2026-01-01T00:00:00.1Z stdout F Content-Type: text/plain\r')?.text).toBe(
      'Content-Type: text/plain\r',
    );
  });

  it('refuses other text', () => {
    expect(parseLogLine('garbage')).toBeUndefined();
  });
});

describe('LogWriter, the CRI log file of a container', () => {
  it('stamps each line with the clock time as the kubelet writes it and keeps the streams apart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kubedag-logs-'));
    try {
      const clock: Clock = { now: () => new Date('2026-01-01T00:00:20.5Z') };
      const writer = new LogWriter(join(dir, 'main-0.log'), clock);
      const stdout = Readable.from([Buffer.from('one\ntw'), Buffer.from('o\n')]);
      const stderr = Readable.from([Buffer.from('no newline')]);
      writer.attach(stdout, 'stdout');
      writer.attach(stderr, 'stderr');
      await Promise.all([finished(stdout), finished(stderr)]);
      await writer.close();
      expect((await readFile(join(dir, 'main-0.log'), 'utf8')).split('\n').sort()).toEqual([
        '',
        '2026-01-01T00:00:20.500000000Z stderr F no newline',
        '2026-01-01T00:00:20.500000000Z stdout F one',
        '2026-01-01T00:00:20.500000000Z stdout F two',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('criTime', () => {
  const cases: { name: string; time: string; want: string }[] = [
    {
      name: 'pads milliseconds to nine fractional digits',
      time: '2026-01-01T00:00:00.123Z',
      want: '2026-01-01T00:00:00.123000000Z',
    },
    {
      name: 'writes a whole second with a zero fraction',
      time: '2026-01-01T00:00:00Z',
      want: '2026-01-01T00:00:00.000000000Z',
    },
  ];
  it.each(cases)('$name', ({ time, want }) => {
    expect(criTime(new Date(time))).toBe(want);
  });
});

import { describe, expect, it } from 'vitest';
import { logChunk, MAX_LIMIT } from '../../core/logs/chunk.ts';
import type { LogReader, LogRef } from '../cluster.ts';
import { downloadName, firstPage, logLines, safeFileName } from './downloads.ts';

const REF: LogRef = { dagName: 'd', dagRunId: 'r', step: 's', attempt: 0, stream: 'stdout' };

/** A log reader over one text, cutting chunks as the operator's endpoint does; counts its reads. */
function readerOf(text: string | undefined): LogReader & { reads: number } {
  return {
    reads: 0,
    read(_ref, query) {
      this.reads += 1;
      return Promise.resolve(text === undefined ? undefined : logChunk(text, query));
    },
  };
}

async function all(reader: LogReader): Promise<string> {
  let text = '';
  for await (const page of logLines(reader, REF, await firstPage(reader, REF))) text += page;
  return text;
}

describe('log downloads', () => {
  it("names files as Dagu does, every unsafe character as '_'", () => {
    expect(safeFileName('a b/c:d.é')).toBe('a_b_c_d._');
    expect(downloadName({ name: 'etl', dagRunId: 'r1' })).toBe('etl-r1-scheduler.log');
    expect(downloadName({ name: 'etl', dagRunId: 'r1', subDAGRunId: 's 2' })).toBe('etl-r1-sub-s_2-scheduler.log');
    expect(
      downloadName({ name: 'etl', dagRunId: 'r1', subDAGRunId: 's2', step: { name: 'load/x', stream: 'stderr' } }),
    ).toBe('etl-r1-sub-s2-load_x-stderr.log');
  });

  it('reads a log page by page, each page the most lines a read returns, and ends every line', async () => {
    const lines = Array.from({ length: 2 * MAX_LIMIT + 5 }, (_, i) => String(i + 1));
    const reader = readerOf(`${lines.join('\n')}\n`);
    expect(await all(reader)).toBe(`${lines.join('\n')}\n`);
    expect(reader.reads).toBe(3);
  });

  it('stops after a page that fills a read exactly, and gives nothing for an empty or missing log', async () => {
    const exact = readerOf(Array.from({ length: MAX_LIMIT }, () => 'x').join('\n'));
    expect((await all(exact)).length).toBe(2 * MAX_LIMIT);
    expect(exact.reads).toBe(1);
    expect(await all(readerOf(''))).toBe('');
    expect(await all(readerOf(undefined))).toBe('');
  });
});

import { describe, expect, it } from 'vitest';
import type { HistorySummary } from '../../core/history/types.ts';
import { summaryOf, archiveRecord } from '../../core/history/record.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { finished } from '../../test/builders/history-run.ts';
import { dag as aDag } from '../../test/builders/dag.ts';
import { historyFilter, isStoredRow, latestFromStatus, storedSummary, summaryResource } from './archived.ts';
import { mergedRuns, summaryChunks } from './run-listing.ts';
import { filterRuns, runSummary } from './runs.ts';

/** The summary row the store keeps of a finished run. */
const rowOf = (run: DagRunResource, dagName: string): HistorySummary => summaryOf(archiveRecord({ dagName, run }).row);

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

const T = Date.UTC(2026, 10, 1);

describe('a summary row as a DAGRun', () => {
  it('summarises as the DAGRun it was archived from, params and times included, and under a relisted name', () => {
    const run = finished('ns', 'etl', 'r1').at(T).status(2).params('["A=1"]').build().run;
    expect(runSummary(summaryResource(rowOf(run, 'etl')))).toEqual(runSummary(run));
    expect(runSummary(summaryResource(rowOf(run, 'etl-renamed'))).name).toBe('etl-renamed');
  });
});

describe("a summary row's list item", () => {
  it('is what the row as a DAGRun summarises to, for root and sub runs, with and without times, params and fractions of seconds', () => {
    const root = finished('ns', 'etl', 'r1')
      .at(T + 123)
      .status(2)
      .params('["A=1"]')
      .build().run;
    const sub = finished('ns', 'child', 'c1')
      .at(T + 5)
      .build().run;
    const subRow: HistorySummary = {
      ...rowOf(sub, 'child'),
      root: { name: 'etl', dagRunId: 'r1' },
      parent: { name: 'etl', dagRunId: 'r1' },
    };
    const bare: HistorySummary = {
      ...rowOf(root, 'etl-renamed'),
      queuedAt: '',
      startedAt: '',
      finishedAt: '2026-11-01T00:00:07.999Z',
      params: '',
      statusLabel: '',
    };
    for (const row of [rowOf(root, 'etl'), subRow, bare])
      expect(storedSummary(row)).toEqual(runSummary(summaryResource(row)));
    expect([
      storedSummary(subRow).rootDAGRunId,
      storedSummary(subRow).parentDAGRunName,
      storedSummary(bare).finishedAt,
    ]).toEqual(['r1', 'etl', '2026-11-01T00:00:07Z']);
  });
});

describe('the API filter as the store filter', () => {
  it('turns seconds into ms at both ends and leaves out empty text', () => {
    expect(
      historyFilter('ns', { name: 'etl', exactName: true, status: 4, fromDate: 10, toDate: 20, dagRunId: '' }),
    ).toEqual({ namespace: 'ns', name: 'etl', exactName: true, status: 4, createdFrom: 10_000, createdTo: 20_000 });
    expect(historyFilter('ns', { name: '' })).toEqual({ namespace: 'ns' });
  });
});

describe('merging the informer with the store', () => {
  it('yields both newest first, ties by run id, and a stored run the informer has only once (the informer copy)', async () => {
    const live = [0, 2, 4, 6].map(
      (i) =>
        finished('ns', 'etl', `live-${String(i)}`)
          .at(T + i * 1000)
          .build().run,
    );
    const stored = [1, 3, 5, 7].map(
      (i) =>
        finished('ns', 'etl', `old-${String(i)}`)
          .at(T + i * 1000)
          .build().run,
    );
    const both = finished('ns', 'etl', 'live-6')
      .at(T + 6000)
      .status(2)
      .build().run;
    const rows = filterRuns([...stored, both], {}).map((r) => rowOf(r, 'etl'));
    const pages = [rows.slice(0, 2), rows.slice(2)];
    const merged = await collect(mergedRuns(filterRuns(live, {}), pages, (s) => s.dagRunId.startsWith('live')));
    const idOf = (r: (typeof merged)[number]): string | undefined => (isStoredRow(r) ? r.dagRunId : r.spec.dagRunId);
    expect(merged.map((r) => [idOf(r), isStoredRow(r) ? 'store' : 'informer'])).toEqual([
      ['old-7', 'store'],
      ['live-6', 'informer'],
      ['old-5', 'store'],
      ['live-4', 'informer'],
      ['old-3', 'store'],
      ['live-2', 'informer'],
      ['old-1', 'store'],
      ['live-0', 'informer'],
    ]);
    expect(merged.find((r) => idOf(r) === 'live-6')).toBe(live[3]);
  });
});

describe('the streamed merge', () => {
  it('asks the store for a page only when the answer has used the one before: the first 64 KiB of 40 pages of 500 rows read the first page only', async () => {
    const template = rowOf(finished('ns', 'etl', 'x').at(T).build().run, 'etl');
    let pulled = 0;
    async function* pages(): AsyncGenerator<HistorySummary[]> {
      for (let page = 0; page < 40; page++) {
        pulled += 1;
        await Promise.resolve();
        yield Array.from({ length: 500 }, (_, i) => ({
          ...template,
          dagRunId: `r-${String(page * 500 + i).padStart(6, '0')}`,
          createdAt: new Date(T - (page * 500 + i) * 1000).toISOString(),
        }));
      }
    }
    const chunks = summaryChunks(mergedRuns([], pages(), () => false));
    const firstChunk = await chunks.next();
    expect([firstChunk.done, pulled]).toEqual([false, 1]);
    let rest = 0;
    for await (const chunk of chunks) rest += chunk.length;
    expect([pulled, rest > 0]).toEqual([40, true]);
  });
});

describe("a DAG's latest run from its status", () => {
  it('is a summary with the status fields and no queue time or params; none when the status has none', () => {
    const dag = aDag('etl')
      .namespace('ns')
      .status({
        latestRun: {
          resourceName: 'etl-r9',
          dagRunId: 'r9',
          status: 4,
          statusLabel: 'succeeded',
          startedAt: '2026-11-01T00:00:01Z',
          finishedAt: '2026-11-01T00:01:01Z',
        },
      })
      .build();
    const summary = runSummary(latestFromStatus(dag, 'etl') as DagRunResource);
    expect([
      summary.dagRunId,
      summary.name,
      summary.status,
      summary.startedAt,
      summary.finishedAt,
      summary.queuedAt,
      summary.params,
    ]).toEqual(['r9', 'etl', 4, '2026-11-01T00:00:01Z', '2026-11-01T00:01:01Z', '', '']);
    expect(latestFromStatus({ ...dag, status: {} }, 'etl')).toBeUndefined();
  });
});

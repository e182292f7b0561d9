import { describe, expect, it } from 'vitest';
import type { DagRunResource } from '../../core/resources/types.ts';
import { dagRun } from '../../test/builders/dag-run.ts';
import { RunIndex } from '../run-index.ts';
import { candidates, listRuns, summaryChunks } from './run-listing.ts';
import { filterRuns, runSummary, type RunFilter } from './runs.ts';

const DAY = 86_400_000;
const start = Date.parse('2026-11-01T00:00:00Z');

/** 600 root runs of 12 DAGs over 30 days, with every status, and a sub run of each tenth. */
function history(): { index: RunIndex; all: DagRunResource[] } {
  const runs = new Map<string, DagRunResource>();
  const index = new RunIndex((name) => runs.get(name));
  const all: DagRunResource[] = [];
  for (let i = 0; i < 600; i++) {
    const dag = `dag-${String(i % 12)}${i % 5 === 0 ? '-nightly' : ''}`;
    const run = dagRun(`r${String(i)}`)
      .namespace('ns')
      .created(new Date(start + (i % 30) * DAY + i * 1000))
      .spec({ dagName: dag, dagRunId: `id-${String(i)}` })
      .status({ status: i % 7, statusLabel: 'x' })
      .build();
    runs.set(`r${String(i)}`, run);
    index.update(run, false);
    all.push(run);
    if (i % 10 === 0) {
      const sub = dagRun(`sub${String(i)}`)
        .namespace('ns')
        .spec({ dagName: 'child', dagRunId: `s-${String(i)}` })
        .child([dag, `id-${String(i)}`])
        .status({ status: 4 })
        .build();
      runs.set(`sub${String(i)}`, sub);
      index.update(sub, false);
    }
  }
  return { index, all };
}

describe('listing runs from the index', () => {
  const { index, all } = history();
  const filters: [string, RunFilter][] = [
    ['no filter', {}],
    ['a name part', { name: 'nightly' }],
    ['an exact name', { name: 'dag-3', exactName: true }],
    ['a status', { status: 2 }],
    ['a day range', { fromDate: (start + 3 * DAY) / 1000, toDate: (start + 5 * DAY + 3600_000) / 1000 }],
    ['from a day on', { fromDate: (start + 28 * DAY) / 1000 }],
    ['a status and a name', { status: 4, name: 'dag-1' }],
    ['a run id part', { dagRunId: 'id-59' }],
  ];

  it.each(filters)('finds what a scan of every run finds: %s', (_label, filter) => {
    expect(listRuns(index, filter)).toEqual(filterRuns(all, filter));
  });

  it('reads only the runs that can match when the filter names a DAG, a status or days', () => {
    expect(candidates(index, { name: 'dag-3', exactName: true })).toHaveLength(40);
    expect(candidates(index, { status: 2 }).length).toBeLessThan(all.length / 5);
    expect(candidates(index, { fromDate: (start + 28 * DAY) / 1000 }).length).toBeLessThan(all.length / 10);
  });

  it('moves a run between indexes when its status changes and forgets it when it goes', () => {
    const { index: live, all: runs } = history();
    const run = runs[1] as DagRunResource;
    live.update({ ...run, status: { status: 4 } }, false);
    expect(live.runsWithStatus(1).some((r) => r.metadata?.name === 'r1')).toBe(false);
    live.update(run, true);
    expect(live.runsOf(run.spec.dagName ?? '').some((r) => r.metadata?.name === 'r1')).toBe(false);
  });
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describe('the streamed answer', () => {
  it('is the JSON of the whole answer, in batches', async () => {
    const { all } = history();
    const sorted = filterRuns(all, {});
    const chunks = await collect(summaryChunks(sorted));
    expect(chunks.length).toBeGreaterThan(1);
    expect(JSON.parse(chunks.join(''))).toEqual({ dagRuns: sorted.map(runSummary) });
    expect(JSON.parse((await collect(summaryChunks([]))).join(''))).toEqual({ dagRuns: [] });
  });
});

/**
 * GET /dag-runs and GET /dag-runs/{name}: which runs can match a filter, read from the run
 * index (by DAG name, status or creation day) rather than by scanning every run, and the
 * answer written as a stream of JSON text, a batch of summaries at a time, so that the answer
 * is never built whole in memory however much history is kept. Pure but for the stream.
 */
import { Readable } from 'node:stream';
import type { HistorySummary } from '../../core/history/types.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import type { RunIndex } from '../run-index.ts';
import { isStoredRow, storedIsOlder, storedSummary, summaryOrder, type ListedRun } from './archived.ts';
import { filterRuns, runSummary, type RunFilter } from './runs.ts';

/** Bytes of JSON text gathered before they are handed to the connection. */
const BATCH_BYTES = 64 * 1024;

/**
 * The runs a filter can match: those of matching DAG names when it names one, else those with
 * its status, else those created on its days, else all. The rest of the filter is applied after.
 */
export function candidates(index: RunIndex, filter: RunFilter): DagRunResource[] {
  const { name } = filter;
  if (name !== undefined && name !== '') {
    const names = filter.exactName === true ? [name] : index.dagNames().filter((n) => n.includes(name));
    return names.flatMap((n) => index.runsOf(n));
  }
  if (filter.status !== undefined) return index.runsWithStatus(filter.status);
  if (filter.fromDate !== undefined || filter.toDate !== undefined) {
    return index.runsCreatedBetween(
      filter.fromDate === undefined ? undefined : filter.fromDate * 1000,
      filter.toDate === undefined ? undefined : filter.toDate * 1000,
    );
  }
  return index.dagNames().flatMap((n) => index.runsOf(n));
}

/** The matching runs, newest first (behaviour-notes "Runs"). */
export function listRuns(index: RunIndex, filter: RunFilter): DagRunResource[] {
  return filterRuns(candidates(index, filter), filter);
}

/**
 * The informer's matching runs (newest first, already in memory: the informer holds them) and
 * the store's (newest first, a page at a time) as one sequence newest first. A stored run the
 * informer also has is left out whatever its fields: the informer's copy is the current one
 * (a run put back for a retry, or archived a moment before its DAGRun goes), and it was
 * listed, or filtered out, on its own fields. Memory: the informer's list and one page.
 */
export async function* mergedRuns(
  local: readonly DagRunResource[],
  stored: AsyncIterable<readonly HistorySummary[]> | Iterable<readonly HistorySummary[]>,
  inInformer: (summary: HistorySummary) => boolean,
): AsyncGenerator<ListedRun> {
  let next = 0;
  for await (const page of stored) {
    for (const summary of page) {
      if (inInformer(summary)) continue;
      if (next < local.length) {
        // Only while informer runs are left to place: most of a long listing is the store's alone.
        const order = summaryOrder(summary);
        for (; next < local.length && storedIsOlder(local[next] as DagRunResource, order); next++)
          yield local[next] as DagRunResource;
      }
      yield summary;
    }
  }
  for (; next < local.length; next++) yield local[next] as DagRunResource;
}

/** `{"dagRuns":[...]}` as text chunks; each summary is serialised only when its turn comes. */
export async function* summaryChunks(runs: Iterable<ListedRun> | AsyncIterable<ListedRun>): AsyncGenerator<string> {
  let batch = '{"dagRuns":[';
  let first = true;
  for await (const run of runs) {
    batch += `${first ? '' : ','}${JSON.stringify(isStoredRow(run) ? storedSummary(run) : runSummary(run))}`;
    first = false;
    if (batch.length >= BATCH_BYTES) {
      yield batch;
      batch = '';
    }
  }
  yield `${batch}]}`;
}

export function summaryStream(runs: Iterable<ListedRun> | AsyncIterable<ListedRun>): Readable {
  return Readable.from(summaryChunks(runs), { objectMode: false });
}

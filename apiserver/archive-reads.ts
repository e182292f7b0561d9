/**
 * Runs the contract addresses, found in the informer (active and recent runs, as always) or,
 * failing that, in the history store the operator archives finished runs into
 * (docs/decisions/2026-11-28-history-reads.md). The informer's copy always wins: a run is in
 * both for the moment between its archiving and its DAGRun's deletion, and after a retry put it
 * back. An archived run's resource holds every step record and its frozen definition, so the
 * views read it as they read a live one; only it is never expanded from segments (it has none).
 */
import type { HistoryReader, HistorySummary, RunKey, RunName } from '../core/history/types.ts';
import type { DagRunResource } from '../core/resources/types.ts';
import { ApiError } from './errors.ts';
import {
  historyFilter,
  isStoredRow,
  summaryOrder,
  summaryResource,
  storedIsOlder,
  type ListedRun,
} from './views/archived.ts';
import { listRuns, mergedRuns } from './views/run-listing.ts';
import { newestFirst, type RunFilter } from './views/runs.ts';
import { runIdentity } from './views/identity.ts';
import type { Cache } from './cache.ts';
import type { RunRecords } from './records.ts';

/** What the lookups read: the informer's runs and, when one is configured, the store. */
export interface RunSources {
  readonly cache: Cache;
  readonly records: RunRecords;
  readonly history?: HistoryReader;
}

/** Resources read from the store: weakly held, so marking one costs nothing once it is answered. */
const fromStore = new WeakSet<DagRunResource>();

export function isArchived(run: DagRunResource): boolean {
  return fromStore.has(run);
}

async function storedRun(sources: RunSources, key: RunKey): Promise<DagRunResource | undefined> {
  const found = await sources.history?.run(key);
  if (found === undefined) return undefined;
  fromStore.add(found.resource);
  return found.resource;
}

/** Several archived runs of the namespace served, whole and in one read, in the order asked, marked as storedRun marks one. */
async function storedRuns(sources: RunSources, keys: readonly RunName[]): Promise<(DagRunResource | undefined)[]> {
  const found = (await sources.history?.runs(sources.cache.namespace, keys)) ?? [];
  return keys.map((_key, i) => {
    const resource = found[i]?.resource;
    if (resource !== undefined) fromStore.add(resource);
    return resource;
  });
}

/** The DAG's newest root run in the informer, from its run index (one pass per generation, kept). */
export type LatestLive = (name: string) => DagRunResource | undefined;

/**
 * The newest root run of a DAG across both sources. The store is asked even when the informer
 * has runs: a long run still in etcd can be older than one archived after it.
 */
export async function latestRoot(
  sources: RunSources,
  latestLive: LatestLive,
  name: string,
): Promise<DagRunResource | undefined> {
  const live = latestLive(name);
  const stored = await sources.history?.latest(sources.cache.namespace, name);
  if (stored === undefined || sources.cache.runIndex.run(name, stored.dagRunId) !== undefined) return live;
  if (live !== undefined && !storedIsOlder(live, summaryOrder(stored))) return live;
  return (
    (await storedRun(sources, { namespace: sources.cache.namespace, dagName: name, dagRunId: stored.dagRunId })) ?? live
  );
}

/** A root run by DAG name and id (`latest`: the newest), or the contract's 404. */
export async function findRoot(
  sources: RunSources,
  latestLive: LatestLive,
  name: string,
  dagRunId: string,
): Promise<DagRunResource> {
  const run =
    dagRunId === 'latest'
      ? await latestRoot(sources, latestLive, name)
      : (sources.cache.runIndex.run(name, dagRunId) ??
        (await storedRun(sources, { namespace: sources.cache.namespace, dagName: name, dagRunId })));
  if (run === undefined)
    throw new ApiError(
      'not_found',
      dagRunId === 'latest' ? `DAG "${name}" has no runs` : `run "${dagRunId}" of DAG "${name}" not found`,
    );
  return run;
}

/**
 * The names a root run's sub runs may file it under: the name it is listed under now, and the
 * one its spec was written with (a sub run archived after its root was relisted in etcd still
 * names the root by its first name).
 */
function rootNames(root: DagRunResource): RunName[] {
  const id = runIdentity(root);
  const names = new Set([id.name, root.spec.dagName ?? id.name]);
  return [...names].map((name) => ({ name, dagRunId: id.dagRunId }));
}

/** A sub run (any depth) of an archived root run, by its own id: archived with its root. */
export async function storedSubRun(
  sources: RunSources,
  root: DagRunResource,
  subRunId: string,
): Promise<DagRunResource> {
  const roots = rootNames(root);
  const rows = (await sources.history?.withRunId(sources.cache.namespace, subRunId)) ?? [];
  const row = rows.find(
    (r) => r.parent !== undefined && roots.some((n) => n.name === r.root.name && n.dagRunId === r.root.dagRunId),
  );
  const found =
    row === undefined
      ? undefined
      : await storedRun(sources, { namespace: row.namespace, dagName: row.dagName, dagRunId: row.dagRunId });
  if (found === undefined)
    throw new ApiError('not_found', `sub run "${subRunId}" of run "${runIdentity(root).dagRunId}" not found`);
  return found;
}

/**
 * Resolves the sub run ids an archived run's nodes name, from the summary rows of its root's
 * sub runs, read page by page. Held for one answer: as many small rows as the run has sub runs,
 * as the informer's descendants are for a live run.
 */
export async function storedResolver(
  sources: RunSources,
  run: DagRunResource,
): Promise<(dagRunId: string) => DagRunResource | undefined> {
  const id = runIdentity(run);
  const root = run.spec.root === undefined ? rootNames(run) : [run.spec.root];
  const byId = new Map<string, DagRunResource>();
  for (const name of root) {
    for await (const page of sources.history?.subRuns(sources.cache.namespace, name) ?? [])
      for (const summary of page) byId.set(summary.dagRunId, summaryResource(summary));
  }
  byId.delete(id.dagRunId);
  return (dagRunId) => byId.get(dagRunId);
}

/** The run with every step record in its status: an archived run has them already. */
export async function withRecords(sources: RunSources, run: DagRunResource): Promise<DagRunResource> {
  return isArchived(run) ? run : sources.records.expand(run);
}

/** Whether a stored row is the informer's run too (whose copy is the one to answer). */
function inInformer(cache: Cache): (summary: HistorySummary) => boolean {
  return (summary) => cache.runIndex.run(summary.dagName, summary.dagRunId) !== undefined;
}

/**
 * GET /dag-runs: the informer's matches and the store's, newest first, streamed as the store
 * pages. The first page is read before the answer starts, so a store that cannot be read is an
 * error answer of the contract's shape rather than a stream cut short.
 */
export async function matchingRuns(
  sources: RunSources,
  filter: RunFilter,
): Promise<DagRunResource[] | AsyncIterable<ListedRun>> {
  const local = listRuns(sources.cache.runIndex, filter);
  const { history } = sources;
  if (history === undefined) return local;
  const pages = history.list(historyFilter(sources.cache.namespace, filter))[Symbol.asyncIterator]();
  const first = await pages.next();
  async function* all(): AsyncGenerator<readonly HistorySummary[]> {
    for (let page = first; page.done !== true; page = await pages.next()) yield page.value;
  }
  return mergedRuns(local, all(), inInformer(sources.cache));
}

/**
 * A DAG's newest root runs, at most `limit`, newest first (a DAG's history): the informer's and
 * the store's `runsOf` (one query), the archived ones then read whole, together, as their
 * details need every record.
 */
export async function recentRoots(sources: RunSources, name: string, limit: number): Promise<DagRunResource[]> {
  const live = sources.cache.runIndex.runsOf(name).sort(newestFirst).slice(0, limit);
  const { history } = sources;
  if (history === undefined) return live;
  const stored = await history.runsOf(sources.cache.namespace, name, limit);
  const picked: ListedRun[] = [];
  for await (const run of mergedRuns(live, [stored], inInformer(sources.cache))) {
    if (picked.length === limit) break;
    picked.push(run);
  }
  // In one batch: `limit` is a page of a DAG's history (tens), and a read one at a time is a
  // round trip each to the store (or through the operator).
  const archived = picked.filter(isStoredRow);
  const read = await storedRuns(
    sources,
    archived.map((row) => ({ name, dagRunId: row.dagRunId })),
  );
  const byRow = new Map(archived.map((row, i) => [row, read[i]]));
  return picked
    .map((run) => (isStoredRow(run) ? byRow.get(run) : run))
    .filter((run): run is DagRunResource => run !== undefined);
}

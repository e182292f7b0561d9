/**
 * Archived runs (core/history) in the shapes the views already read, so that a run answers the
 * same JSON whether the informer or the history store holds it: a summary row as the DAGRun
 * fields a summary reads, a DAG's `status.latestRun` likewise, and the API's run filter as the
 * store's. Pure.
 */
import type { HistoryFilter, HistorySummary } from '../../core/history/types.ts';
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import type { DagResource, DagRunResource } from '../../core/resources/types.ts';
import { compareText, instant, iso, runLogPath } from './format.ts';
import { runIdentity } from './identity.ts';
import type { RunFilter, RunSummary } from './runs.ts';

const set = (key: string, value: string): Record<string, string> => (value === '' ? {} : { [key]: value });

/**
 * The DAGRun fields runSummary, nodeView's sub run status and the sub run list read, from a
 * summary row. The DAG name goes in the rename annotation because a row is filed under the name
 * the run is listed under, which a rename may have changed since its spec was written.
 */
export function summaryResource(summary: HistorySummary): DagRunResource {
  const isSub = summary.parent !== undefined;
  return {
    metadata: {
      name: summary.resourceName,
      namespace: summary.namespace,
      uid: summary.uid,
      ...(summary.createdAt === '' ? {} : { creationTimestamp: summary.createdAt as unknown as Date }),
      annotations: { [ANNOTATIONS.dagName]: summary.dagName },
    },
    spec: {
      dagName: summary.dagName,
      dagRunId: summary.dagRunId,
      ...(isSub ? { root: summary.root, parent: summary.parent } : {}),
    },
    status: {
      status: summary.status,
      statusLabel: summary.statusLabel,
      ...set('queuedAt', summary.queuedAt),
      ...set('startedAt', summary.startedAt),
      ...set('finishedAt', summary.finishedAt),
      params: summary.params,
    },
  };
}

/**
 * The list item of a summary row, straight from its fields: what runSummary(summaryResource(row))
 * gives (a test holds them equal), without the DAGRun-shaped objects and their memo entries, which
 * a day's listing of thousands of stored runs would make and drop again.
 */
export function storedSummary(summary: HistorySummary): RunSummary {
  const { dagName, dagRunId, parent } = summary;
  const root = parent === undefined ? { name: dagName, dagRunId } : summary.root;
  return {
    rootDAGRunName: root.name,
    rootDAGRunId: root.dagRunId,
    parentDAGRunName: parent?.name ?? '',
    parentDAGRunId: parent?.dagRunId ?? '',
    dagRunId,
    name: dagName,
    status: summary.status,
    statusLabel: summary.statusLabel,
    queuedAt: iso(summary.queuedAt),
    startedAt: iso(summary.startedAt),
    finishedAt: iso(summary.finishedAt),
    log: runLogPath(dagName, dagRunId),
    params: summary.params,
  };
}

/** A run as a listing meets it: a DAGRun (the informer's, or read whole) or a store's summary row. */
export type ListedRun = DagRunResource | HistorySummary;

export function isStoredRow(run: ListedRun): run is HistorySummary {
  return 'resourceName' in run;
}

/**
 * A DAG's newest run as the operator keeps it in the DAG's status once no DAGRun of the DAG is
 * left, for the DAG list: one field of a cached object per DAG instead of a query per DAG,
 * with the summary fields the list item shows.
 */
export function latestFromStatus(dag: DagResource, dagName: string): DagRunResource | undefined {
  const latest = dag.status?.latestRun;
  if (latest === undefined || latest.dagRunId === '') return undefined;
  return {
    metadata: {
      name: latest.resourceName,
      ...(dag.metadata?.namespace === undefined ? {} : { namespace: dag.metadata.namespace }),
      annotations: { [ANNOTATIONS.dagName]: dagName },
    },
    spec: { dagName, dagRunId: latest.dagRunId },
    status: {
      status: latest.status,
      statusLabel: latest.statusLabel,
      ...(latest.queuedAt === undefined ? {} : { queuedAt: latest.queuedAt }),
      ...(latest.startedAt === undefined ? {} : { startedAt: latest.startedAt }),
      ...(latest.finishedAt === undefined ? {} : { finishedAt: latest.finishedAt }),
      ...(latest.params === undefined ? {} : { params: latest.params }),
    },
  };
}

const given = (text: string | undefined): text is string => text !== undefined && text !== '';

/** The API's filter (dates in Unix seconds, both inclusive) as the store's (ms, both inclusive). */
export function historyFilter(namespace: string, filter: RunFilter): HistoryFilter {
  return {
    namespace,
    ...(given(filter.name) ? { name: filter.name, ...(filter.exactName === true ? { exactName: true } : {}) } : {}),
    ...(filter.status === undefined ? {} : { status: filter.status }),
    // The informer compares creation ms / 1000 with seconds; ms against seconds * 1000 is the same test.
    ...(filter.fromDate === undefined ? {} : { createdFrom: filter.fromDate * 1000 }),
    ...(filter.toDate === undefined ? {} : { createdTo: filter.toDate * 1000 }),
    ...(given(filter.dagRunId) ? { dagRunId: filter.dagRunId } : {}),
  };
}

/** Where a summary row sorts among runs: creation ms and run id, as newestFirst orders DAGRuns. */
export function summaryOrder(summary: HistorySummary): { readonly createdMs: number; readonly dagRunId: string } {
  return { createdMs: Date.parse(summary.createdAt) || 0, dagRunId: summary.dagRunId };
}

/** Whether a stored run sorts after (is older than) the informer's run, in newestFirst's order. */
export function storedIsOlder(
  run: DagRunResource,
  order: { readonly createdMs: number; readonly dagRunId: string },
): boolean {
  const created = instant(run.metadata?.creationTimestamp) ?? 0;
  return (
    created > order.createdMs ||
    (created === order.createdMs && compareText(runIdentity(run).dagRunId, order.dagRunId) <= 0)
  );
}

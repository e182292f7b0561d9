/**
 * What the resource routes need from the cluster, and the lookups every one of them starts
 * with: a DAG by file name, a root run by DAG name and id (or `latest`), a sub run under its
 * root. Each lookup answers the contract's 400/404 itself.
 */
import type { Dag } from '../core/dag/index.ts';
import type { HistoryReader } from '../core/history/types.ts';
import type { LogChunk, LogQuery } from '../core/logs/chunk.ts';
import { ANNOTATIONS } from '../core/resources/constants.ts';
import { FILE_NAME_PATTERN, dagResourceName } from '../core/resources/names.ts';
import type { Requester } from '../core/resources/requested-by.ts';
import { namesSubRuns } from '../core/resources/run-records.ts';
import type { DagRunResource } from '../core/resources/types.ts';
import type { Cache } from './cache.ts';
import { ApiError } from './errors.ts';
import type { Starter } from './starts.ts';
import { dagEntry, type DagEntry } from './views/dags.ts';
import { runIdentity } from './views/identity.ts';
import { newestFirst } from './views/runs.ts';
import type { Writer } from './writer.ts';
import type { RunRecords } from './records.ts';
import type { RunDefinitions } from './definitions.ts';
import type { NamespacePolicy } from './pod-policy.ts';
import { findRoot, isArchived, storedResolver, storedSubRun, withRecords } from './archive-reads.ts';

export interface LogRef {
  readonly dagName: string;
  readonly dagRunId: string;
  readonly step: string;
  readonly attempt: number;
  readonly stream: 'stdout' | 'stderr';
}

export interface LogReader {
  /** A chunk of one step attempt's log; undefined when there is none (yet). */
  read(ref: LogRef, query: LogQuery): Promise<LogChunk | undefined>;
}

/** A run's artifact files, kept in the log store (core/logs/artifacts.ts), read through the operator. */
export interface ArtifactReader {
  /** Every file of the run, path and size. */
  list(run: ArtifactRunRef): Promise<readonly { readonly path: string; readonly size: number }[]>;
  /** One file's bytes; undefined when the run has no such file. */
  read(run: ArtifactRunRef, path: string): Promise<Buffer | undefined>;
}

export interface ArtifactRunRef {
  readonly dagName: string;
  readonly dagRunId: string;
}

export interface Cluster {
  readonly cache: Cache;
  readonly writer: Writer;
  readonly starter: Starter;
  readonly logs: LogReader;
  readonly artifacts: ArtifactReader;
  /** Step records sealed out of runs' statuses (records.ts). */
  readonly records: RunRecords;
  /** The definitions runs were frozen with (definitions.ts). */
  readonly definitions: RunDefinitions;
  /** Finished runs archived out of etcd (archive-reads.ts); absent: every run is in etcd. */
  readonly history?: HistoryReader;
  /** The namespace's pod policy (pod-policy.ts); absent: DAGs are checked by the operator only. */
  readonly policy?: NamespacePolicy;
}

export function checkFileName(fileName: string): void {
  if (!FILE_NAME_PATTERN.test(fileName))
    throw new ApiError('bad_request', `invalid file name "${fileName}": use letters, digits, "_" and "-"`);
}

export function findDag(cluster: Cluster, fileName: string): DagEntry | undefined {
  checkFileName(fileName);
  const resource = cluster.cache.dags.get(cluster.cache.namespace, dagResourceName(fileName));
  return resource === undefined ? undefined : dagEntry(resource);
}

export function dagOf(cluster: Cluster, fileName: string): DagEntry {
  const entry = findDag(cluster, fileName);
  if (entry === undefined) throw new ApiError('not_found', `DAG "${fileName}" not found`);
  return entry;
}

export function allDags(cluster: Cluster): DagEntry[] {
  return cluster.cache.dags.list(cluster.cache.namespace).map((d) => dagEntry(d));
}

const latestKept = new WeakMap<Cluster, { generation: number; byDag: Map<string, DagRunResource> }>();

/** The newest root run of a DAG; all DAGs' answers are worked out in one pass and kept while no run changes. */
export function latestRun(cluster: Cluster, name: string): DagRunResource | undefined {
  const index = cluster.cache.runIndex;
  let kept = latestKept.get(cluster);
  if (kept?.generation !== index.generation) {
    const byDag = new Map<string, DagRunResource>();
    for (const dag of index.dagNames()) {
      let latest: DagRunResource | undefined;
      for (const run of index.runsOf(dag)) if (latest === undefined || newestFirst(run, latest) < 0) latest = run;
      if (latest !== undefined) byDag.set(dag, latest);
    }
    kept = { generation: index.generation, byDag };
    latestKept.set(cluster, kept);
  }
  return kept.byDag.get(name);
}

/** A root run by DAG name and id, live or archived; `latest` is the most recent one. */
export async function rootRun(cluster: Cluster, name: string, dagRunId: string): Promise<DagRunResource> {
  return findRoot(cluster, (n) => latestRun(cluster, n), name, dagRunId);
}

/** The run a path names with every step's record, sealed ones included (records.ts). */
export async function recordedRunAt(cluster: Cluster, path: RunPath): Promise<DagRunResource> {
  return withRecords(cluster, await runAt(cluster, path));
}

/**
 * Any descendant of a root run, by its own run id: the informer's, else the store's (an
 * archived root's sub runs were archived with it; a root put back keeps them there).
 */
export async function subRun(cluster: Cluster, root: DagRunResource, subRunId: string): Promise<DagRunResource> {
  const id = runIdentity(root);
  const live = isArchived(root)
    ? undefined
    : cluster.cache.runIndex
        .descendants(root.spec.dagName ?? id.name, id.dagRunId)
        .find((r) => runIdentity(r).dagRunId === subRunId);
  if (live !== undefined) return live;
  if (cluster.history === undefined)
    throw new ApiError('not_found', `sub run "${subRunId}" of run "${id.dagRunId}" not found`);
  return storedSubRun(cluster, root, subRunId);
}

/** Whether a run's sub runs may be in the store: it is archived, or was put back from it. */
const subRunsStored = (cluster: Cluster, run: DagRunResource): boolean =>
  cluster.history !== undefined &&
  (isArchived(run) || run.metadata?.annotations?.[ANNOTATIONS.restoredFrom] !== undefined);

/** Resolves the sub run ids a run's nodes name, for their status in details: the informer's first. */
export async function resolverFor(
  cluster: Cluster,
  run: DagRunResource,
): Promise<(dagRunId: string) => DagRunResource | undefined> {
  const id = runIdentity(run);
  const rootKey = run.spec.root ?? { name: run.spec.dagName ?? id.name, dagRunId: id.dagRunId };
  let descendants: DagRunResource[] | undefined;
  const live = (dagRunId: string): DagRunResource | undefined => {
    descendants ??= cluster.cache.runIndex.descendants(rootKey.name, rootKey.dagRunId);
    return descendants.find((r) => runIdentity(r).dagRunId === dagRunId);
  };
  if (!subRunsStored(cluster, run)) return live;
  // An archived run carries every record: one that names no sub run needs no query to the store
  // (a DAG's history answers 30 of them at once).
  if (isArchived(run) && !namesSubRuns(run.status)) return () => undefined;
  const stored = await storedResolver(cluster, run);
  return isArchived(run) ? stored : (dagRunId) => live(dagRunId) ?? stored(dagRunId);
}

/**
 * The run a path names as a DAGRun, for the writes that need one (retry, step edits): an
 * archived root is put back first, then an archived sub run under its parent (restore.ts).
 */
export async function liveRunAt(cluster: Cluster, path: RunPath, by: Requester): Promise<DagRunResource> {
  const found = await rootRun(cluster, path.name, path.dagRunId);
  const root = isArchived(found) ? await cluster.writer.restoreRun(found, by) : found;
  return path.subDAGRunId === undefined ? root : liveSubRun(cluster, root, path.subDAGRunId, 0, by);
}

/** Nesting deeper than this is a cycle in stored data, not a tree: the root owns what is below. */
const MAX_NESTING = 64;

/** A sub run of a live root as a DAGRun: an archived one is put back under its parent, itself put back first when archived. */
async function liveSubRun(
  cluster: Cluster,
  root: DagRunResource,
  subRunId: string,
  depth: number,
  by: Requester,
): Promise<DagRunResource> {
  const sub = await subRun(cluster, root, subRunId);
  if (!isArchived(sub)) return sub;
  const parentId = sub.spec.parent?.dagRunId;
  const parent =
    parentId === undefined || parentId === runIdentity(root).dagRunId || depth >= MAX_NESTING
      ? root
      : await liveSubRun(cluster, root, parentId, depth + 1, by);
  return cluster.writer.restoreRun(sub, by, parent);
}

/** The definition a run was frozen with (definitions.ts); undefined while it has none to show. */
export async function runDefinition(cluster: Cluster, run: DagRunResource): Promise<Dag | undefined> {
  return cluster.definitions.dag(run);
}

/** A run's address in the contract's paths: a root run, or one of its sub runs. */
export interface RunPath {
  readonly name: string;
  readonly dagRunId: string;
  readonly subDAGRunId?: string;
}

/** The run a path names: the root run, or one of its sub runs; live or archived. */
export async function runAt(cluster: Cluster, path: RunPath): Promise<DagRunResource> {
  const root = await rootRun(cluster, path.name, path.dagRunId);
  return path.subDAGRunId === undefined ? root : subRun(cluster, root, path.subDAGRunId);
}

function unavailable(): never {
  throw new ApiError('service_unavailable', 'this server has no cluster connection');
}

/**
 * What the resource routes are given when the app was built without a cluster (tests of the
 * HTTP layer alone). A route answers 503 at the first thing it asks of the cluster, which is
 * after the request was validated and after checks that need no cluster, exactly where it
 * would have failed with a cluster that could not help.
 */
export const NO_CLUSTER: Cluster = {
  get cache(): Cache {
    return unavailable();
  },
  get writer(): Writer {
    return unavailable();
  },
  get starter(): Starter {
    return unavailable();
  },
  get logs(): LogReader {
    return unavailable();
  },
  get artifacts(): ArtifactReader {
    return unavailable();
  },
  get records(): RunRecords {
    return unavailable();
  },
  get definitions(): RunDefinitions {
    return unavailable();
  },
};

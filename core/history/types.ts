/**
 * The history store: finished runs kept out of etcd (docs/decisions/2026-11-28-history-store.md).
 * One contract, two stores: `sqlite` (node:sqlite, a file on a volume, for one replica) and
 * `postgres` (the pg client, for two API server replicas and the operator writing). The operator
 * archives a finished run and then deletes its DAGRun; the API server answers history from here.
 */
import type { DagRunSpec, RunNode } from '../resources/schemas.ts';
import type { DagRunResource } from '../resources/types.ts';

/** Where a run is filed: unique in a store. */
export interface RunKey {
  readonly namespace: string;
  /** The DAG name the run is listed under. */
  readonly dagName: string;
  readonly dagRunId: string;
}

/** A run named as a DAGRun's spec names its parent and root. */
export type RunName = NonNullable<DagRunSpec['root']>;

/** What listings show of an archived run: one row of the summary table, no body to read. */
export interface HistorySummary extends RunKey {
  readonly resourceName: string;
  readonly uid: string;
  /** Run status 0-6 (core/resources/status.ts). */
  readonly status: number;
  readonly statusLabel: string;
  /** The DAGRun's creationTimestamp (RFC 3339): listings order and filter by it. */
  readonly createdAt: string;
  /** As the status wrote them; '' when not set. */
  readonly queuedAt: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  /** Effective parameters, JSON-encoded (the status's, else the spec's). */
  readonly params: string;
  /** The run's root: the run itself for a root run. */
  readonly root: RunName;
  /** Set for a sub run only. */
  readonly parent?: RunName;
}

/**
 * An archived run in full: its summary and the DAGRun as it ended, with every step record in
 * `status.nodes` (handlers and prepare in their own fields, as always) and the frozen definition
 * in `spec.snapshot`, whatever segments they were spread over while it ran.
 */
export interface HistoryRun extends HistorySummary {
  readonly resource: DagRunResource;
}

/** What archiving writes. */
export interface RunToArchive {
  /** The DAG name the run is listed under (its rename annotation, else spec.dagName or dagRef). */
  readonly dagName: string;
  /** The DAGRun as it ended. */
  readonly run: DagRunResource;
  /** Every step record, sealed ones included; the status's own `nodes` when omitted. */
  readonly nodes?: readonly RunNode[];
  /** The frozen definition, when it is not in `run.spec.snapshot`. */
  readonly definition?: Record<string, unknown>;
}

/** Which runs a listing returns: root runs of one namespace, newest created first. */
export interface HistoryFilter {
  readonly namespace: string;
  /** The DAG name contains this (or equals it with `exactName`). */
  readonly name?: string;
  readonly exactName?: boolean;
  readonly status?: number;
  /** Created at or after, ms since the epoch. */
  readonly createdFrom?: number;
  /** Created at or before, ms since the epoch. */
  readonly createdTo?: number;
  /** The run id contains this. */
  readonly dagRunId?: string;
}

export interface PageOptions {
  /** Rows per page (default DEFAULT_PAGE_SIZE, at most MAX_PAGE_SIZE). */
  readonly pageSize?: number;
}

export const DEFAULT_PAGE_SIZE = 500;
export const MAX_PAGE_SIZE = 5_000;

/** How many root runs of a DAG are stored with a status. */
export interface DagStatusCount {
  readonly dagName: string;
  readonly status: number;
  readonly runs: number;
}

/** A DAG name of a namespace. */
export interface DagOfNamespace {
  readonly namespace: string;
  readonly dagName: string;
}

export interface HistoryStore {
  readonly kind: 'sqlite' | 'postgres';
  /**
   * Writes runs in one transaction (a root run with its sub runs), each replacing whatever is
   * stored under its key: archiving the same run again, after a crash between archiving and
   * deleting its DAGRun, changes nothing.
   */
  put(runs: readonly RunToArchive[]): Promise<void>;
  summary(key: RunKey): Promise<HistorySummary | undefined>;
  /** The run with every step record and its definition. */
  run(key: RunKey): Promise<HistoryRun | undefined>;
  /**
   * Runs of one namespace whole, in the order asked, undefined where none is stored: a page of
   * a DAG's history (tens of runs) in one round trip rather than one each.
   */
  runs(namespace: string, keys: readonly RunName[]): Promise<(HistoryRun | undefined)[]>;
  /** Runs of any DAG with this run id, root or sub (a sub run is named by its id alone). */
  withRunId(namespace: string, dagRunId: string): Promise<HistorySummary[]>;
  /** The DAG's newest root run. */
  latest(namespace: string, dagName: string): Promise<HistorySummary | undefined>;
  /** The DAG's newest root runs, at most `limit`. */
  runsOf(namespace: string, dagName: string, limit: number): Promise<HistorySummary[]>;
  /**
   * Root runs matching the filter, newest created first (ties: run id, then DAG name), page by
   * page: each page is one query that starts after the last row of the one before, so memory
   * holds one page whatever the number of runs, and no transaction stays open between pages.
   */
  list(filter: HistoryFilter, options?: PageOptions): AsyncIterable<readonly HistorySummary[]>;
  /** Sub runs (any depth) of a root run, newest created first, page by page. */
  subRuns(namespace: string, root: RunName, options?: PageOptions): AsyncIterable<readonly HistorySummary[]>;
  /** Runs of a DAG (root or sub) that finished before `finishedBefore` (ms), at most `limit`, oldest first. */
  expired(namespace: string, dagName: string, finishedBefore: number, limit: number): Promise<RunKey[]>;
  /** Deletes these runs in one transaction; how many there were. */
  remove(keys: readonly RunKey[]): Promise<number>;
  /**
   * Lists a DAG's root runs under another name (the DAG was renamed), their sub runs' root
   * with them. A run whose id is already taken under the new name stays where it is.
   */
  relist(namespace: string, from: string, to: string): Promise<number>;
  /** Root runs by DAG and status (a scan of the namespace's summary rows, not of run bodies). */
  counts(namespace: string): Promise<DagStatusCount[]>;
  /**
   * Every namespace and DAG name with runs stored, root or sub runs (a sub DAG that is never
   * run on its own has no root runs for `counts` to name), ordered: what retention walks.
   */
  dagsWithRuns(): Promise<DagOfNamespace[]>;
  close(): Promise<void>;
}

/**
 * What the API server asks of history: reads, and `relist` when a DAG is renamed. The operator
 * holds the store itself; the API server holds either a PostgreSQL store or, for the embedded
 * SQLite file on the operator's volume, a client of the operator's internal endpoint.
 */
export type HistoryReader = Pick<
  HistoryStore,
  'summary' | 'run' | 'runs' | 'withRunId' | 'latest' | 'runsOf' | 'list' | 'subRuns' | 'relist' | 'close'
>;

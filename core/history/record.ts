/**
 * A run as the history store keeps it: the summary columns listings read, and the body (the
 * DAGRun with every step record and its frozen definition) that only a run's details read.
 * Pure; compression and SQL are the stores'.
 */
import { ANNOTATIONS } from '../resources/constants.ts';
import { listedDagName } from '../resources/listed.ts';
import { runStatusLabel } from '../resources/status.ts';
import type { DagRunStatus } from '../resources/schemas.ts';
import type { DagRunResource } from '../resources/types.ts';
import { HistoryStoreError } from './errors.ts';
import type { HistoryRun, HistorySummary, RunToArchive } from './types.ts';

/** One row of the summary table, by column name. */
export interface SummaryRow {
  readonly namespace: string;
  readonly dag_name: string;
  readonly run_id: string;
  readonly resource_name: string;
  readonly uid: string;
  readonly status: number;
  readonly status_label: string;
  readonly created_ms: number;
  readonly created_at: string;
  readonly queued_at: string;
  readonly started_at: string;
  readonly finished_at: string;
  readonly finished_ms: number | null;
  readonly params: string;
  readonly parent_name: string;
  readonly parent_run_id: string;
  readonly root_name: string;
  readonly root_run_id: string;
}

/** The summary table's columns in the order statements list them. */
export const SUMMARY_COLUMNS = [
  'namespace',
  'dag_name',
  'run_id',
  'resource_name',
  'uid',
  'status',
  'status_label',
  'created_ms',
  'created_at',
  'queued_at',
  'started_at',
  'finished_at',
  'finished_ms',
  'params',
  'parent_name',
  'parent_run_id',
  'root_name',
  'root_run_id',
] as const satisfies readonly (keyof SummaryRow)[];

/** What one archived run writes: its summary row and its body. */
export interface ArchiveRecord {
  readonly row: SummaryRow;
  readonly body: DagRunResource;
}

export function archiveRecord(input: RunToArchive): ArchiveRecord {
  return { row: { ...identityColumns(input), ...statusColumns(input.run) }, body: archivedBody(input) };
}

type IdentityColumns = Pick<
  SummaryRow,
  | 'namespace'
  | 'dag_name'
  | 'run_id'
  | 'resource_name'
  | 'uid'
  | 'parent_name'
  | 'parent_run_id'
  | 'root_name'
  | 'root_run_id'
>;

function identityColumns({ run, dagName }: RunToArchive): IdentityColumns {
  const metadata = run.metadata ?? {};
  const { parent, root } = run.spec;
  const namespace = text(metadata.namespace);
  const dagRunId = run.spec.dagRunId ?? text(metadata.name);
  if (namespace === '' || dagName === '' || dagRunId === '') {
    throw new HistoryStoreError(
      `history store: a run needs a namespace, a DAG name and a run id to be archived (got "${namespace}", "${dagName}", "${dagRunId}")`,
      { retryable: false },
    );
  }
  return {
    namespace,
    dag_name: dagName,
    run_id: dagRunId,
    resource_name: text(metadata.name),
    uid: text(metadata.uid),
    parent_name: text(parent?.name),
    parent_run_id: text(parent?.dagRunId),
    root_name: root?.name ?? dagName,
    root_run_id: root?.dagRunId ?? dagRunId,
  };
}

function statusColumns(run: DagRunResource): Omit<SummaryRow, keyof IdentityColumns> {
  const current: DagRunStatus = run.status ?? {};
  const status = current.status ?? (run.spec.enqueue === true ? 5 : 0);
  const created = instant(run.metadata?.creationTimestamp);
  return {
    status,
    status_label: current.statusLabel ?? runStatusLabel(status),
    created_ms: created ?? 0,
    created_at: created === undefined ? '' : new Date(created).toISOString(),
    queued_at: text(current.queuedAt),
    started_at: text(current.startedAt),
    finished_at: text(current.finishedAt),
    finished_ms: instant(current.finishedAt) ?? null,
    params: current.params ?? text(run.spec.params),
  };
}

const text = (value: string | undefined): string => value ?? '';

/** The DAGRun with every record and its definition in place, and no server bookkeeping. */
function archivedBody(input: RunToArchive): DagRunResource {
  const { run } = input;
  const { managedFields: _managed, ...metadata } = run.metadata ?? {};
  const snapshot = input.definition ?? run.spec.snapshot;
  const nodes = input.nodes ?? run.status?.nodes;
  const status =
    run.status === undefined && nodes === undefined
      ? undefined
      : { ...run.status, ...(nodes === undefined ? {} : { nodes: [...nodes] }) };
  return {
    ...run,
    metadata,
    spec: { ...run.spec, ...(snapshot === undefined ? {} : { snapshot }) },
    ...(status === undefined ? {} : { status }),
  };
}

export function summaryOf(row: SummaryRow): HistorySummary {
  return {
    namespace: row.namespace,
    dagName: row.dag_name,
    dagRunId: row.run_id,
    resourceName: row.resource_name,
    uid: row.uid,
    status: row.status,
    statusLabel: row.status_label,
    createdAt: row.created_at,
    queuedAt: row.queued_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    params: row.params,
    root: { name: row.root_name, dagRunId: row.root_run_id },
    ...(row.parent_run_id === '' ? {} : { parent: { name: row.parent_name, dagRunId: row.parent_run_id } }),
  };
}

/**
 * The run with its body. A run relisted under another DAG name since it was archived says so
 * the way a DAGRun does (the dag-name annotation), since its spec.dagName cannot change.
 */
export function historyRunOf(row: SummaryRow, body: DagRunResource): HistoryRun {
  const listed = listedDagName(body);
  const resource =
    listed === row.dag_name || row.parent_run_id !== ''
      ? body
      : {
          ...body,
          metadata: {
            ...body.metadata,
            annotations: { ...body.metadata?.annotations, [ANNOTATIONS.dagName]: row.dag_name },
          },
        };
  return { ...summaryOf(row), resource };
}

/** ms since the epoch of a Kubernetes time (a Date from the client, or RFC 3339 text). */
function instant(value: unknown): number | undefined {
  const ms =
    value instanceof Date ? value.getTime() : typeof value === 'string' && value !== '' ? Date.parse(value) : NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * DAGRun resources as the contract's run summary, run details and node. Pure: the caller
 * passes the run and, for details, the DAG definition the run was started from.
 */
import { conditionObject, stepObject, type ConditionObject, type StepObject } from '../../core/dag/api.ts';
import { plainStep, type Dag, type HandlerEvent, type Step } from '../../core/dag/index.ts';
import type { RunNode } from '../../core/resources/schemas.ts';
import { runStatusLabel, stepStatusLabel } from '../../core/resources/status.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { autoRetryCount, autoRetryLimit } from '../../core/resources/auto-retries.ts';
import { compareText, instant, iso, runLogPath } from './format.ts';
import { approvalFields, type ApprovalFields } from './approval.ts';
import { runIdentity } from './identity.ts';

export interface RunSummary {
  rootDAGRunName: string;
  rootDAGRunId: string;
  parentDAGRunName: string;
  parentDAGRunId: string;
  dagRunId: string;
  name: string;
  status: number;
  statusLabel: string;
  queuedAt: string;
  startedAt: string;
  finishedAt: string;
  log: string;
  params: string;
  /**
   * Dagu 2.x's DAG-level automatic retries, only when the run has a retry policy or was retried
   * by one: /api/v1 serves them (v1/views.ts); /api/v2's schema has no such fields and drops them.
   */
  autoRetryCount?: number;
  autoRetryLimit?: number;
}

export interface SubRunRef {
  dagRunId: string;
  params?: string;
  status?: number;
  statusLabel?: string;
}

/** One attempt of a step, as the node records it (Kubedag's addition to the contract's node). */
export interface AttemptView {
  attempt: number;
  startedAt: string;
  finishedAt: string;
  status: number;
  statusLabel: string;
  exitCode?: number;
}

export interface NodeView extends ApprovalFields {
  step: StepObject;
  stdout: string;
  stderr: string;
  startedAt: string;
  finishedAt: string;
  status: number;
  statusLabel: string;
  retryCount: number;
  doneCount: number;
  subRuns: SubRunRef[];
  subRunsRepeated: SubRunRef[];
  error: string;
  /** Kubedag's additions, present when the status has them. */
  exitCode?: number;
  outputs?: Record<string, string>;
  attempts?: AttemptView[];
  attemptsDropped?: number;
}

export interface RunDetails extends RunSummary {
  nodes: NodeView[];
  /** Only when the DAG has an init handler (Dagu 2.x); Dagu 1.24's contract has none. */
  onInit?: NodeView | null;
  /** Only when the DAG has a wait handler (Dagu 2.x). */
  onWait?: NodeView | null;
  onExit: NodeView | null;
  onSuccess: NodeView | null;
  onFailure: NodeView | null;
  onCancel: NodeView | null;
  preconditions: ConditionObject[];
}

export function runStatusOf(run: DagRunResource): number {
  return run.status?.status ?? (run.spec.enqueue === true ? 5 : 0);
}

const summaries = new WeakMap<DagRunResource, RunSummary>();

/** Memoised per cached object (frozen, replaced on change): listings build thousands. */
export function runSummary(run: DagRunResource): RunSummary {
  let summary = summaries.get(run);
  if (summary === undefined) {
    summary = buildSummary(run);
    summaries.set(run, summary);
  }
  return summary;
}

function buildSummary(run: DagRunResource): RunSummary {
  const id = runIdentity(run);
  const status = runStatusOf(run);
  return {
    rootDAGRunName: id.rootName,
    rootDAGRunId: id.rootId,
    parentDAGRunName: id.parentName,
    parentDAGRunId: id.parentId,
    dagRunId: id.dagRunId,
    name: id.name,
    status,
    statusLabel: run.status?.statusLabel ?? runStatusLabel(status),
    queuedAt: iso(run.status?.queuedAt),
    startedAt: iso(run.status?.startedAt),
    finishedAt: iso(run.status?.finishedAt),
    log: runLogPath(id.name, id.dagRunId),
    params: run.status?.params ?? run.spec.params ?? '',
    ...autoRetries(run),
  };
}

function autoRetries(run: DagRunResource): Pick<RunSummary, 'autoRetryCount' | 'autoRetryLimit'> {
  const count = autoRetryCount(run);
  const limit = autoRetryLimit(run);
  return {
    ...(count === 0 ? {} : { autoRetryCount: count }),
    ...(limit === undefined ? {} : { autoRetryLimit: limit }),
  };
}

/** A node of a step that is in the definition but has no status yet (or any more). */
const unseen = (name: string): RunNode => ({ name, status: 0, statusLabel: 'not_started' });

/** A step of a DAG that never ran: not started, with no times and no log to point at. */
export function pendingNode(step: Step): NodeView {
  return {
    step: stepObject(step),
    stdout: '',
    stderr: '',
    startedAt: '',
    finishedAt: '',
    status: 0,
    statusLabel: 'not_started',
    retryCount: 0,
    doneCount: 0,
    subRuns: [],
    subRunsRepeated: [],
    error: '',
  };
}

export function nodeView(
  run: DagRunResource,
  step: Step | undefined,
  node: RunNode,
  resolve: (dagRunId: string) => DagRunResource | undefined,
): NodeView {
  const id = runIdentity(run);
  const e = encodeURIComponent;
  const stepPath = `/api/v2/dag-runs/${e(id.rootName)}/${e(id.rootId)}${id.parentId === '' ? '' : `/sub-dag-runs/${e(id.dagRunId)}`}/steps/${e(node.name)}/log`;
  const subRef = (ref: { dagRunId: string; params?: string }): SubRunRef => {
    const child = resolve(ref.dagRunId);
    const status = child === undefined ? undefined : runStatusOf(child);
    return {
      dagRunId: ref.dagRunId,
      ...(ref.params === undefined || ref.params === '' ? {} : { params: ref.params }),
      ...(status === undefined ? {} : { status, statusLabel: child?.status?.statusLabel ?? runStatusLabel(status) }),
    };
  };
  return {
    step: stepObject(step ?? plainStep(node.name)),
    stdout: `${stepPath}?stream=stdout`,
    stderr: `${stepPath}?stream=stderr`,
    startedAt: iso(node.startedAt),
    finishedAt: iso(node.finishedAt),
    status: node.status,
    statusLabel: node.statusLabel === '' ? stepStatusLabel(node.status) : node.statusLabel,
    retryCount: node.retryCount ?? 0,
    doneCount: node.doneCount ?? 0,
    subRuns: (node.subRuns ?? []).map(subRef),
    subRunsRepeated: (node.subRunsRepeated ?? []).map(subRef),
    error: node.error ?? '',
    ...extensions(node),
    ...approvalFields(node),
  };
}

/** Exit code, outputs and attempts: left out when the status has none, as the contract's node has none. */
function extensions(node: RunNode): Pick<NodeView, 'exitCode' | 'outputs' | 'attempts' | 'attemptsDropped'> {
  const attempts = (node.attempts ?? []).map((a): AttemptView => ({
    attempt: a.attempt,
    startedAt: iso(a.startedAt),
    finishedAt: iso(a.finishedAt),
    status: a.status,
    statusLabel: stepStatusLabel(a.status),
    ...(a.exitCode === undefined ? {} : { exitCode: a.exitCode }),
  }));
  return {
    ...(node.exitCode === undefined ? {} : { exitCode: node.exitCode }),
    ...(node.outputs === undefined || Object.keys(node.outputs).length === 0 ? {} : { outputs: node.outputs }),
    ...(attempts.length === 0 ? {} : { attempts }),
    ...(node.attemptsDropped === undefined ? {} : { attemptsDropped: node.attemptsDropped }),
  };
}

/** Run details: summary, a node per step of the definition, handler nodes, preconditions. */
export function runDetails(
  run: DagRunResource,
  dag: Dag | undefined,
  resolve: (dagRunId: string) => DagRunResource | undefined,
): RunDetails {
  const status = run.status ?? {};
  const nodes = status.nodes ?? [];
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const steps = dag?.steps ?? [];
  const known = new Set(steps.map((s) => s.name));
  const views = [
    ...steps.map((s) => nodeView(run, s, byName.get(s.name) ?? unseen(s.name), resolve)),
    ...nodes.filter((n) => !known.has(n.name)).map((n) => nodeView(run, undefined, n, resolve)),
  ];
  const handler = (event: HandlerEvent): NodeView | null => {
    const node = status[handlerKey(event)];
    return node === undefined ? null : nodeView(run, dag?.handlerOn[event], node, resolve);
  };
  const preconditionError = status.endReason === 'preconditions' ? (status.error ?? '') : '';
  return {
    ...runSummary(run),
    nodes: views,
    ...(dag?.handlerOn.init === undefined && status.onInit === undefined ? {} : { onInit: handler('init') }),
    ...(dag?.handlerOn.wait === undefined && status.onWait === undefined ? {} : { onWait: handler('wait') }),
    onExit: handler('exit'),
    onSuccess: handler('success'),
    onFailure: handler('failure'),
    onCancel: handler('cancel'),
    preconditions: (dag?.preconditions ?? []).map((c) => ({ ...conditionObject(c), error: preconditionError })),
  };
}

type HandlerKey = 'onInit' | 'onWait' | 'onExit' | 'onSuccess' | 'onFailure' | 'onCancel';

export function handlerKey(event: HandlerEvent): HandlerKey {
  return `on${event.charAt(0).toUpperCase()}${event.slice(1)}` as HandlerKey;
}

export interface GridRow {
  name: string;
  history: number[];
}

/** A row per step name (sorted), history[i] = its status in runs[i]; then the handlers that ran. */
export function gridData(runs: readonly RunDetails[]): GridRow[] {
  // One map per run: looking each step up in each run's list would grow with the square of its steps.
  const statuses = runs.map((r) => new Map(r.nodes.map((n) => [n.step.name, n.status])));
  const names = [...new Set(statuses.flatMap((byName) => [...byName.keys()]))].sort();
  const rows = names.map((name) => ({ name, history: statuses.map((byName) => byName.get(name) ?? 0) }));
  for (const key of ['onInit', 'onWait', 'onSuccess', 'onFailure', 'onCancel', 'onExit'] as const) {
    if (runs.some((r) => r[key] !== null && r[key] !== undefined))
      rows.push({ name: key, history: runs.map((r) => r[key]?.status ?? 0) });
  }
  return rows;
}

export interface RunFilter {
  name?: string;
  exactName?: boolean;
  status?: number;
  fromDate?: number;
  toDate?: number;
  dagRunId?: string;
}

const created = new WeakMap<DagRunResource, number>();

function createdAt(run: DagRunResource): number {
  let ms = created.get(run);
  if (ms === undefined) {
    ms = instant(run.metadata?.creationTimestamp) ?? 0;
    created.set(run, ms);
  }
  return ms;
}

/** Newest first by creation, ties by run id; filters as behaviour-notes "Runs" says. */
export function filterRuns(runs: readonly DagRunResource[], filter: RunFilter): DagRunResource[] {
  return runs
    .filter((run) => {
      const id = runIdentity(run);
      const created = createdAt(run) / 1000;
      if (
        filter.name !== undefined &&
        filter.name !== '' &&
        !(filter.exactName === true ? id.name === filter.name : id.name.includes(filter.name))
      )
        return false;
      if (filter.dagRunId !== undefined && filter.dagRunId !== '' && !id.dagRunId.includes(filter.dagRunId))
        return false;
      if (filter.status !== undefined && runStatusOf(run) !== filter.status) return false;
      if (filter.fromDate !== undefined && created < filter.fromDate) return false;
      return filter.toDate === undefined || created <= filter.toDate;
    })
    .sort(newestFirst);
}

export function newestFirst(a: DagRunResource, b: DagRunResource): number {
  return createdAt(b) - createdAt(a) || compareText(runIdentity(a).dagRunId, runIdentity(b).dagRunId);
}

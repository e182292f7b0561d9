/**
 * The /api/v2 views as Dagu 2.x's /api/v1 has them: pure functions applied to an answer at the
 * edge (edges.ts), so that both versions are served by the same handlers and differ only here.
 * What changed between Dagu 1.24 and 2.x for the objects Kubedag serves:
 * - a step lists `commands` (`{command, args}` each) where it had `command`, `args` and
 *   `cmdWithArgs`, and names its executor `executorConfig`;
 * - the cancel handler is the abort handler (`handlerOn.abort`, a run's `onAbort`); a handler
 *   that is not defined is left out rather than `null`;
 * - a DAG's `tags` are also its `labels`;
 * - a run summary has no root, parent or log (its details keep them) and always says
 *   `artifactsAvailable` and `autoRetryCount` (and `autoRetryLimit` when the DAG has a retry policy);
 * - a queue counts its runs (`runningCount`, `queuedCount`) and is `global` where v2 says `custom`.
 */
import type { DagDetails, DagSummary, StepObject } from '../../core/dag/api.ts';
import type { DagDetailsView, DagListItem } from '../views/dags.ts';
import type { Queue } from '../views/queues.ts';
import type { GridRow, NodeView, RunDetails, RunSummary } from '../views/runs.ts';

type Rest<T, K extends keyof T> = Omit<T, K>;

export type V1Step = Rest<StepObject, 'command' | 'args' | 'cmdWithArgs' | 'executor' | 'run'> & {
  commands: { command: string; args: string[] }[];
  executorConfig: StepObject['executor'];
};

export function v1Step(step: StepObject): V1Step {
  const { command, args, cmdWithArgs: _text, executor, run: _legacy, ...rest } = step;
  return {
    ...rest,
    commands: command === undefined || command === '' ? [] : [{ command, args }],
    executorConfig: executor,
  };
}

export function v1DagSummary<D extends DagSummary>(dag: D): D & { labels: string[] } {
  return { ...dag, labels: dag.tags };
}

export function v1Dag(
  dag: DagDetails,
): Rest<DagDetails, 'steps' | 'handlerOn'> & { labels: string[]; steps: V1Step[]; handlerOn: Record<string, V1Step> } {
  const { cancel, ...handlers } = dag.handlerOn;
  const handlerOn: Record<string, V1Step> = {};
  for (const [event, step] of Object.entries({ ...handlers, ...(cancel === undefined ? {} : { abort: cancel }) }))
    handlerOn[event] = v1Step(step);
  return { ...v1DagSummary(dag), steps: dag.steps.map(v1Step), handlerOn };
}

/**
 * The v1 summary fields beside v2's; root, parent and log are dropped by v1's schema where it has
 * none. `autoRetryCount` is required in v1: 0 for a run no retry policy retried.
 */
export function v1Summary<S extends RunSummary>(
  summary: S,
): S & { artifactsAvailable: boolean; autoRetryCount: number } {
  return { ...summary, artifactsAvailable: false, autoRetryCount: summary.autoRetryCount ?? 0 };
}

export function v1Node(node: NodeView): Rest<NodeView, 'step'> & { step: V1Step } {
  return { ...node, step: v1Step(node.step) };
}

export type V1RunDetails = ReturnType<typeof v1Details>;

export function v1Details(details: RunDetails): Rest<
  RunDetails,
  'nodes' | 'onInit' | 'onWait' | 'onExit' | 'onSuccess' | 'onFailure' | 'onCancel'
> & {
  artifactsAvailable: boolean;
  autoRetryCount: number;
  nodes: ReturnType<typeof v1Node>[];
  onInit?: ReturnType<typeof v1Node>;
  onExit?: ReturnType<typeof v1Node>;
  onSuccess?: ReturnType<typeof v1Node>;
  onFailure?: ReturnType<typeof v1Node>;
  onAbort?: ReturnType<typeof v1Node>;
  onWait?: ReturnType<typeof v1Node>;
} {
  const { nodes, onInit, onWait, onExit, onSuccess, onFailure, onCancel, ...rest } = details;
  const handlers = { onInit, onExit, onSuccess, onFailure, onAbort: onCancel, onWait };
  const present = Object.fromEntries(
    Object.entries(handlers).flatMap(([key, node]) =>
      node === null || node === undefined ? [] : [[key, v1Node(node)]],
    ),
  );
  return { ...v1Summary(rest), nodes: nodes.map(v1Node), ...present };
}

/** The grid's handler row is named after the run's field. */
export function v1Grid(rows: readonly GridRow[]): GridRow[] {
  return rows.map((row) => (row.name === 'onCancel' ? { ...row, name: 'onAbort' } : row));
}

export function v1DagListItem(item: DagListItem): DagListItem & { latestDAGRun: ReturnType<typeof v1Summary> } {
  return { ...item, dag: v1DagSummary(item.dag), latestDAGRun: v1Summary(item.latestDAGRun) };
}

/**
 * `fileName` is not in Dagu 2.x's answer, but its CLI reads this answer as a DAGFile and starts,
 * enqueues and retries by its `fileName`: without it `dagu start` in a remote context posts to
 * `/dags//start`. Clients that follow the document ignore the extra field.
 */
export function v1DagDetails(
  view: DagDetailsView,
  fileName: string,
): Rest<DagDetailsView, 'dag' | 'localDags' | 'latestDAGRun'> & {
  fileName: string;
  dag: ReturnType<typeof v1Dag>;
  localDags: { name: string; dag: ReturnType<typeof v1Dag>; errors: string[] }[];
  latestDAGRun: V1RunDetails;
} {
  return {
    fileName,
    ...view,
    dag: v1Dag(view.dag),
    localDags: view.localDags.map((local) => ({ ...local, dag: v1Dag(local.dag) })),
    latestDAGRun: v1Details(view.latestDAGRun),
  };
}

/** A dag-based queue runs one run at a time (Dagu's FIFO), so v1's required capacity is 1 there. */
export function v1Queue(queue: Queue): {
  name: string;
  type: 'global' | 'dag-based';
  maxConcurrency: number;
  runningCount: number;
  queuedCount: number;
  running: ReturnType<typeof v1Summary>[];
} {
  return {
    name: queue.name,
    type: queue.type === 'custom' ? 'global' : 'dag-based',
    maxConcurrency: Math.max(1, queue.maxConcurrency ?? 1),
    runningCount: queue.summary.running,
    queuedCount: queue.summary.queued,
    running: queue.running.map(v1Summary),
  };
}

/**
 * What the run engine decides from and what it decides: the snapshot of one run (plain data,
 * gathered by gather.ts) and the decision (the next status and the actions that bring the
 * world closer to it), plus the mutable working copy a decision is built in. Pure.
 */
import type { Dag, HandlerEvent, Step } from '../../../core/dag/index.ts';
import type { DagRunStatus, RunNode } from '../../../core/resources/schemas.ts';
import { StepStatus, stepStatusLabel } from '../../../core/resources/status.ts';
import type { AttemptReport } from './attempt-verdict.ts';
import type { RunDefinition } from './run-definition.ts';
import type { ApprovalAnswer } from '../../../core/resources/types.ts';

export interface ObservedPod {
  readonly name: string;
  readonly step: string;
  readonly attempt: number;
  /** The item of a `parallel` step this child run is for. */
  readonly item?: number;
  readonly phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  readonly deleting: boolean;
  /** For a Pod being deleted: when its grace period ends (its deletionTimestamp), ISO time. */
  readonly deleteBy?: string;
  /** Why Kubernetes is taking the Pod away (its DisruptionTarget condition's reason). */
  readonly disruption?: string;
  /** A Failed Pod whose container has no end to report (rejected by its node, evicted before it ran): the Pod's reason. */
  readonly failedWithoutExit?: string;
  /** The scheduler's reason while it cannot place the Pod on any node. */
  readonly unschedulable?: string;
  /** Present once the Pod has terminated and what it reported has been gathered. */
  readonly report?: AttemptReport;
}

/** Whether a Pod's phase is terminal. */
export const phaseEnded = (phase: ObservedPod['phase']): boolean => phase === 'Succeeded' || phase === 'Failed';

/** Everything one decision about a run depends on: data only, no callbacks. */
export interface RunInput {
  /** The frozen definition, loaded: DAG, why it cannot run (if so), params and variables. */
  readonly definition: RunDefinition;
  /** The DAGRun's resource name and run id: the names of its attempts' Pods and child runs derive from them. */
  readonly run: { readonly name: string; readonly dagRunId: string };
  readonly status: DagRunStatus;
  readonly stop: boolean;
  /** People's answers to steps waiting for approval (spec.approvals), by step name. */
  readonly approvals?: Readonly<Record<string, ApprovalAnswer>>;
  readonly pods: readonly ObservedPod[];
  /** Pods this operator created that its cache has not shown yet. */
  readonly expected: ReadonlySet<string>;
  readonly now: Date;
  /** The operator's cap on this run's running step Pods (0: none). */
  readonly maxRunningPods: number;
  /** Also record routine Events: every step started and finished, and plain successes. */
  readonly routineEvents?: boolean;
  /** New step Pods the operator's overall cap lets this run start now (absent: no cap). */
  readonly podBudget?: number;
  /** Most runs a `dag.enqueue` step over `parallel` items creates per reconcile (absent: enqueue.ts's default). */
  readonly enqueueBatch?: number;
}

export interface Launch {
  readonly step: Step;
  readonly attempt: number;
  readonly pod: string;
  readonly handler?: HandlerEvent;
  /** For a `parallel` step: which item, and its value. */
  readonly item?: { readonly index: number; readonly value: unknown };
  /** A `dag.enqueue` item in the step's last batch: the step ends once its create succeeded (enqueue.ts). */
  readonly endsStep?: boolean;
}

export interface RunEvent {
  readonly reason: string;
  readonly message: string;
  readonly warning?: boolean;
}

export interface Decision {
  readonly status: DagRunStatus;
  readonly launch: Launch[];
  /** Attempts to stop: step Pods or child runs, by name. */
  readonly stop: { readonly pod: string }[];
  readonly requeueAfterMs?: number;
  readonly events: RunEvent[];
}

export const HANDLER_KEYS: Record<
  HandlerEvent,
  'onInit' | 'onWait' | 'onSuccess' | 'onFailure' | 'onCancel' | 'onExit'
> = {
  init: 'onInit',
  wait: 'onWait',
  success: 'onSuccess',
  failure: 'onFailure',
  cancel: 'onCancel',
  exit: 'onExit',
};
export const STEP_TIMEOUT = 'step timed out';

export function notStarted(name: string): RunNode {
  return {
    name,
    status: StepStatus.NotStarted,
    statusLabel: stepStatusLabel(StepStatus.NotStarted),
    retryCount: 0,
    doneCount: 0,
    attempt: 0,
  };
}

export function withStatus(node: RunNode, status: number, fields: Partial<RunNode> = {}): RunNode {
  return { ...node, ...fields, status, statusLabel: stepStatusLabel(status) };
}

/**
 * What every decision about runs of one definition looks up: its steps by name, and the record
 * of each step before it starts (frozen, shared: a decision replaces records, never changes
 * them). Built once per loaded definition, so that a decision about a 10,000-step run
 * allocates for the steps that move, not for every step.
 */
export interface StepIndex {
  readonly byName: ReadonlyMap<string, Step>;
  readonly pristine: ReadonlyMap<string, RunNode>;
}

const indexes = new WeakMap<Dag, StepIndex>();

export function stepIndex(dag: Dag): StepIndex {
  let index = indexes.get(dag);
  if (index === undefined) {
    index = {
      byName: new Map(dag.steps.map((s) => [s.name, s])),
      pristine: new Map(dag.steps.map((s) => [s.name, Object.freeze(notStarted(s.name))])),
    };
    indexes.set(dag, index);
  }
  return index;
}

/** How many of `nodes` satisfy `test`, without an array of them. */
export function countNodes(nodes: ReadonlyMap<string, RunNode>, test: (node: RunNode) => boolean): number {
  let count = 0;
  for (const node of nodes.values()) if (test(node)) count += 1;
  return count;
}

/** Whether any of `nodes` satisfies `test`, without an array of them. */
export function anyNode(nodes: ReadonlyMap<string, RunNode>, test: (node: RunNode) => boolean): boolean {
  for (const node of nodes.values()) if (test(node)) return true;
  return false;
}

/** Mutable working copy of one decision. */
export class Work {
  readonly input: RunInput;
  readonly now: string;
  readonly nodes: Map<string, RunNode>;
  /** The definition's steps by name. */
  readonly steps: ReadonlyMap<string, Step>;
  readonly handlers = new Map<HandlerEvent, RunNode>();
  readonly launch: Launch[] = [];
  readonly stop: { pod: string }[] = [];
  readonly events: RunEvent[] = [];
  status: DagRunStatus;
  wakeAt: number | undefined;

  constructor(input: RunInput) {
    this.input = input;
    this.now = input.now.toISOString();
    this.status = { ...input.status };
    const index = stepIndex(input.definition.dag);
    this.steps = index.byName;
    // In the definition's order: a step's own record, else its record before it starts.
    this.nodes = new Map(index.pristine);
    for (const node of input.status.nodes ?? []) if (this.nodes.has(node.name)) this.nodes.set(node.name, node);
    for (const [event, key] of Object.entries(HANDLER_KEYS) as [HandlerEvent, (typeof HANDLER_KEYS)[HandlerEvent]][]) {
      const node = input.status[key];
      if (node !== undefined) this.handlers.set(event, node);
    }
  }

  get dag(): RunDefinition['dag'] {
    return this.input.definition.dag;
  }

  wake(atMs: number): void {
    this.wakeAt = this.wakeAt === undefined ? atMs : Math.min(this.wakeAt, atMs);
  }

  podOf(node: RunNode): ObservedPod | undefined {
    return this.input.pods.find((p) => p.step === node.name && p.attempt === (node.attempt ?? 0));
  }

  /** Whether the run is being stopped or has timed out: what is running gets canceled. */
  get ending(): boolean {
    return this.status.endReason === 'stopped' || this.status.endReason === 'timeout';
  }
}

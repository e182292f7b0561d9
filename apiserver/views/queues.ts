/**
 * GET /queues as a pure view (api-v2 Queue; behaviour-notes 2 "Queues and workers" and 6).
 * Custom queues are the DAGQueue resources and are always listed; a dag-based queue exists only
 * in the runs that name it, so it is listed while it holds a running or queued run.
 *
 * Each queue carries its runs twice: as the contract has them (`summary`, `runningDAGRuns`,
 * `queuedDAGRuns`, reduced summaries) and as Dagu 1.24.11 does (`running`, `queued`, full run
 * summaries), whose OpenAPI document requires them and whose web UI reads them; the answer's
 * `summary` (queuesSummary) is Dagu's too.
 *
 * Order: custom queues by name, then dag-based queues by name. The contract leaves it open;
 * configured queues first keeps a stable head of the list, while dag-based queues come and go.
 */
import { RunStatus } from '../../core/resources/status.ts';
import type { DagQueueResource, DagRunResource } from '../../core/resources/types.ts';
import { compareText, instant } from './format.ts';
import { runIdentity } from './identity.ts';
import { runStatusOf, runSummary, type RunSummary } from './runs.ts';

/** The contract's reduced run summary for queue listings. */
export interface QueuedRunSummary {
  readonly dagRunId: string;
  /** The DAG name. */
  readonly name: string;
  readonly status: number;
  readonly statusLabel: string;
  /** ISO 8601 UTC, or empty when not yet. */
  readonly startedAt: string;
  readonly finishedAt: string;
  /** Where the run's log is read: the API path of its log, relative to the base address. */
  readonly log: string;
}

export interface QueueSummary {
  readonly running: number;
  readonly queued: number;
  readonly total: number;
}

export interface Queue {
  readonly name: string;
  readonly type: 'custom' | 'dag-based';
  /** Only for custom queues. */
  readonly maxConcurrency?: number;
  readonly summary: QueueSummary;
  readonly runningDAGRuns: QueuedRunSummary[];
  readonly queuedDAGRuns: QueuedRunSummary[];
  /** The same runs as full run summaries, under Dagu's names. */
  readonly running: RunSummary[];
  readonly queued: RunSummary[];
}

/** Dagu's totals over all listed queues. */
export interface QueuesSummary {
  readonly totalQueues: number;
  readonly totalRunning: number;
  readonly totalQueued: number;
  /** The sum of the listed maxConcurrency values: custom queues only, as only they list one. */
  readonly totalCapacity: number;
  /**
   * Running runs of the queues that have a capacity, as a share of totalCapacity (0 without
   * any). Runs of dag-based queues are left out, since their queues list no capacity; at most
   * 100, even while a lowered maxConcurrency still has more runs going than it now allows.
   */
  readonly utilizationPercentage: number;
}

export interface QueuesInput {
  readonly queues: readonly DagQueueResource[];
  readonly runs: readonly DagRunResource[];
  /** The queue a run goes through: spec.queue, else its DAG's queue, else its DAG name. */
  readonly dagQueue: (run: DagRunResource) => string;
}

interface Members {
  readonly running: DagRunResource[];
  readonly queued: DagRunResource[];
}

export function queues(input: QueuesInput): Queue[] {
  const custom = new Map(input.queues.map((q) => [q.metadata?.name ?? '', q]));
  const members = new Map<string, Members>();
  for (const run of input.runs) {
    // Sub-runs start at once, bypassing every queue (behaviour-notes 8).
    if (run.spec.parent !== undefined) continue;
    const status = runStatusOf(run);
    if (status !== RunStatus.Running && status !== RunStatus.Queued) continue;
    const name = input.dagQueue(run);
    const entry = members.get(name) ?? { running: [], queued: [] };
    (status === RunStatus.Running ? entry.running : entry.queued).push(run);
    members.set(name, entry);
  }
  const customQueues = [...custom].map(([name, resource]) =>
    queue(name, members.get(name), resource.spec.maxConcurrency),
  );
  const dagBased = [...members]
    .filter(([name]) => !custom.has(name))
    .map(([name, entry]) => queue(name, entry, undefined));
  return [...customQueues.sort(byName), ...dagBased.sort(byName)];
}

function queue(name: string, entry: Members | undefined, maxConcurrency: number | undefined): Queue {
  const running = [...(entry?.running ?? [])].sort(byTime((run) => run.status?.startedAt));
  const queued = [...(entry?.queued ?? [])].sort(byTime((run) => run.status?.queuedAt));
  return {
    name,
    type: maxConcurrency === undefined ? 'dag-based' : 'custom',
    ...(maxConcurrency === undefined ? {} : { maxConcurrency }),
    summary: { running: running.length, queued: queued.length, total: running.length + queued.length },
    runningDAGRuns: running.map(summary),
    queuedDAGRuns: queued.map(summary),
    running: running.map(runSummary),
    queued: queued.map(runSummary),
  };
}

export function queuesSummary(listed: readonly Queue[]): QueuesSummary {
  const sum = (of: (q: Queue) => number, among: readonly Queue[] = listed): number =>
    among.reduce((total, q) => total + of(q), 0);
  const bounded = listed.filter((q) => q.maxConcurrency !== undefined);
  const totalCapacity = sum((q) => q.maxConcurrency ?? 0, bounded);
  const busy = sum((q) => q.summary.running, bounded);
  return {
    totalQueues: listed.length,
    totalRunning: sum((q) => q.summary.running),
    totalQueued: sum((q) => q.summary.queued),
    totalCapacity,
    utilizationPercentage: totalCapacity === 0 ? 0 : Math.min(100, (busy / totalCapacity) * 100),
  };
}

/**
 * The log location is the run's log endpoint: a Kubedag run has no single log file (its steps'
 * logs live in Pods, then in the log store), and a path the client can GET is more use than an
 * internal store key. Queued runs are root runs, so the root path always addresses them.
 */
function summary(run: DagRunResource): QueuedRunSummary {
  // The full summary cut down, so that both forms of a run say the same (an enqueued run the
  // operator has not seen yet is queued in both).
  const { dagRunId, name, status, statusLabel, startedAt, finishedAt, log } = runSummary(run);
  return { dagRunId, name, status, statusLabel, startedAt, finishedAt, log };
}

/**
 * Oldest first by the given time, then by creation (a run whose status has not caught up yet
 * lacks the time), then by run id so that equal times still give one order. A run without the
 * time goes after those with it: it cannot have been queued or started before them.
 */
function byTime(
  time: (run: DagRunResource) => Date | string | undefined,
): (a: DagRunResource, b: DagRunResource) => number {
  const key = (run: DagRunResource): [number, number, string] => [
    instant(time(run)) ?? Infinity,
    instant(run.metadata?.creationTimestamp) ?? Infinity,
    runIdentity(run).dagRunId,
  ];
  return (a, b) => {
    const [ka, kb] = [key(a), key(b)];
    return compareNumber(ka[0], kb[0]) || compareNumber(ka[1], kb[1]) || compareText(ka[2], kb[2]);
  };
}

function compareNumber(a: number, b: number): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

function byName(a: Queue, b: Queue): number {
  return compareText(a.name, b.name);
}

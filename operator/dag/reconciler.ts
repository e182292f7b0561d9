/**
 * The DAG reconciler: keeps a DAG resource's status current, so that `kubectl get dags` and
 * the API see whether it is valid, its schedule, its next start and its latest run.
 * Suspension is the `kubedag.io/suspended` annotation (the API sets it), mirrored here.
 */
import { formatIssue, nextStart } from '../../core/dag/index.ts';
import { dagPolicyProblems, type PolicyContext } from '../../core/policy/index.ts';
import type { Informer } from '../../core/kube/informer.ts';
import { type Clock } from '../../core/kube/time.ts';
import type { ResourceClient } from '../../core/kube/client.ts';
import { ignoreConflict } from '../../core/kube/errors.ts';
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import type { DagStatus } from '../../core/resources/schemas.ts';
import type { DagResource, DagRunResource } from '../../core/resources/types.ts';
import { sameContent } from '../../core/kube/equal.ts';
import type { HistorySummary } from '../../core/history/types.ts';
import { loadedDag } from './loaded.ts';

export type LatestRun = NonNullable<DagStatus['latestRun']>;

export interface DagReconcilerDeps {
  readonly dagClient: ResourceClient<DagResource>;
  readonly dags: Informer<DagResource>;
  readonly runs: Informer<DagRunResource>;
  readonly clock: Clock;
  /** The scheduler's zone for expressions without CRON_TZ, so nextRun agrees with the scheduler. */
  readonly zone?: string;
  readonly onWrite?: () => void;
  /** The DAG's newest archived root run (the history store's `latest`), when runs are archived. */
  readonly archivedLatest?: (namespace: string, dagName: string) => Promise<HistorySummary | undefined>;
  /** The pod policy of a namespace (operator/policy.ts): a DAG above it is invalid. */
  readonly policyOf?: (namespace: string) => PolicyContext;
}

/** A run summary from the history store as the DAG status shows its latest run. Pure. */
export function latestFromSummary(summary: HistorySummary): LatestRun {
  return {
    resourceName: summary.resourceName,
    dagRunId: summary.dagRunId,
    status: summary.status,
    statusLabel: summary.statusLabel,
    ...(summary.queuedAt === '' ? {} : { queuedAt: summary.queuedAt }),
    ...(summary.startedAt === '' ? {} : { startedAt: summary.startedAt }),
    ...(summary.finishedAt === '' ? {} : { finishedAt: summary.finishedAt }),
    ...(summary.params === '' ? {} : { params: summary.params }),
  };
}

/**
 * The status a DAG resource should have. Pure. Its latest run is the newest of `runs` of the
 * DAG; when none is left in etcd (all archived), `archived`, the store's newest. With
 * `policy`, its namespace's pod policy, a DAG above it is invalid.
 */
export function dagStatus(
  dag: DagResource,
  runs: readonly DagRunResource[],
  now: Date,
  zone = 'UTC',
  { archived, policy }: { readonly archived?: LatestRun | undefined; readonly policy?: PolicyContext | undefined } = {},
): DagStatus {
  const load = loadedDag(dag);
  // Above its namespace's pod policy, a DAG is as invalid as one that does not load: its runs are refused (docs/pod-policy.md).
  const errors =
    load.errors.length > 0 || policy === undefined ? load.errors.map(formatIssue) : dagPolicyProblems(load.dag, policy);
  const valid = errors.length === 0;
  const next = valid ? nextStart(load.dag.schedule, now, zone) : undefined;
  const latest = latestRun(dag, runs) ?? archived;
  const generation = dag.metadata?.generation ?? 0;
  return {
    observedGeneration: generation,
    valid,
    errors,
    warnings: load.warnings.map(formatIssue),
    suspended: dag.metadata?.annotations?.[ANNOTATIONS.suspended] === 'true',
    schedule: load.dag.schedule.start.map((s) => s.expression).join(', '),
    ...(next === undefined ? {} : { nextRun: next.toISOString() }),
    ...(latest === undefined ? {} : { latestRun: latest }),
    conditions: [validCondition(dag, valid, errors.length, now)],
  };
}

/** The DAG's runs in etcd, as the informer holds them. */
export function runsOfDag(dag: DagResource, runs: readonly DagRunResource[]): DagRunResource[] {
  return runs.filter((r) => r.spec.dagRef?.name === dag.metadata?.name);
}

function latestRun(dag: DagResource, runs: readonly DagRunResource[]): DagStatus['latestRun'] {
  // A Date from a typed client, an RFC 3339 string from a watch: compare as instants.
  const created = (r: DagRunResource): number => new Date(r.metadata?.creationTimestamp ?? 0).getTime();
  const latest = runsOfDag(dag, runs).sort((a, b) => created(b) - created(a))[0];
  if (latest === undefined) return undefined;
  const status = latest.status ?? {};
  return {
    resourceName: latest.metadata?.name ?? '',
    dagRunId: latest.spec.dagRunId ?? '',
    status: status.status ?? 0,
    statusLabel: status.statusLabel ?? 'not_started',
    ...(status.queuedAt === undefined ? {} : { queuedAt: status.queuedAt }),
    ...(status.startedAt === undefined ? {} : { startedAt: status.startedAt }),
    ...(status.finishedAt === undefined ? {} : { finishedAt: status.finishedAt }),
    // As the history store's summary has them: the status's, else the spec's.
    ...((status.params ?? latest.spec.params) === undefined ? {} : { params: status.params ?? latest.spec.params }),
  };
}

function validCondition(
  dag: DagResource,
  valid: boolean,
  errors: number,
  now: Date,
): NonNullable<DagStatus['conditions']>[number] {
  const previous = dag.status?.conditions?.find((c) => c.type === 'Valid');
  const status = valid ? 'True' : 'False';
  return {
    type: 'Valid',
    status,
    reason: valid ? 'Loaded' : 'InvalidDefinition',
    message: valid ? 'the definition loads without errors' : `${String(errors)} error(s); see status.errors`,
    // The transition time moves only when the condition's status changes.
    lastTransitionTime: previous?.status === status ? previous.lastTransitionTime : now.toISOString(),
    observedGeneration: dag.metadata?.generation ?? 0,
  };
}

export class DagReconciler {
  private readonly deps: DagReconcilerDeps;
  /**
   * The store's newest run of each DAG (by `namespace/name` of the DAG resource), read only
   * while etcd holds none of its runs, and kept until a run of the DAG is deleted (archived).
   */
  private readonly archived = new Map<string, LatestRun | undefined>();

  constructor(deps: DagReconcilerDeps) {
    this.deps = deps;
  }

  async reconcile(key: string): Promise<{ requeueAfterMs?: number } | undefined> {
    const [namespace = '', name = ''] = key.split('/');
    const dag = this.deps.dags.get(namespace, name);
    if (dag === undefined) {
      this.archived.delete(key);
      return undefined;
    }
    const now = this.deps.clock.now();
    const runs = this.deps.runs.list(namespace);
    const archived = runsOfDag(dag, runs).length === 0 ? await this.archivedLatest(key, dag) : undefined;
    const status = dagStatus(dag, runs, now, this.deps.zone, {
      archived,
      policy: this.deps.policyOf?.(dag.metadata?.namespace ?? ''),
    });
    if (!sameContent(status, dag.status ?? {})) {
      const written = await ignoreConflict(this.deps.dagClient.replaceStatus({ ...dag, status }));
      if (written === undefined) return { requeueAfterMs: 0 };
      this.deps.onWrite?.();
    }
    // The next start moves on by itself: look again when it has passed.
    return status.nextRun === undefined
      ? undefined
      : { requeueAfterMs: Math.max(1000, Date.parse(status.nextRun) - now.getTime() + 1000) };
  }

  /** A run of the DAG was deleted (archived, or by retention): its newest archived run is read again next time. */
  forgetArchived(dagKey: string): void {
    this.archived.delete(dagKey);
  }

  private async archivedLatest(key: string, dag: DagResource): Promise<LatestRun | undefined> {
    const read = this.deps.archivedLatest;
    if (read === undefined) return undefined;
    if (this.archived.has(key)) return this.archived.get(key);
    const summary = await read(dag.metadata?.namespace ?? '', loadedDag(dag).dag.name);
    const latest = summary === undefined ? undefined : latestFromSummary(summary);
    this.archived.set(key, latest);
    return latest;
  }
}

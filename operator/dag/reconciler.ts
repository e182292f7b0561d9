/**
 * The DAG reconciler: keeps a DAG resource's status current, so that `kubectl get dags` and
 * the API see whether it is valid, its schedule, its next start and its latest run.
 * Suspension is the `kubedag.io/suspended` annotation (the API sets it), mirrored here.
 */
import { formatIssue, nextStart } from '../../core/dag/index.ts';
import { loadDagSpec } from '../../core/resources/dag.ts';
import type { Informer } from '../../core/kube/informer.ts';
import { type Clock } from '../../core/kube/time.ts';
import type { ResourceClient } from '../../core/kube/client.ts';
import { ignoreConflict } from '../../core/kube/errors.ts';
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import type { DagStatus } from '../../core/resources/schemas.ts';
import type { DagResource, DagRunResource } from '../../core/resources/types.ts';
import { sameContent } from '../../core/kube/equal.ts';

export interface DagReconcilerDeps {
  readonly dagClient: ResourceClient<DagResource>;
  readonly dags: Informer<DagResource>;
  readonly runs: Informer<DagRunResource>;
  readonly clock: Clock;
  /** The scheduler's zone for expressions without CRON_TZ, so nextRun agrees with the scheduler. */
  readonly zone?: string;
  readonly onWrite?: () => void;
}

/** The status a DAG resource should have. Pure. */
export function dagStatus(dag: DagResource, runs: readonly DagRunResource[], now: Date, zone = 'UTC'): DagStatus {
  const fileName = dag.metadata?.annotations?.[ANNOTATIONS.fileName] ?? dag.metadata?.name ?? '';
  const load = loadDagSpec(dag.spec, { fileName });
  const valid = load.errors.length === 0;
  const next = valid ? nextStart(load.dag.schedule, now, zone) : undefined;
  const latest = latestRun(dag, runs);
  const generation = dag.metadata?.generation ?? 0;
  return {
    observedGeneration: generation,
    valid,
    errors: load.errors.map(formatIssue),
    warnings: load.warnings.map(formatIssue),
    suspended: dag.metadata?.annotations?.[ANNOTATIONS.suspended] === 'true',
    schedule: load.dag.schedule.start.map((s) => s.expression).join(', '),
    ...(next === undefined ? {} : { nextRun: next.toISOString() }),
    ...(latest === undefined ? {} : { latestRun: latest }),
    conditions: [validCondition(dag, valid, load.errors.length, now)],
  };
}

function latestRun(dag: DagResource, runs: readonly DagRunResource[]): DagStatus['latestRun'] {
  // A Date from a typed client, an RFC 3339 string from a watch: compare as instants.
  const created = (r: DagRunResource): number => new Date(r.metadata?.creationTimestamp ?? 0).getTime();
  const latest = [...runs].filter((r) => r.spec.dagRef?.name === dag.metadata?.name).sort((a, b) => created(b) - created(a))[0];
  if (latest === undefined) return undefined;
  const status = latest.status ?? {};
  return {
    resourceName: latest.metadata?.name ?? '',
    dagRunId: latest.spec.dagRunId ?? '',
    status: status.status ?? 0,
    statusLabel: status.statusLabel ?? 'not_started',
    ...(status.startedAt === undefined ? {} : { startedAt: status.startedAt }),
    ...(status.finishedAt === undefined ? {} : { finishedAt: status.finishedAt }),
  };
}

function validCondition(dag: DagResource, valid: boolean, errors: number, now: Date): NonNullable<DagStatus['conditions']>[number] {
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

  constructor(deps: DagReconcilerDeps) {
    this.deps = deps;
  }

  async reconcile(key: string): Promise<{ requeueAfterMs?: number } | undefined> {
    const [namespace = '', name = ''] = key.split('/');
    const dag = this.deps.dags.get(namespace, name);
    if (dag === undefined) return undefined;
    const now = this.deps.clock.now();
    const status = dagStatus(dag, this.deps.runs.list(namespace), now, this.deps.zone);
    if (!sameContent(status, dag.status ?? {})) {
      const written = await ignoreConflict(this.deps.dagClient.replaceStatus({ ...dag, status }));
      if (written === undefined) return { requeueAfterMs: 0 };
      this.deps.onWrite?.();
    }
    // The next start moves on by itself: look again when it has passed.
    return status.nextRun === undefined ? undefined : { requeueAfterMs: Math.max(1000, Date.parse(status.nextRun) - now.getTime() + 1000) };
  }
}

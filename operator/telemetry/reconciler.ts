/**
 * Exports the trace of each finished, traced run once, level-triggered: from the run's status
 * and its telemetry Pod as the cache shows them, `decideTelemetry` (pure) says whether to create
 * the Pod, record how it ended, or remove it once recorded. The operator can die between any
 * two writes: the Pod's name is derived (a second create finds the first), its result is read
 * from the Pod until the status holds it, and a recorded export is never started again, so the
 * spans are sent once per execution of the run (a retry in place is a new one, with new ids).
 */
import type { V1Pod } from '@kubernetes/client-node';
import { podFailure, removal } from '../run/pods/helper-pod.ts';
import type { Informer } from '../../core/kube/informer.ts';
import type { Clock } from '../../core/kube/time.ts';
import type { DagRunStatus } from '../../core/resources/schemas.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import type { StepDefaults } from '../config.ts';
import type { RunDefinition } from '../run/decide/run-definition.ts';
import type { PodWriter } from '../run/shared/pod-writer.ts';
import { traced } from '../run/pods/trace-context.ts';
import type { RunWriter } from '../run/shared/status-writer.ts';
import type { Dag } from '../../core/dag/index.ts';
import { telemetryPod, telemetryPodName, telemetryToken, type TelemetryRunner } from './pod.ts';

type Recorded = NonNullable<DagRunStatus['telemetry']>;

export type TelemetryAction =
  | { readonly kind: 'none' }
  | { readonly kind: 'create'; readonly pod: V1Pod }
  | { readonly kind: 'record'; readonly telemetry: Omit<Recorded, 'finishedAt'> }
  | { readonly kind: 'delete'; readonly pod: string };

export interface TelemetryInput {
  readonly run: DagRunResource;
  readonly dag: Dag;
  /** The run's telemetry Pod for the current execution, as the cache shows it. */
  readonly pod: V1Pod | undefined;
  readonly runner: TelemetryRunner;
  readonly steps: Pick<StepDefaults, 'security' | 'user'>;
}

/** What to do about a finished run's trace export next. Pure. */
export function decideTelemetry(input: TelemetryInput): TelemetryAction {
  const { run, dag, pod } = input;
  if (run.status?.finishedAt === undefined || !traced(dag)) return { kind: 'none' };
  if (run.status.telemetry?.token === telemetryToken(run)) return removal(pod);
  if (pod === undefined) {
    const created = telemetryPod(input);
    return created === undefined ? { kind: 'none' } : { kind: 'create', pod: created };
  }
  const phase = pod.status?.phase;
  if (phase === 'Succeeded') return { kind: 'record', telemetry: { token: telemetryToken(run), state: 'exported' } };
  if (phase === 'Failed')
    return {
      kind: 'record',
      telemetry: { token: telemetryToken(run), state: 'failed', message: podFailure(pod, 'telemetry') },
    };
  return { kind: 'none' };
}

export interface TelemetryDeps {
  readonly pods: Informer<V1Pod>;
  readonly podWriter: PodWriter;
  readonly writer: RunWriter;
  readonly clock: Clock;
  readonly runner: TelemetryRunner;
  readonly steps: StepDefaults;
}

export class TelemetryReconciler {
  private readonly deps: TelemetryDeps;

  constructor(deps: TelemetryDeps) {
    this.deps = deps;
  }

  /** One step towards the finished run's export; the Pod's and the run's next changes bring the next. */
  async reconcile(run: DagRunResource, { dag }: RunDefinition): Promise<void> {
    const { deps } = this;
    const namespace = run.metadata?.namespace ?? '';
    const action = decideTelemetry({
      run,
      dag,
      pod: deps.pods.get(namespace, telemetryPodName(run)),
      runner: deps.runner,
      steps: deps.steps,
    });
    switch (action.kind) {
      case 'create':
        await deps.podWriter.create(namespace, action.pod);
        return;
      case 'record':
        await deps.writer.writeStatus(run, {
          ...run.status,
          telemetry: { ...action.telemetry, finishedAt: deps.clock.now().toISOString() },
        });
        return;
      case 'delete':
        await deps.podWriter.delete(namespace, action.pod);
        return;
      case 'none':
        return;
    }
  }
}

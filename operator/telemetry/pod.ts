/**
 * The telemetry Pod of a finished, traced run: `kubedag-step telemetry` from the step runner's
 * image, with the run's spans (trace.ts) in $KUBEDAG_TELEMETRY, owned by the run, named from
 * the run and the retry it ended, so that a second create finds the first. It exports and
 * exits; the export is the Pod's, never the operator's (no user-directed network call leaves
 * the operator). Pure.
 */
import type { V1EnvVar, V1Pod } from '@kubernetes/client-node';
import type { Dag } from '../../core/dag/index.ts';
import { LABELS } from '../../core/resources/constants.ts';
import { labelValue, runSecretName, stepPodName } from '../../core/resources/names.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { TELEMETRY_ENV } from '../../core/runner/telemetry.ts';
import type { StepDefaults } from '../config.ts';
import { TELEMETRY_LABEL } from '../run/pods/pod-kinds.ts';
import { ownerReference, runRef } from '../run/ref.ts';
import { securityContexts } from '../run/pods/security.ts';
import { telemetrySpec } from '../run/pods/trace-context.ts';

/** Where the step runner comes from: the operator's --runner-image, as for executor steps. */
export interface TelemetryRunner {
  readonly image: string;
  readonly command: readonly string[];
}

export const TELEMETRY_COMMAND: readonly string[] = ['kubedag-step', 'telemetry'];

/** The retry a finished run ended: '' before any retry. Its telemetry is recorded under it. */
export function telemetryToken(run: DagRunResource): string {
  return run.status?.retryToken ?? '';
}

export function telemetryPodName(run: DagRunResource): string {
  const token = telemetryToken(run);
  return stepPodName(run.metadata?.name ?? '', token === '' ? 'telemetry' : `telemetry-${token}`, 0);
}

export interface TelemetryPodRequest {
  readonly run: DagRunResource;
  readonly dag: Dag;
  readonly runner: TelemetryRunner;
  readonly steps: Pick<StepDefaults, 'security' | 'user'>;
}

/** The Pod, or undefined when the run exports nothing (otel not enabled). */
export function telemetryPod(request: TelemetryPodRequest): V1Pod | undefined {
  const { run, dag, runner } = request;
  const spec = telemetrySpec(dag, run);
  if (spec === undefined) return undefined;
  const ref = runRef(run);
  // `${VAR}` in headers and resource attributes expands from these: the names Dagu offers
  // there (DAG_NAME, the environment), the run id, and the run's secrets by reference.
  const env: V1EnvVar[] = [
    { name: TELEMETRY_ENV, value: JSON.stringify(spec) },
    { name: 'DAG_NAME', value: ref.dagName },
    { name: 'DAG_RUN_ID', value: ref.dagRunId },
    ...dag.secrets.map((s) => ({
      name: s.name,
      valueFrom: { secretKeyRef: { name: runSecretName(ref.name), key: s.name } },
    })),
  ];
  const security = securityContexts(request.steps, undefined, undefined);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: telemetryPodName(run),
      namespace: ref.namespace,
      labels: { [LABELS.run]: labelValue(ref.name), [LABELS.dag]: labelValue(ref.dagName), [TELEMETRY_LABEL]: 'true' },
      ownerReferences: [ownerReference(ref)],
    },
    spec: {
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      ...(security.pod === undefined ? {} : { securityContext: security.pod }),
      containers: [
        {
          name: 'telemetry',
          image: runner.image,
          command: [...runner.command],
          env,
          ...(security.container === undefined ? {} : { securityContext: security.container }),
        },
      ],
    },
  };
}

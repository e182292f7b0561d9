/**
 * The objects a launch creates, built from data: the step Pod of an attempt (through step-pod.ts's
 * builder, with the variables the step sees) and the child DAGRun of a sub-DAG attempt. Pure.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { expand, type Dag, type EnvVar } from '../../../core/dag/index.ts';
import { ANNOTATIONS, LABELS } from '../../../core/resources/constants.ts';
import { dagResourceName, execServiceAccountName, runSecretName } from '../../../core/resources/names.ts';
import type { DagRunStatus } from '../../../core/resources/schemas.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import { childParams, subRunId } from '../decide/children.ts';
import { enqueuedRun } from '../decide/enqueue.ts';
import { literalPrecondition, type RunDefinition } from '../decide/run-definition.ts';
import type { Launch } from '../decide/engine.ts';
import { ITEM_LABEL } from '../decide/observed.ts';
import { executorSpec } from '../pods/executor-spec.ts';
import { stepPod } from '../pods/step-pod.ts';
import { attemptTraceparent, traced } from '../pods/trace-context.ts';
import { withPodSettings } from '../pods/pod-settings.ts';
import { PREPARE_STEP } from '../decide/prepare.ts';
import { ownerReference, type RunRef } from '../ref.ts';
import { outputVars, stepRefs, variables, withResolvedScript, withStepOutputsResolved } from '../decide/variables.ts';
import { pushBackVars } from '../decide/approval.ts';
import { handlerRunStatus, waitHandlerVars } from '../decide/wait-handler.ts';
import { stepLogDir, stepWorkingDir, type Workspace } from '../pods/workspace.ts';
import { stepArtifactsDir } from '../pods/artifact-lines.ts';
import type { StepDefaults } from '../../config.ts';

/** What a launch is made in: the run, its loaded definition, and its status with large outputs filled in. */
export interface LaunchContext {
  readonly run: DagRunResource;
  readonly ref: RunRef;
  readonly definition: RunDefinition;
  readonly status: DagRunStatus;
  readonly steps: StepDefaults;
  /** The run's workspace (workspace.ts), undefined when turned off. */
  readonly workspace: Workspace | undefined;
  /** The run's image pull Secret from `registryAuths`, when it has one. */
  readonly registrySecret: string | undefined;
  /** Steps with containerName and image whose container ran when they were launched. */
  readonly runningContainers?: ReadonlySet<string>;
}

/** DAG_RUN_ARTIFACTS_DIR for a run that keeps artifacts; the prepare Pod runs no step of the DAG. */
function artifactsDirOf(dag: Dag, preparing: boolean, workspace: Workspace | undefined): { artifactsDir?: string } {
  return dag.artifacts === undefined || preparing ? {} : { artifactsDir: stepArtifactsDir(workspace) };
}

/** The Pod of a step attempt. */
export function attemptPod(context: LaunchContext, launch: Launch): V1Pod {
  const { ref, definition, status, workspace } = context;
  const vars = variables(definition, status, launch.step, definition.dag.steps);
  // The prepare Pod computes the run's variables: its environment must be the image's own.
  const preparing = launch.step.name === PREPARE_STEP;
  const logDir = stepLogDir(workspace);
  const refs = stepRefs(definition.dag, status, logDir);
  const expandText = (text: string): string => expand(text, { scopes: [], environment: vars, steps: refs }).value;
  const command = launch.step.cmdWithArgs === undefined ? undefined : expandText(launch.step.cmdWithArgs);
  // Scripts resolve step references and JSON paths here, executor steps' input included.
  const step = preparing ? launch.step : withResolvedScript(withStepOutputsResolved(launch.step, refs), vars, refs);
  const env = preparing
    ? []
    : [
        ...definition.env,
        ...traceVars(context, launch),
        ...outputVars(launch.step, definition.dag.steps, status),
        ...pushBackVars(launch.step, status),
        ...waitHandlerVars(launch, status),
      ];
  const envNames = [...env, ...launch.step.env]
    .map((v) => v.name)
    .concat(['DAG_NAME', 'DAG_RUN_ID', 'DAG_RUN_STEP_NAME'], launch.handler === undefined ? [] : ['DAG_RUN_STATUS']);
  const exec = {
    namespace: ref.namespace,
    runName: ref.name,
    expandWord: expandText,
    envNames,
    containerRunning: context.runningContainers?.has(launch.step.name) === true,
    ...(definition.container === undefined ? {} : { container: definition.container }),
  };
  const spec = executorSpec(definition.dag, step, command, exec);
  const pod = stepPod({
    run: ref,
    dag: definition.dag,
    step,
    attempt: launch.attempt,
    pod: launch.pod,
    ...(launch.handler === undefined
      ? {}
      : { handler: launch.handler, runStatus: handlerRunStatus(launch.handler, status) }),
    env,
    positional: definition.positional,
    ...(command === undefined ? {} : { command }),
    defaultImage: context.steps.image,
    podPreconditions: step.preconditions.filter((c) => literalPrecondition(c, vars) === undefined),
    ...(definition.dag.secrets.length === 0 || preparing
      ? {}
      : { secrets: { secretName: runSecretName(ref.name), names: definition.dag.secrets.map((x) => x.name) } }),
    ...optionalDir(stepWorkingDir(definition.dag, launch.step, workspace)),
    logDir,
    ...artifactsDirOf(definition.dag, preparing, workspace),
    ...(spec === undefined ? {} : { runner: { spec, image: context.steps.runnerImage } }),
  });
  // A step that execs runs as the run's exec ServiceAccount (run-resources.ts), unless its DAG names one.
  const serviceAccount = spec?.type === 'container-exec' ? execServiceAccountName(ref.name) : undefined;
  return withPodSettings(pod, {
    settings: launch.step.kubernetes,
    defaults: context.steps,
    workspace,
    registrySecret: context.registrySecret,
    ...(serviceAccount === undefined ? {} : { serviceAccount }),
  });
}

/** TRACEPARENT of the attempt's span when the run is traced (trace-context.ts); Dagu passes it to sub-DAGs, Kubedag to every step. */
function traceVars(context: LaunchContext, launch: Launch): EnvVar[] {
  return traced(context.definition.dag)
    ? [{ name: 'TRACEPARENT', value: attemptTraceparent(context.run, launch.step.name, launch.attempt) }]
    : [];
}

const optionalDir = (workingDir: string | undefined): { workingDir?: string } =>
  workingDir === undefined ? {} : { workingDir };

/**
 * A sub-DAG step's attempt is a child DAGRun, named like the Pod it stands for, with a run id
 * derived from the parent's: a repeated create finds the same child, never a second one.
 */
export function childRun(context: LaunchContext, launch: Launch): DagRunResource {
  const { run, ref, definition, status } = context;
  const step = launch.step;
  const vars = variables(definition, status, step, definition.dag.steps);
  const local = definition.localDags.find((d) => d.name === step.call);
  const params = childParams(step, vars, launch.item?.value);
  const stepKey = launch.item === undefined ? step.name : `${step.name}[${String(launch.item.index)}]`;
  return {
    metadata: {
      name: launch.pod,
      namespace: ref.namespace,
      labels: {
        [LABELS.attempt]: String(launch.attempt),
        ...(launch.item === undefined ? {} : { [ITEM_LABEL]: String(launch.item.index) }),
      },
      annotations: {
        [ANNOTATIONS.step]: step.name,
        ...(traced(definition.dag)
          ? { [ANNOTATIONS.traceparent]: attemptTraceparent(run, step.name, launch.attempt) }
          : {}),
      },
      ownerReferences: [ownerReference(ref)],
    },
    spec: {
      ...(local === undefined
        ? { dagRef: { name: dagResourceName(step.call ?? '') } }
        : { definition: local.document }),
      dagName: step.call,
      dagRunId: subRunId(ref.dagRunId, stepKey, launch.attempt),
      ...(params === undefined ? {} : { params }),
      trigger: 'sub-run',
      parent: { name: ref.dagName, dagRunId: ref.dagRunId },
      root: run.spec.root ?? { name: ref.dagName, dagRunId: ref.dagRunId },
    },
  };
}

/** An enqueue step's attempt: a queued root run of the called DAG (decide/enqueue.ts). */
export function queuedRun(context: LaunchContext, launch: Launch): DagRunResource {
  const { ref, definition, status } = context;
  const vars = variables(definition, status, launch.step, definition.dag.steps);
  const params = childParams(launch.step, vars, launch.item?.value);
  const local = definition.localDags.find((d) => d.name === launch.step.call);
  return enqueuedRun(launch, {
    namespace: ref.namespace,
    parentRunId: ref.dagRunId,
    ...(local === undefined ? {} : { localDocument: local.document }),
    ...(params === undefined ? {} : { params }),
  });
}

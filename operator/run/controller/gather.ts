/**
 * Gather: everything one decision about a running run depends on, read from the caches and
 * the log store into a plain snapshot (engine.ts's RunInput), and after the decision what
 * building its launches reads (forLaunches), so that act only writes. Only reads: archiving logs and
 * creating the run's Secret are the log archiver's (operator/logs/archiver.ts), which enqueues
 * the run once an attempt's stdout is in the store.
 */
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { ignoreNotFound } from '../../../core/kube/errors.ts';
import { chooseContainer } from '../../../core/kube/pod-container.ts';
import type { DagRunStatus } from '../../../core/resources/schemas.ts';
import { isAttemptPod } from '../pods/pod-kinds.ts';
import type { Informer } from '../../../core/kube/informer.ts';
import type { Clock } from '../../../core/kube/time.ts';
import { LABELS } from '../../../core/resources/constants.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import { readsStderr, type Dag, type Step } from '../../../core/dag/index.ts';
import { logRefOf } from '../../logs/keys.ts';
import type { LogStore } from '../../logs/store.ts';
import type { DefinitionCache } from '../shared/loaded-definitions.ts';
import type { Decision, Launch, RunInput, ObservedPod } from '../decide/engine.ts';
import { mayRunInContainer, namedContainer } from '../pods/executor-spec.ts';
import { outputFromStdout } from '../pods/output-values.ts';
import type { Expectations } from '../shared/expectations.ts';
import type { RunSegments } from '../shared/segments.ts';
import { endSigns, isFinished, observeChild, ownedBy, ownerRunName, podIdentity, podOver } from '../decide/observed.ts';
import { phaseEnded } from '../decide/work.ts';
import { declaresOutputs } from '../decide/declared-outputs.ts';
import { picksFiles } from '../decide/picked-files.ts';
import { parseReport } from '../pods/step-pod.ts';
import { PREPARE_STEP } from '../decide/prepare.ts';
import { runRef, type RunRef } from '../ref.ts';

export interface GatherDeps {
  readonly runs: Informer<DagRunResource>;
  readonly pods: Informer<V1Pod>;
  readonly store: LogStore;
  /** Reads Pods that are none of Kubedag's (not cached): containers docker steps exec into. */
  readonly core: Pick<CoreV1Api, 'readNamespacedPod'>;
  readonly clock: Clock;
  readonly definitions: DefinitionCache;
  /** The run's sealed step records, and its children's (a finished child's outputs). */
  readonly segments: RunSegments;
  readonly expectations: Expectations;
  /** The operator's cap on one run's running step Pods (0: none). */
  readonly maxPodsPerRun: number;
  /** The cap on running step Pods of all runs together (0: none). */
  readonly maxPods: number;
  readonly routineEvents: boolean;
  /** Most runs a `dag.enqueue` step over items creates per reconcile. */
  readonly enqueueBatch: number;
}

/** What building a decision's launches reads, gathered after the decision and before act. */
export interface LaunchFacts {
  /** The decision's status with the values of large outputs (outputRefs) filled in from the log store. */
  readonly status: DagRunStatus;
  /** Launched docker steps with containerName and image whose container runs now: they exec into it, as in Dagu. */
  readonly runningContainers: ReadonlySet<string>;
}

export class RunGatherer {
  private readonly deps: GatherDeps;

  constructor(deps: GatherDeps) {
    this.deps = deps;
  }

  /** The step Pods a run controls, from the cache. */
  podsOf(run: DagRunResource): V1Pod[] {
    return this.deps.pods.list(run.metadata?.namespace).filter(ownedBy(run)).filter(isAttemptPod);
  }

  async snapshot(run: DagRunResource): Promise<RunInput> {
    const { deps } = this;
    const ref = runRef(run);
    // The freezer has read it already (freezing.ts): this is a cache hit.
    const definition = await deps.definitions.load(run);
    if (definition === undefined) throw new Error(`run ${ref.key}: its frozen definition cannot be read`);
    const pods = this.podsOf(run);
    const children = await Promise.all(
      deps.runs
        .list(ref.namespace)
        .filter(ownedBy(run))
        .map(async (child) => (isFinished(child) ? deps.segments.expand(child) : child)),
    );
    const observed = [
      ...(await Promise.all(pods.map((pod) => this.observe(pod, ref, definition.dag)))),
      ...children.map(observeChild),
    ];
    return {
      definition,
      run: { name: ref.name, dagRunId: ref.dagRunId },
      status: (await deps.segments.expand(run)).status ?? {},
      stop: run.spec.stop === true,
      approvals: run.spec.approvals ?? {},
      pods: observed,
      expected: deps.expectations.pending(new Set(pods.map((p) => p.metadata?.name ?? ''))),
      now: deps.clock.now(),
      maxRunningPods: deps.maxPodsPerRun,
      routineEvents: deps.routineEvents,
      enqueueBatch: deps.enqueueBatch,
      ...(deps.maxPods > 0 ? { podBudget: Math.max(0, deps.maxPods - this.activePods()) } : {}),
    };
  }

  /** What building the decision's launches reads; nothing without launches. */
  async forLaunches(run: DagRunResource, decision: Decision): Promise<LaunchFacts> {
    if (decision.launch.length === 0) return { status: decision.status, runningContainers: new Set() };
    const ref = runRef(run);
    // Launched steps see large outputs too, read back from the log store.
    return {
      status: await this.withLargeOutputs(ref, decision.status),
      runningContainers: await this.runningContainers(ref, decision.launch),
    };
  }

  private async runningContainers(ref: RunRef, launches: readonly Launch[]): Promise<Set<string>> {
    const running = new Set<string>();
    for (const { step } of launches) {
      if (!mayRunInContainer(step)) continue;
      const { pod, container } = namedContainer(step);
      if (await this.containerRunning(ref.namespace, pod, container)) running.add(step.name);
    }
    return running;
  }

  /** Whether a Pod of the namespace that is none of Kubedag's (so not cached) runs the container named, or its default one. */
  private async containerRunning(namespace: string, name: string, container: string | undefined): Promise<boolean> {
    const pod = await ignoreNotFound(this.deps.core.readNamespacedPod({ namespace, name }));
    return pod !== undefined && 'container' in chooseContainer(pod, container);
  }

  private async withLargeOutputs(ref: RunRef, status: DagRunStatus): Promise<DagRunStatus> {
    const nodes = status.nodes ?? [];
    if (!nodes.some((n) => n.outputRefs !== undefined)) return status;
    const read = async (step: string, attempt: number): Promise<string> =>
      outputFromStdout((await this.deps.store.read(logRefOf(ref, step, attempt), 'stdout')) ?? '');
    const filled = await Promise.all(
      nodes.map(async (node) => {
        if (node.outputRefs === undefined) return node;
        const values = await Promise.all(
          Object.entries(node.outputRefs).map(async ([name, at]) => [name, await read(node.name, at.attempt)] as const),
        );
        return { ...node, outputs: { ...node.outputs, ...Object.fromEntries(values) } };
      }),
    );
    return { ...status, nodes: filled };
  }

  /**
   * What a Pod tells: phase, and once terminated its exit and report. A step whose stdout the
   * decision needs (an output, continueOn.output, the prepare step) reports once its log is in
   * the store; until then it has no report, and the engine waits for it.
   */
  private async observe(pod: V1Pod, ref: RunRef, dag: Dag): Promise<ObservedPod> {
    const base = { ...podIdentity(pod), ...endSigns(pod) };
    const terminated = pod.status?.containerStatuses?.[0]?.state?.terminated;
    if (terminated === undefined || !phaseEnded(base.phase)) return base;
    const report = { exitCode: terminated.exitCode, ...parseReport(terminated.message) };
    if (!reportsWithStdout(dag, base.step)) return { ...base, report };
    const streams = await this.streamsOf(logRefOf(ref, base.step, base.attempt), dag, base.step);
    return streams === undefined ? base : { ...base, report: { ...report, ...streams } };
  }

  /** What of an attempt's archived log the decision reads; undefined until it is all in the store. */
  private async streamsOf(
    logRef: ReturnType<typeof logRefOf>,
    dag: Dag,
    stepName: string,
  ): Promise<{ stdout: string; stderr?: string; outputRecords?: string; pickedFiles?: string } | undefined> {
    const declares = declaresOutputs(dag, stepName);
    const readsFiles = picksFiles(dag, stepName);
    const needsStderr = readsStderr(findStep(dag, stepName)?.pickedOutputs);
    // stderr is written last (LogStore.write): read first, it says the output records are there too.
    const stderr = declares || readsFiles || needsStderr ? await this.deps.store.read(logRef, 'stderr') : '';
    const stdout = stderr === undefined ? undefined : await this.deps.store.read(logRef, 'stdout');
    if (stdout === undefined) return undefined;
    const outputRecords = declares ? ((await this.deps.store.read(logRef, 'outputs')) ?? '') : undefined;
    const pickedFiles = readsFiles ? ((await this.deps.store.read(logRef, 'picked')) ?? '') : undefined;
    return {
      stdout,
      ...(needsStderr ? { stderr } : {}),
      ...(outputRecords === undefined ? {} : { outputRecords }),
      ...(pickedFiles === undefined ? {} : { pickedFiles }),
    };
  }

  /**
   * Whether an ended step Pod's attempt reports only once its log is archived (its run's
   * decision needs the stdout): then the archiver, not the Pod's own change, brings the run on.
   */
  awaitsLog(pod: V1Pod): boolean {
    const owner = ownerRunName(pod);
    const run = owner === undefined ? undefined : this.deps.runs.get(pod.metadata?.namespace, owner);
    // A definition not loaded yet cannot say: the run is enqueued, and waits if it must.
    const definition = run === undefined || isFinished(run) ? undefined : this.deps.definitions.get(run);
    return definition !== undefined && reportsWithStdout(definition.dag, podIdentity(pod).step);
  }

  /** Step Pods of all runs that run or are about to: what the overall cap counts. */
  private activePods(): number {
    const pods = this.deps.pods.list();
    const claimed = this.deps.expectations.claimedCount(new Set(pods.map((pod) => pod.metadata?.name ?? '')));
    return (
      pods.filter(
        (pod) =>
          pod.metadata?.labels?.[LABELS.run] !== undefined &&
          isAttemptPod(pod) &&
          pod.metadata.deletionTimestamp === undefined &&
          !podOver(pod),
      ).length + claimed
    );
  }
}

function findStep(dag: Dag, name: string): Step | undefined {
  return dag.steps.find((s) => s.name === name) ?? Object.values(dag.handlerOn).find((s) => s.name === name);
}

/** A step whose logs a decision reads: an output, declared outputs, output_schema, continueOn.output, or the prepare step. */
function reportsWithStdout(dag: Dag, stepName: string): boolean {
  if (stepName === PREPARE_STEP) return true;
  const step = findStep(dag, stepName);
  return (
    step !== undefined &&
    (step.output !== undefined ||
      step.declaredOutputs !== undefined ||
      step.pickedOutputs !== undefined ||
      step.outputSchema !== undefined ||
      step.continueOn.output.length > 0)
  );
}

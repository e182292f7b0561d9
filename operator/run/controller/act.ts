/**
 * Act: carries out a decision about a running run. Launches (step Pods and child runs), stops,
 * the status write, Events and the step and run metrics. Only writes: what building the
 * launched objects reads (large outputs from the log store, containers that run now) gather
 * read before (gather.ts, forLaunches).
 */
import type { DagRunStatus } from '../../../core/resources/schemas.ts';
import { stepDone } from '../../../core/resources/status.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import type { Informer } from '../../../core/kube/informer.ts';
import type { Clock } from '../../../core/kube/time.ts';
import type { Logger } from '../../../core/log.ts';
import { apiErrorMessage, createFailure } from '../../../core/kube/errors.ts';
import type { OperatorMetrics } from '../../metrics.ts';
import type { Decision, Launch, RunInput } from '../decide/engine.ts';
import type { Expectations } from '../shared/expectations.ts';
import { attemptPod, childRun, queuedRun, type LaunchContext } from './launch-objects.ts';
import { isEnqueue, withEnqueued } from '../decide/enqueue.ts';
import { withRefusals, type Refusal } from '../decide/launch-refusals.ts';
import type { PodWriter } from '../shared/pod-writer.ts';
import { runKey, runRef } from '../ref.ts';
import type { RunObjects } from './run-resources.ts';
import type { RunEnder } from './run-ender.ts';
import type { RunWriter } from '../shared/status-writer.ts';
import type { LaunchFacts } from './gather.ts';
import type { StepDefaults } from '../../config.ts';

export interface ActDeps {
  readonly runs: Informer<DagRunResource>;
  readonly writer: RunWriter;
  readonly pods: PodWriter;
  readonly expectations: Expectations;
  readonly clock: Clock;
  readonly steps: StepDefaults;
  readonly objects: RunObjects;
  readonly log: Logger;
  readonly metrics?: OperatorMetrics;
  /** Ends a run whose status the API refuses (run-ender.ts). */
  readonly ender: RunEnder;
}

export class RunActor {
  private readonly deps: ActDeps;
  /** Step Pods already reported unschedulable, by run: one Warning per Pod, not per reconcile. */
  private readonly unschedulable = new Map<string, Set<string>>();
  /** The last reason a run's own objects could not be created, by run: one Warning per reason. */
  private readonly objectsFailed = new Map<string, string>();
  /** The last reason the API put off creating a run's step Pod or child run, by run: one Warning per reason. */
  private readonly launchWaiting = new Map<string, string>();

  constructor(deps: ActDeps) {
    this.deps = deps;
  }

  /**
   * Claims the decision's step Pods against the Pod caps. Called right after the decision,
   * before any await, so that runs reconciled side by side share the overall cap.
   */
  claim(decision: Decision): void {
    this.deps.expectations.claim(claimsOf(decision));
  }

  /** Gives back the claims of a decision that is not acted on. */
  release(decision: Decision): void {
    this.deps.expectations.release(claimsOf(decision));
  }

  /** Acts on a claimed decision; `launching` is what gather read for its launches (RunGatherer.forLaunches). */
  async act(run: DagRunResource, input: RunInput, decision: Decision, launching: LaunchFacts): Promise<void> {
    const { expectations, writer } = this.deps;
    let refusals: Refusal[];
    try {
      refusals = await this.launch(run, input, decision, launching);
    } catch (error) {
      this.release(decision);
      throw error;
    }
    expectations.release(refusals.map((r) => r.launch.pod));
    for (const stop of decision.stop) await this.stop(run, stop.pod);
    // A refusal is recorded with the decision, so the next one (the write brings it) sees a failed attempt.
    // An enqueue step ends when its queued run exists: it does not wait for that run.
    const refused = new Set(refusals.map((r) => r.launch));
    const enqueued = decision.launch.filter((l) => isEnqueue(l.step) && !refused.has(l));
    const now = this.deps.clock.now();
    const status = withEnqueued(withRefusals(decision.status, refusals, now), enqueued, now, input.run.dagRunId);
    let written: boolean;
    try {
      written = await writer.writeStatus(run, status);
    } catch (error) {
      // Refused for good, or a stop that cannot be written: the run ends with what still fits.
      await this.deps.ender.afterFailedWrite(run, input, { ...decision, status }, error);
      this.forget(runKey(run));
      return;
    }
    if (written) this.count(run.status ?? {}, status, decision.launch);
    if (written && run.status?.finishedAt === undefined && status.finishedAt !== undefined)
      this.deps.log.info({ run: runKey(run), status: status.statusLabel }, 'run finished');
    for (const event of decision.events) writer.event(run, event.reason, event.message, event.warning === true);
    if (decision.status.finishedAt === undefined) this.warnUnschedulable(run, input);
    else this.forget(runKey(run));
  }

  /** A finished run warns no more: what was remembered to warn once goes. */
  private forget(key: string): void {
    this.unschedulable.delete(key);
    this.objectsFailed.delete(key);
    this.launchWaiting.delete(key);
  }

  /**
   * A step Pod no node can take (a ReadWriteOnce workspace on a node the step's selector
   * excludes, resources no node has) waits, as Kubernetes Pods do, since a node may yet come;
   * the run says why in a Warning Event rather than waiting in silence.
   */
  private warnUnschedulable(run: DagRunResource, input: RunInput): void {
    const key = runKey(run);
    const waiting = input.pods.filter((p) => p.unschedulable !== undefined && p.phase === 'Pending');
    if (waiting.length === 0) return;
    const warned = this.unschedulable.get(key) ?? new Set<string>();
    this.unschedulable.set(key, warned);
    for (const pod of waiting) {
      if (warned.has(pod.name)) continue;
      warned.add(pod.name);
      this.deps.writer.event(
        run,
        'StepUnschedulable',
        `step ${pod.step} (attempt ${String(pod.attempt)}) waits for a node: ${pod.unschedulable ?? ''}`,
        true,
      );
    }
  }

  /** Creates the decision's step Pods and child runs; returns the attempts the API refused for good. */
  private async launch(
    run: DagRunResource,
    input: RunInput,
    decision: Decision,
    launching: LaunchFacts,
  ): Promise<Refusal[]> {
    if (decision.launch.length === 0) return [];
    const ref = runRef(run);
    const objects = await this.deps.objects.ensure(ref, input.definition).catch((error: unknown) => {
      // The reconcile retries with backoff; the run says why it waits (a claim the quota
      // refuses, a RoleBinding the operator may not bind) instead of only the operator's log.
      const message = `the run's workspace, pull Secret or exec account could not be created: ${apiErrorMessage(error)}`;
      if (this.objectsFailed.get(ref.key) !== message) this.deps.writer.event(run, 'RunObjectsFailed', message, true);
      this.objectsFailed.set(ref.key, message);
      throw error;
    });
    this.objectsFailed.delete(ref.key);
    if (objects.registryError !== undefined)
      this.deps.writer.event(run, 'RegistryAuthsInvalid', objects.registryError, true);
    const context: LaunchContext = {
      run,
      ref,
      definition: input.definition,
      status: launching.status,
      steps: this.deps.steps,
      workspace: objects.workspace,
      registrySecret: objects.registrySecret,
      runningContainers: launching.runningContainers,
    };
    const refusals: Refusal[] = [];
    for (const launch of decision.launch) {
      const refusal = await this.create(run, context, launch);
      if (refusal !== undefined) refusals.push(refusal);
    }
    this.launchWaiting.delete(ref.key);
    return refusals;
  }

  /**
   * One attempt's step Pod or child run. A refusal that will not change by itself (an admission
   * policy, an invalid object) is returned, to fail the attempt; one that may pass later (a full
   * quota, throttling, a server error) is thrown on, and the reconcile retries with backoff,
   * the run saying why in a Warning Event once per reason.
   */
  private async create(run: DagRunResource, context: LaunchContext, launch: Launch): Promise<Refusal | undefined> {
    const { ref } = context;
    const key = runKey(run);
    const what = launch.step.call === undefined ? 'Pod' : 'child run';
    const attempt = `step ${launch.step.name} (attempt ${String(launch.attempt)})`;
    try {
      if (launch.step.call === undefined) await this.deps.pods.create(ref.namespace, attemptPod(context, launch));
      else if (isEnqueue(launch.step)) await this.deps.writer.createChild(ref.namespace, queuedRun(context, launch));
      else await this.deps.writer.createChild(ref.namespace, childRun(context, launch));
    } catch (error) {
      const message = apiErrorMessage(error);
      if (createFailure(error) === 'refused') {
        this.deps.log.info(
          { run: key, step: launch.step.name, attempt: launch.attempt, err: message },
          `step ${what} refused`,
        );
        this.deps.writer.event(
          run,
          'StepPodRefused',
          `${attempt}: the Kubernetes API refused its ${what}, so the attempt failed: ${message}`,
          true,
        );
        return { launch, message };
      }
      const waiting = `${attempt}: the Kubernetes API refused its ${what} for now; trying again: ${message}`;
      if (this.launchWaiting.get(key) !== waiting) this.deps.writer.event(run, 'StepPodWaiting', waiting, true);
      this.launchWaiting.set(key, waiting);
      throw error;
    }
    this.deps.log.debug(
      { run: key, step: launch.step.name, attempt: launch.attempt, pod: launch.pod },
      `${what === 'Pod' ? 'step Pod' : what} created`,
    );
    // Deterministic names: an existing object is this very attempt, created before.
    this.deps.expectations.expect(launch.pod);
    return undefined;
  }

  /** A child run stops the way any run does, by its spec; a step Pod by its deadline. */
  private async stop(run: DagRunResource, name: string): Promise<void> {
    const namespace = run.metadata?.namespace ?? '';
    this.deps.log.debug({ run: runKey(run), pod: name }, 'stopping an attempt');
    const child = this.deps.runs.get(namespace, name);
    if (child === undefined) await this.deps.pods.stop(namespace, name);
    else if (child.spec.stop !== true)
      await this.deps.writer.patchSpec(child, [{ op: 'add', path: '/spec/stop', value: true }]);
  }

  /** Counts what a status write changed: steps and runs that reached their end, step gaps. */
  private count(before: DagRunStatus, after: DagRunStatus, launches: readonly Launch[]): void {
    const metrics = this.deps.metrics;
    if (metrics === undefined) return;
    const doneBefore = new Set((before.nodes ?? []).filter((n) => stepDone(n.status)).map((n) => n.name));
    for (const node of after.nodes ?? [])
      if (stepDone(node.status) && !doneBefore.has(node.name)) metrics.stepsFinished.inc({ status: node.statusLabel });
    if (before.finishedAt === undefined && after.finishedAt !== undefined)
      metrics.runsFinished.inc({ status: after.statusLabel ?? '' });
    const now = this.deps.clock.now().getTime();
    for (const launch of launches) {
      metrics.stepsStarted.inc();
      const upstream = (after.nodes ?? [])
        .filter((n) => launch.step.depends.includes(n.name) && n.finishedAt !== undefined)
        .map((n) => Date.parse(n.finishedAt ?? ''));
      if (upstream.length > 0) metrics.stepGapSeconds.observe((now - Math.max(...upstream)) / 1000);
    }
  }
}

/** The step Pods a decision launches (child runs hold no Pod). */
function claimsOf(decision: Decision): string[] {
  return decision.launch.filter((l) => l.step.call === undefined).map((l) => l.pod);
}

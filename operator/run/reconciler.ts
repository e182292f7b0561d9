/**
 * The DAGRun reconciler: gather (the run, its Pods, its DAG, archived logs), decide (engine.ts,
 * pure), act (create and stop Pods, write status when it changed, record events, delete Pods
 * whose logs are safe). Keyed by `namespace/name`; every call starts from what is observed.
 */
import type { CoreV1Api, CustomObjectsApi, V1Pod } from '@kubernetes/client-node';
import type { Informer } from '../../core/kube/informer.ts';
import type { WorkResult } from '../../core/kube/queue.ts';
import { type Clock } from '../../core/kube/time.ts';
import { statusCode } from '../../core/kube/errors.ts';
import { ANNOTATIONS, GROUP, LABELS, VERSION } from '../../core/resources/constants.ts';
import { uuidv7 } from '../../core/resources/ids.ts';
import { dagResourceName, labelValue, runSecretName, stepPodName } from '../../core/resources/names.ts';
import { maskSecrets } from '../../core/logs/mask.ts';
import { RunStatus, stepDone } from '../../core/resources/status.ts';
import type { DagResource, DagRunResource } from '../../core/resources/types.ts';
import type { DagRunStatus } from '../../core/resources/schemas.ts';
import { expand, type Dag, type Step } from '../../core/dag/index.ts';
import type { LogRef, LogStore } from '../logs/store.ts';
import type { OperatorMetrics } from '../metrics.ts';
import { literalPrecondition, runDefinition, type RunDefinition } from './definition.ts';
import { handlerStatus, outputVars, resolveCount, stepRefs, variables } from './variables.ts';
import { decide, type Decision, type Launch, type ObservedPod } from './engine.ts';
import { withConditions } from './conditions.ts';
import { attemptOver, isFinished, ITEM_LABEL, observeChild, podIdentity } from './observed.ts';
import { freezePatch } from './freeze.ts';
import { retentionExpired } from './retention.ts';
import { childParams, parallelItems, subRunId } from './children.ts';
import { copiedRetryStatus, RETRY_ANNOTATION, RETRY_STEP_ANNOTATION, retryStatus } from './retry.ts';
import { queuePlace } from './admission.ts';
import { demux, parseReport, stepPod, type RunRef } from './pod.ts';
import { outputFromStdout } from './outputs.ts';
import { parsePrepared, PREPARE_STEP, prepareStep, withoutSecrets } from './prepare.ts';
import { sameContent } from '../../core/kube/equal.ts';
import { runSecretValues } from './secrets.ts';

export interface ReconcilerDeps {
  readonly core: CoreV1Api;
  readonly custom: CustomObjectsApi;
  readonly runs: Informer<DagRunResource>;
  readonly dags: Informer<DagResource>;
  readonly pods: Informer<V1Pod>;
  readonly store: LogStore;
  readonly clock: Clock;
  readonly defaultStepImage: string;
  readonly maxPodsPerRun: number;
  /** Most running step Pods of all runs together (0: no cap). */
  readonly maxPods: number;
  readonly routineEvents?: boolean;
  readonly log: (message: string) => void;
  readonly metrics?: OperatorMetrics;
  /** A run status this reconciler wrote (already shown by `runs`): its queue may have room. */
  readonly onStatusWritten?: (run: DagRunResource) => void;
}

const plural = 'dagruns';

export class RunReconciler {
  private readonly deps: ReconcilerDeps;
  /** Pods created here that the cache has not shown yet, by name, with the creation time. */
  private readonly expected = new Map<string, number>();

  constructor(deps: ReconcilerDeps) {
    this.deps = deps;
  }

  async reconcile(key: string): Promise<WorkResult | undefined> {
    const [namespace = '', name = ''] = key.split('/');
    const cached = this.deps.runs.get(namespace, name);
    if (cached === undefined) {
      this.definitions.delete(key);
      this.retentionDays.delete(key);
      return undefined;
    }
    const pods = this.podsOf(cached);
    if (isFinished(cached)) {
      this.secretValues.delete(cached.metadata?.uid ?? '');
      this.definitions.delete(key);
      if (await this.retried(cached)) return undefined;
      await this.deleteSafePods(cached, pods, cached.status ?? {});
      await this.expire(cached);
      return undefined;
    }
    // A run frozen just now goes on with the frozen spec rather than waiting for its watch event.
    const run = await this.frozen(cached);
    if (run === undefined || (await this.copiedFrom(run))) return undefined;
    // Queued runs wait for the admission loop (operator/queue/loop.ts) to let them out.
    const place = queuePlace(run);
    if (place === 'enter') await this.writeStatus(run, { status: RunStatus.Queued, statusLabel: 'queued', queuedAt: this.now() });
    if (place !== 'proceed') return undefined;
    return this.advance(key, run, pods);
  }

  /** A running run: observe its attempts, decide, act. */
  private async advance(key: string, run: DagRunResource, pods: readonly V1Pod[]): Promise<WorkResult | undefined> {
    const ref = runRef(run);
    const definition = this.definitionOf(key, run);
    const observed = [...(await Promise.all(pods.map((pod) => this.observe(pod, run, definition)))), ...this.childrenOf(run).map(observeChild)];
    const decision = decide({
      dag: definition.dag,
      ...(definition.rejection === undefined ? {} : { rejection: definition.rejection }),
      status: run.status ?? {},
      stop: run.spec.stop === true,
      pods: observed,
      expected: this.expectedNames(pods),
      now: this.deps.clock.now(),
      params: definition.paramsJson,
      maxRunningPods: this.deps.maxPodsPerRun,
      routineEvents: this.deps.routineEvents === true,
      ...(this.deps.maxPods > 0 ? { podBudget: Math.max(0, this.deps.maxPods - this.activePods()) } : {}),
      podName: (step, attempt) => stepPodName(run.metadata?.name ?? '', step, attempt),
      subRunId: (step, attempt) => subRunId(ref.dagRunId, step, attempt),
      ...definitionHooks(definition, run.status ?? {}),
    });
    // Claimed before any await, so that runs reconciled side by side share the overall cap.
    const claims = decision.launch.filter((l) => l.step.call === undefined).map((l) => l.pod);
    for (const pod of claims) this.claimed.set(pod, this.deps.clock.now().getTime());
    try {
      await this.act(run, ref, definition, decision);
    } catch (error) {
      for (const pod of claims) this.claimed.delete(pod);
      throw error;
    }
    return decision.requeueAfterMs === undefined ? undefined : { requeueAfterMs: decision.requeueAfterMs };
  }

  /**
   * A retry asked for with the `kubedag.io/retry` annotation (a new value each time, set by the
   * API server or by hand): the finished run goes back to running with the steps to redo reset.
   * A stop left over from before is lifted first. Returns true when it wrote something.
   */
  private async retried(run: DagRunResource): Promise<boolean> {
    const annotations = run.metadata?.annotations ?? {};
    const token = annotations[RETRY_ANNOTATION];
    if (token === undefined || token === run.status?.retryToken) return false;
    if (run.spec.stop === true) {
      await this.patchSpec(run, [{ op: 'replace', path: '/spec/stop', value: false }]);
      return true;
    }
    const definition = definitionOf(run);
    const step = annotations[RETRY_STEP_ANNOTATION] || undefined;
    await this.writeStatus(run, { ...retryStatus(definition.dag, run.status ?? {}, this.deps.clock.now(), step), retryToken: token });
    this.event(run, 'Retrying', step === undefined ? 'retrying failed and canceled steps' : `retrying step ${step}`, false);
    return true;
  }

  /**
   * A retry under a new run id (the API's retry with another `dagRunId`): before its first
   * step, the new run takes the original's step states, then resets what a retry redoes.
   * Succeeded steps keep their status and outputs; their logs stay with the original run.
   */
  private async copiedFrom(run: DagRunResource): Promise<boolean> {
    const source = run.metadata?.annotations?.[ANNOTATIONS.retryOf];
    if (source === undefined || run.status !== undefined) return false;
    const original = this.deps.runs.get(run.metadata?.namespace, source);
    if (original?.status?.finishedAt === undefined) return false;
    await this.writeStatus(run, copiedRetryStatus(definitionOf(run).dag, original.status, this.deps.clock.now()));
    this.event(run, 'Retrying', `retrying run ${original.spec.dagRunId ?? source} under a new id`, false);
    return true;
  }

  /**
   * Runs older than their DAG's histRetentionDays go, logs first: after a crash between the
   * two, the next look deletes the run whose logs are already gone.
   */
  private async expire(run: DagRunResource): Promise<void> {
    const ref = runRef(run);
    const key = `${ref.namespace}/${ref.name}`;
    const days = this.retentionDays.get(key) ?? definitionOf(run).dag.histRetentionDays;
    this.retentionDays.set(key, days);
    if (!retentionExpired(run.status?.finishedAt, days, this.deps.clock.now())) return;
    await this.deps.store.removeRun(ref.namespace, ref.dagName, ref.dagRunId);
    await this.deps.custom.deleteNamespacedCustomObject({ ...this.target(run), propagationPolicy: 'Background' }).catch((error: unknown) => {
      if (statusCode(error) !== 404) throw error;
    });
    this.written('delete');
  }

  /**
   * Loading a definition (parse, validate, normalise) is the costliest pure work of a
   * reconcile; a running run's spec only changes by `stop`, so it is loaded once per
   * generation and prepared values. Finished runs leave the cache.
   */
  private readonly definitions = new Map<string, { readonly version: string; readonly definition: RunDefinition }>();
  private readonly retentionDays = new Map<string, number>();

  private definitionOf(key: string, run: DagRunResource): RunDefinition {
    const version = `${run.metadata?.uid ?? ''}/${String(run.metadata?.generation ?? 0)}/${JSON.stringify(run.status?.prepared ?? null)}`;
    const cached = this.definitions.get(key);
    if (cached?.version === version) return cached.definition;
    const definition = definitionOf(run, run.status?.prepared);
    this.definitions.set(key, { version, definition });
    return definition;
  }

  /** A JSON patch of the run that applies only to the version this reconcile saw. */
  private async patchSpec(run: DagRunResource, operations: readonly { op: string; path: string; value: unknown }[]): Promise<DagRunResource> {
    const patched: unknown = await this.deps.custom.patchNamespacedCustomObject({ ...this.target(run), body: [{ op: 'test', path: '/metadata/resourceVersion', value: run.metadata?.resourceVersion }, ...operations] });
    this.deps.runs.assume(patched as DagRunResource, run.metadata?.resourceVersion);
    this.written('patch');
    return patched as DagRunResource;
  }

  /** Pods deleted here whose deletion the cache has not shown yet, with the time. */
  private readonly deleted = new Map<string, number>();

  private async deletePod(namespace: string, name: string): Promise<void> {
    const key = `${namespace}/${name}`;
    const now = this.deps.clock.now().getTime();
    const at = this.deleted.get(key);
    if (at !== undefined && now - at < 30_000) return;
    for (const [k, t] of this.deleted) if (now - t >= 30_000) this.deleted.delete(k);
    try {
      await this.deps.core.deleteNamespacedPod({ name, namespace });
      this.written('delete');
    } catch (error) {
      if (statusCode(error) !== 404) throw error;
    }
    this.deleted.set(key, now);
  }

  private target(run: DagRunResource): { group: string; version: string; namespace: string; plural: string; name: string } {
    return { group: GROUP, version: VERSION, namespace: run.metadata?.namespace ?? '', plural, name: run.metadata?.name ?? '' };
  }

  private podsOf(run: DagRunResource): V1Pod[] {
    const uid = run.metadata?.uid;
    return this.deps.pods.list(run.metadata?.namespace).filter((pod) => pod.metadata?.ownerReferences?.some((o) => o.uid === uid) === true);
  }

  /** Step Pods decided on and not yet in the cache, with the time: the overall cap counts them. */
  private readonly claimed = new Map<string, number>();

  /** Step Pods of all runs that run or are about to: what the overall cap counts. */
  private activePods(): number {
    const pods = this.deps.pods.list();
    const seen = new Set(pods.map((pod) => pod.metadata?.name ?? ''));
    const now = this.deps.clock.now().getTime();
    for (const [name, at] of this.claimed) if (seen.has(name) || now - at > 60_000) this.claimed.delete(name);
    return pods.filter((pod) => pod.metadata?.labels?.[LABELS.run] !== undefined && pod.metadata.deletionTimestamp === undefined && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed').length + this.claimed.size;
  }

  private expectedNames(pods: readonly V1Pod[]): Set<string> {
    const seen = new Set(pods.map((p) => p.metadata?.name ?? ''));
    const now = this.deps.clock.now().getTime();
    for (const [name, created] of this.expected) if (seen.has(name) || now - created > 60_000) this.expected.delete(name);
    return new Set(this.expected.keys());
  }

  /**
   * The definition a run runs is frozen into the run before anything starts, with its id and
   * DAG name: later edits of the DAG never change a running run. Returns the frozen run, or
   * undefined when it cannot run. A DAG missing from the cache is read from the API before the
   * run fails: the DAG watch may lag behind the run's (`kubectl create` of both in one file).
   */
  private async frozen(run: DagRunResource): Promise<DagRunResource | undefined> {
    const spec = run.spec;
    const cachedDag = spec.dagRef === undefined ? undefined : this.deps.dags.get(run.metadata?.namespace, spec.dagRef.name);
    const dag = cachedDag ?? (spec.dagRef === undefined || spec.snapshot !== undefined ? undefined : await this.readDag(run.metadata?.namespace ?? '', spec.dagRef.name));
    if (spec.dagRef !== undefined && spec.snapshot === undefined && dag === undefined) {
      await this.writeStatus(run, { status: RunStatus.Failed, statusLabel: 'failed', error: `DAG "${spec.dagRef.name}" not found`, endReason: 'rejected', startedAt: this.now(), finishedAt: this.now() });
      return undefined;
    }
    const patch = freezePatch(run, dag, () => uuidv7(this.deps.clock.now().getTime()));
    if (Object.keys(patch).length === 0) return run;
    return this.patchSpec(run, Object.entries(patch).map(([k, v]) => ({ op: 'add', path: `/spec/${k}`, value: v })));
  }

  private async readDag(namespace: string, name: string): Promise<DagResource | undefined> {
    try {
      return (await this.deps.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: 'dags', name })) as DagResource;
    } catch (error) {
      if (statusCode(error) === 404) return undefined;
      throw error;
    }
  }

  /** What a Pod tells: phase, and once terminated its exit, report and (archived) stdout. */
  private async observe(pod: V1Pod, run: DagRunResource, definition: RunDefinition): Promise<ObservedPod> {
    const base = podIdentity(pod);
    const terminated = pod.status?.containerStatuses?.[0]?.state?.terminated;
    if (terminated === undefined || (base.phase !== 'Succeeded' && base.phase !== 'Failed')) return base;
    const ref = runRef(run);
    const logRef = logRefOf(ref, base.step, base.attempt);
    const report = { exitCode: terminated.exitCode, ...parseReport(terminated.message) };
    if (base.step !== PREPARE_STEP && !needsStdout(findStep(definition.dag, base.step))) return { ...base, report };
    const stdout = (await this.deps.store.read(logRef, 'stdout')) ?? (await this.archive(pod, logRef, run, definition));
    return { ...base, report: { ...report, stdout } };
  }

  /**
   * Copies a finished Pod's log into the store, split into stdout and stderr, with the run's
   * secret values masked. The prepare Pod's log is where the secrets come from: they go into
   * the run's Secret first, so a crash before the store write finds them again in the Pod log.
   */
  private async archive(pod: V1Pod, logRef: LogRef, run: DagRunResource, definition: RunDefinition): Promise<string> {
    let log: string;
    try {
      log = await this.deps.core.readNamespacedPodLog({ name: pod.metadata?.name ?? '', namespace: pod.metadata?.namespace ?? '', container: 'step' });
    } catch (error) {
      log = `E kubedag: the log of this attempt could not be read: ${(error as Error).message}`;
    }
    const logs = demux(log);
    let secrets: readonly string[];
    if (logRef.step === PREPARE_STEP && definition.dag.secrets.length > 0) {
      const found = parsePrepared(logs.stdout, definition.dag, definition.params).secrets;
      await this.keepSecrets(run, found);
      secrets = Object.values(found);
      logs.stdout = withoutSecrets(logs.stdout);
    } else {
      secrets = await this.runSecrets(run, definition);
    }
    const masked = { stdout: maskSecrets(logs.stdout, secrets), stderr: maskSecrets(logs.stderr, secrets) };
    await this.deps.store.write(logRef, masked);
    return masked.stdout;
  }

  /** Secret values of running runs, by run uid, for masking their logs. */
  private readonly secretValues = new Map<string, readonly string[]>();

  private async runSecrets(run: DagRunResource, definition: RunDefinition): Promise<readonly string[]> {
    if (definition.dag.secrets.length === 0) return [];
    const uid = run.metadata?.uid ?? '';
    const known = this.secretValues.get(uid);
    if (known !== undefined) return known;
    const values = await runSecretValues(this.deps.core, run.metadata?.namespace ?? '', run.metadata?.name ?? '');
    // No Secret yet means the prepare step has not finished: nothing to remember.
    if (values.length > 0) this.secretValues.set(uid, values);
    return values;
  }

  /**
   * The run's resolved secrets, in an immutable Secret owned by the run: step Pods read them
   * by reference, and they go when the run goes. Created once; a second create finds it.
   */
  private async keepSecrets(run: DagRunResource, values: Readonly<Record<string, string>>): Promise<void> {
    const ref = runRef(run);
    const body = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: runSecretName(ref.name),
        namespace: ref.namespace,
        labels: { [LABELS.run]: labelValue(ref.name) },
        ownerReferences: [{ apiVersion: `${GROUP}/${VERSION}`, kind: 'DAGRun', name: ref.name, uid: ref.uid, controller: true, blockOwnerDeletion: true }],
      },
      type: 'Opaque',
      immutable: true,
      stringData: values,
    };
    try {
      await this.deps.core.createNamespacedSecret({ namespace: ref.namespace, body });
      this.written('create');
    } catch (error) {
      if (statusCode(error) !== 409) throw error;
    }
    this.secretValues.set(ref.uid, Object.values(values));
  }

  private async act(run: DagRunResource, ref: RunRef, definition: RunDefinition, decision: Decision): Promise<void> {
    const namespace = run.metadata?.namespace ?? '';
    // Launched steps see large outputs too, read back from the log store.
    const seen = decision.launch.length === 0 ? decision.status : await this.withLargeOutputs(ref, decision.status);
    for (const launch of decision.launch) await this.createPod(run, ref, definition, seen, launch);
    for (const stop of decision.stop) await this.stopPod(namespace, stop.pod);
    const written = await this.writeStatus(run, decision.status);
    if (written) this.count(run.status ?? {}, decision.status, decision.launch);
    for (const event of decision.events) this.event(run, event.reason, event.message, event.warning === true);
    if (written) await this.deleteSafePods(run, this.podsOf(run), decision.status, definition);
  }

  /** The status with the values of large outputs (outputRefs) filled in from the log store. */
  private async withLargeOutputs(ref: RunRef, status: DagRunStatus): Promise<DagRunStatus> {
    const nodes = status.nodes ?? [];
    if (!nodes.some((n) => n.outputRefs !== undefined)) return status;
    const read = async (step: string, attempt: number): Promise<string> => outputFromStdout((await this.deps.store.read(logRefOf(ref, step, attempt), 'stdout')) ?? '');
    const filled = await Promise.all(
      nodes.map(async (node) => {
        if (node.outputRefs === undefined) return node;
        const values = await Promise.all(Object.entries(node.outputRefs).map(async ([name, at]) => [name, await read(node.name, at.attempt)] as const));
        return { ...node, outputs: { ...node.outputs, ...Object.fromEntries(values) } };
      }),
    );
    return { ...status, nodes: filled };
  }

  private childrenOf(run: DagRunResource): DagRunResource[] {
    const uid = run.metadata?.uid;
    return this.deps.runs.list(run.metadata?.namespace).filter((child) => child.metadata?.ownerReferences?.some((o) => o.uid === uid) === true);
  }

  /**
   * A sub-DAG step's attempt is a child DAGRun, named like the Pod it stands for, with a run id
   * derived from the parent's: a repeated create finds the same child (409), never a second one.
   */
  private async createChild(run: DagRunResource, ref: RunRef, definition: RunDefinition, status: DagRunStatus, launch: Launch): Promise<void> {
    const step = launch.step;
    const vars = variables(definition, status, step, definition.dag.steps);
    const local = definition.localDags.find((d) => d.name === step.call);
    const params = childParams(step, vars, launch.item?.value);
    const stepKey = launch.item === undefined ? step.name : `${step.name}[${String(launch.item.index)}]`;
    const root = run.spec.root ?? { name: ref.dagName, dagRunId: ref.dagRunId };
    const body = {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'DAGRun',
      metadata: {
        name: launch.pod,
        namespace: ref.namespace,
        labels: { [LABELS.attempt]: String(launch.attempt), ...(launch.item === undefined ? {} : { [ITEM_LABEL]: String(launch.item.index) }) },
        annotations: { [ANNOTATIONS.step]: step.name },
        ownerReferences: [{ apiVersion: `${GROUP}/${VERSION}`, kind: 'DAGRun', name: ref.name, uid: ref.uid, controller: true, blockOwnerDeletion: true }],
      },
      spec: {
        ...(local === undefined ? { dagRef: { name: dagResourceName(step.call ?? '') } } : { definition: local.document }),
        dagName: step.call,
        dagRunId: subRunId(ref.dagRunId, stepKey, launch.attempt),
        ...(params === undefined ? {} : { params }),
        trigger: 'sub-run',
        parent: { name: ref.dagName, dagRunId: ref.dagRunId },
        root,
      },
    };
    try {
      await this.deps.custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: ref.namespace, plural, body });
      this.written('create');
    } catch (error) {
      if (statusCode(error) !== 409) throw error;
    }
    this.expected.set(launch.pod, this.deps.clock.now().getTime());
  }

  private async createPod(run: DagRunResource, ref: RunRef, definition: RunDefinition, status: DagRunStatus, launch: Launch): Promise<void> {
    if (launch.step.call !== undefined) {
      await this.createChild(run, ref, definition, status, launch);
      return;
    }
    const vars = variables(definition, status, launch.step, definition.dag.steps);
    // The prepare Pod computes the run's variables: its environment must be the image's own.
    const preparing = launch.step.name === PREPARE_STEP;
    const pod = stepPod({
      run: ref,
      dag: definition.dag,
      step: launch.step,
      attempt: launch.attempt,
      pod: launch.pod,
      ...(launch.handler === undefined ? {} : { handler: launch.handler, runStatus: handlerStatus(status) }),
      env: preparing ? [] : [...definition.env, ...outputVars(launch.step, definition.dag.steps, status)],
      positional: definition.positional,
      ...(launch.step.cmdWithArgs === undefined ? {} : { command: expand(launch.step.cmdWithArgs, { scopes: [], environment: vars, steps: stepRefs(definition.dag, status) }).value }),
      defaultImage: this.deps.defaultStepImage,
      podPreconditions: launch.step.preconditions.filter((c) => literalPrecondition(c, vars) === undefined),
      ...(definition.dag.secrets.length === 0 || preparing ? {} : { secrets: { secretName: runSecretName(ref.name), names: definition.dag.secrets.map((x) => x.name) } }),
    });
    try {
      await this.deps.core.createNamespacedPod({ namespace: ref.namespace, body: pod });
      this.written('create');
    } catch (error) {
      // Deterministic names: an existing Pod is this very attempt, created before.
      if (statusCode(error) !== 409) throw error;
    }
    this.expected.set(launch.pod, this.deps.clock.now().getTime());
  }

  /**
   * Stops a step Pod without deleting it: an `activeDeadlineSeconds` that has passed makes the
   * kubelet stop its containers gracefully (the grace period is the run's maxCleanUpTimeSec)
   * while the Pod and its log stay for archiving. A Pod that never started is just deleted.
   */
  private async stopPod(namespace: string, name: string): Promise<void> {
    const child = this.deps.runs.get(namespace, name);
    if (child !== undefined) {
      // A child run stops the way any run does: its spec says so.
      if (child.spec.stop !== true) await this.patchSpec(child, [{ op: 'add', path: '/spec/stop', value: true }]);
      return;
    }
    const pod = this.deps.pods.get(namespace, name);
    const started = pod?.status?.startTime;
    if (started === undefined) {
      await this.deletePod(namespace, name);
      return;
    }
    const elapsed = Math.max(1, Math.floor((this.deps.clock.now().getTime() - new Date(started).getTime()) / 1000));
    if (pod?.spec?.activeDeadlineSeconds !== undefined && pod.spec.activeDeadlineSeconds <= elapsed) return;
    await this.deps.core.patchNamespacedPod({ name, namespace, body: [{ op: 'add', path: '/spec/activeDeadlineSeconds', value: elapsed }] }).catch((error: unknown) => {
      if (statusCode(error) !== 404) throw error;
    });
    this.written('patch');
  }

  /** Writes the status when it differs; a conflict means a newer run is coming: try again then. */
  private async writeStatus(run: DagRunResource, next: DagRunStatus): Promise<boolean> {
    const status = withConditions(next, run.metadata?.generation ?? 0, this.deps.clock.now());
    if (sameContent(status, run.status ?? {})) return true;
    try {
      const written = (await this.deps.custom.replaceNamespacedCustomObjectStatus({ ...this.target(run), body: { ...run, status } })) as DagRunResource;
      // The next reconcile of this run sees what was just written, not the version it replaced.
      this.deps.runs.assume(written, run.metadata?.resourceVersion);
      this.deps.onStatusWritten?.(written);
      this.written('update');
      return true;
    } catch (error) {
      if (statusCode(error) === 409) return false;
      throw error;
    }
  }

  /**
   * A Pod goes once its attempt is over in the written status, archived first if that has not
   * happened yet: the log of a step whose stdout the decision did not need is copied here, after
   * the next steps were launched, off the step-to-step path.
   */
  private async deleteSafePods(run: DagRunResource, pods: readonly V1Pod[], status: DagRunStatus, known?: RunDefinition): Promise<void> {
    const over = pods.filter((pod) => attemptOver(pod, status));
    if (over.length === 0) return;
    const ref = runRef(run);
    const definition = known ?? definitionOf(run, status.prepared);
    await Promise.all(
      over.map(async (pod) => {
        const { step, attempt } = podIdentity(pod);
        const logRef = logRefOf(ref, step, attempt);
        if (!(await this.deps.store.exists(logRef))) await this.archive(pod, logRef, run, definition);
        await this.deletePod(ref.namespace, pod.metadata?.name ?? '');
      }),
    );
  }

  private event(run: DagRunResource, reason: string, message: string, warning: boolean): void {
    const now = this.deps.clock.now();
    void this.deps.core
      .createNamespacedEvent({
        namespace: run.metadata?.namespace ?? '',
        body: {
          metadata: { generateName: `${run.metadata?.name ?? 'dagrun'}.` },
          involvedObject: { apiVersion: `${GROUP}/${VERSION}`, kind: 'DAGRun', name: run.metadata?.name ?? '', namespace: run.metadata?.namespace ?? '', uid: run.metadata?.uid ?? '' },
          reason,
          message,
          type: warning ? 'Warning' : 'Normal',
          source: { component: 'kubedag-operator' },
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
        },
      })
      .then(() => {
        this.written('event');
      })
      .catch((error: unknown) => {
        this.deps.log(`event for ${run.metadata?.name ?? ''}: ${(error as Error).message}`);
      });
  }

  private written(verb: string): void {
    this.deps.metrics?.apiWrites.inc({ verb });
  }

  /** Counts what a status write changed: steps and runs that reached their end. */
  private count(before: DagRunStatus, after: DagRunStatus, launches: readonly Launch[]): void {
    const metrics = this.deps.metrics;
    if (metrics === undefined) return;
    const doneBefore = new Set((before.nodes ?? []).filter((n) => stepDone(n.status)).map((n) => n.name));
    for (const node of after.nodes ?? []) if (stepDone(node.status) && !doneBefore.has(node.name)) metrics.stepsFinished.inc({ status: node.statusLabel });
    if (before.finishedAt === undefined && after.finishedAt !== undefined) metrics.runsFinished.inc({ status: after.statusLabel ?? '' });
    const now = this.deps.clock.now().getTime();
    for (const launch of launches) {
      metrics.stepsStarted.inc();
      const upstream = (after.nodes ?? []).filter((n) => launch.step.depends.includes(n.name) && n.finishedAt !== undefined).map((n) => Date.parse(n.finishedAt ?? ''));
      if (upstream.length > 0) metrics.stepGapSeconds.observe((now - Math.max(...upstream)) / 1000);
    }
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }
}

/** Where an attempt's logs are kept in the store. */
function logRefOf(ref: RunRef, step: string, attempt: number): LogRef {
  return { namespace: ref.namespace, dagName: ref.dagName, dagRunId: ref.dagRunId, step, attempt };
}

function runRef(run: DagRunResource): RunRef {
  return {
    name: run.metadata?.name ?? '',
    namespace: run.metadata?.namespace ?? '',
    uid: run.metadata?.uid ?? '',
    dagName: run.spec.dagName ?? run.metadata?.name ?? '',
    dagRunId: run.spec.dagRunId ?? run.metadata?.name ?? '',
  };
}

function findStep(dag: Dag, name: string): Step | undefined {
  return dag.steps.find((s) => s.name === name) ?? Object.values(dag.handlerOn).find((s) => s.name === name);
}

function needsStdout(step: Step | undefined): boolean {
  return step !== undefined && (step.output !== undefined || step.continueOn.output.length > 0);
}

function definitionOf(run: DagRunResource, prepared?: DagRunStatus['prepared']): RunDefinition {
  return runDefinition(run.spec.snapshot ?? run.spec.definition ?? {}, runRef(run).dagName, run.spec.params, prepared);
}

/** What the engine asks of the definition while it decides: values only it can work out. */
function definitionHooks(definition: RunDefinition, status: DagRunStatus): Pick<Parameters<typeof decide>[0], 'prepare' | 'readPrepared' | 'parallelItems' | 'resolveCount' | 'preconditionMet'> {
  return {
    ...(definition.needsPrepare ? { prepare: prepareStep(definition.dag, definition.params), readPrepared: (stdout: string) => statusPrepared(stdout, definition) } : {}),
    parallelItems: (step, nodes) => parallelItems(step, variables(definition, { nodes: [...nodes] }, step, definition.dag.steps)),
    resolveCount: (value) => resolveCount(value, definition),
    preconditionMet: (condition) => literalPrecondition(condition, variables(definition, status)),
  };
}

/** What the status keeps of the prepare step's report: everything but the secrets. */
function statusPrepared(stdout: string, definition: RunDefinition): NonNullable<DagRunStatus['prepared']> {
  const { secrets: _secrets, ...prepared } = parsePrepared(stdout, definition.dag, definition.params);
  return prepared;
}

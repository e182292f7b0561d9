/**
 * The log archiver, keyed by step Pod: once an attempt's Pod has terminated, its log is read,
 * split into stdout and stderr, masked with the run's secret values and written to the log
 * store, and the run is enqueued (a decision may wait for that stdout). What the prepare Pod
 * printed is where the run's secrets come from: they go into the run's Secret before the store
 * write, so a crash between the two finds them again in the Pod's log. A Pod is deleted once
 * archived and once the run's status records its attempt as over.
 */
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import type { Informer } from '../../core/kube/informer.ts';
import { errorMessage } from '../../core/log.ts';
import { maskSecrets } from '../../core/logs/mask.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import type { DefinitionCache } from '../run/shared/loaded-definitions.ts';
import { isAttemptPod } from '../run/pods/pod-kinds.ts';
import type { RunSegments } from '../run/shared/segments.ts';
import { attemptOver, isFinished, ownerRunName, podIdentity, podOver } from '../run/decide/observed.ts';
import { declaresOutputs } from '../run/decide/declared-outputs.ts';
import { picksFiles } from '../run/decide/picked-files.ts';
import { demux } from '../run/pods/step-pod.ts';
import type { PodWriter } from '../run/shared/pod-writer.ts';
import { parsePrepared, PREPARE_STEP, withoutSecrets } from '../run/decide/prepare.ts';
import { runKey, runRef } from '../run/ref.ts';
import type { RunSecrets } from '../run/shared/secrets.ts';
import { manifestAt, maskArtifacts, parseArtifactLines, type ArtifactManifest } from '../../core/logs/artifacts.ts';
import { logRefOf, type AttemptLogs, type LogRef } from './keys.ts';
import type { Dag } from '../../core/dag/index.ts';
import type { LogStore } from './store.ts';

export interface ArchiverDeps {
  readonly core: CoreV1Api;
  readonly pods: Informer<V1Pod>;
  readonly runs: Informer<DagRunResource>;
  readonly store: LogStore;
  readonly podWriter: PodWriter;
  readonly secrets: RunSecrets;
  readonly definitions: DefinitionCache;
  readonly segments: RunSegments;
  /** The run whose attempt was just archived, by key: its next decision may need the stdout. */
  readonly onArchived: (runKey: string) => void;
}

/** Whether a Pod has ended and is not being deleted: the archiver's to look at. */
export function podEnded(pod: V1Pod): boolean {
  return podOver(pod) && pod.metadata?.deletionTimestamp === undefined;
}

export class LogArchiver {
  private readonly deps: ArchiverDeps;

  constructor(deps: ArchiverDeps) {
    this.deps = deps;
  }

  async reconcile(key: string): Promise<void> {
    const [namespace = '', name = ''] = key.split('/');
    const pod = this.deps.pods.get(namespace, name);
    // Telemetry and mail Pods are no attempt: their reconcilers record and remove them.
    if (pod === undefined || !podEnded(pod) || !isAttemptPod(pod)) return;
    const owner = ownerRunName(pod);
    const run = owner === undefined ? undefined : this.deps.runs.get(namespace, owner);
    // A Pod whose run is gone goes with it (owner references).
    if (run === undefined) return;
    const { step, attempt } = podIdentity(pod);
    const logRef = logRefOf(runRef(run), step, attempt);
    if (!(await this.deps.store.exists(logRef))) {
      await this.archive(pod, logRef, run);
      this.deps.onArchived(runKey(run));
    }
    // A finished step's record may be sealed out of the status: the Pod goes once it is recorded anywhere.
    // Every attempt of a finished run is over; a running one's sealed records are in the cache.
    const status = isFinished(run) ? (run.status ?? {}) : ((await this.deps.segments.expand(run)).status ?? {});
    if (attemptOver(pod, status)) await this.deps.podWriter.delete(namespace, name);
  }

  private async archive(pod: V1Pod, logRef: LogRef, run: DagRunResource): Promise<void> {
    const ref = runRef(run);
    let log: string;
    try {
      log = await this.deps.core.readNamespacedPodLog({
        name: pod.metadata?.name ?? '',
        namespace: ref.namespace,
        container: 'step',
      });
    } catch (error) {
      log = `E kubedag: the log of this attempt could not be read: ${errorMessage(error)}`;
    }
    const logs = demux(log);
    // A finished run's definition is not cached: the run controller has let it go.
    const definition = isFinished(run) ? await this.deps.definitions.once(run) : await this.deps.definitions.load(run);
    // Never archived unmasked: without its definition, which secrets to mask is unknown.
    if (definition === undefined)
      throw new Error(`run ${ref.namespace}/${ref.name}: its frozen definition cannot be read`);
    let secrets: readonly string[] = [];
    if (logRef.step === PREPARE_STEP && definition.dag.secrets.length > 0) {
      const found = parsePrepared(logs.stdout, definition.dag, definition.params).secrets;
      await this.deps.secrets.keep(ref, found);
      secrets = Object.values(found);
      logs.stdout = withoutSecrets(logs.stdout);
    } else if (definition.dag.secrets.length > 0) {
      secrets = await this.deps.secrets.of(ref);
    }
    const outputs = readBack(definition.dag, logRef.step, logs, secrets);
    const artifacts =
      definition.dag.artifacts === undefined ? undefined : keptArtifacts(pod, logRef, logs.artifacts, secrets);
    const stderr = artifacts?.error === undefined ? logs.stderr : `${logs.stderr}kubedag: ${artifacts.error}\n`;
    await this.deps.store.write(logRef, {
      stdout: maskSecrets(logs.stdout, secrets),
      stderr: maskSecrets(stderr, secrets),
      ...outputs,
      ...(artifacts === undefined ? {} : { artifacts: artifacts.manifest }),
    });
  }
}

/**
 * What of the attempt's log only the operator reads, masked: the records of a step that declares
 * outputs, the files of a step that picks an output from one.
 */
function readBack(
  dag: Dag,
  step: string,
  logs: ReturnType<typeof demux>,
  secrets: readonly string[],
): Pick<AttemptLogs, 'outputs' | 'picked'> {
  return {
    ...(declaresOutputs(dag, step) ? { outputs: maskSecrets(logs.outputs ?? '', secrets) } : {}),
    ...(picksFiles(dag, step) ? { picked: maskSecrets(logs.picked ?? '', secrets) } : {}),
  };
}

/**
 * An attempt's artifact manifest (core/logs/artifacts.ts), ordered among the run's by the run's
 * write sequence, then by when its step ended and by its key (manifestAt). A
 * Pod's lines that do not decode, or exceed the limits, keep no files and say why in stderr.
 * The run's secrets are masked in text files as in its logs; a binary file that holds one is
 * not kept, and stderr names it (maskArtifacts).
 */
export function keptArtifacts(
  pod: V1Pod,
  ref: LogRef,
  lines: string | undefined,
  secrets: readonly string[] = [],
): { manifest: string; error?: string } {
  const ended = pod.status?.containerStatuses?.find((c) => c.name === 'step')?.state?.terminated?.finishedAt;
  const parsed = parseArtifactLines(lines ?? '');
  const at = manifestAt(
    'sequence' in parsed ? parsed.sequence : 0,
    ended === undefined ? '' : new Date(ended).toISOString(),
    `${ref.step}.${String(ref.attempt)}`,
  );
  const masked = maskArtifacts('files' in parsed ? parsed.files : [], secrets);
  const manifest: ArtifactManifest = { at, files: masked.files };
  const error =
    'error' in parsed
      ? parsed.error
      : masked.dropped.length === 0
        ? undefined
        : `binary artifact files that hold a secret value are not kept: ${masked.dropped.join(', ')}`;
  return { manifest: JSON.stringify(manifest), ...(error === undefined ? {} : { error }) };
}

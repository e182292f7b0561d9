/**
 * Every write the run controller makes to a DAGRun: status (with conditions, only when it
 * changed, guarded by the resource version it was decided on), spec patches applying to one
 * version only, child runs, deletion, and Events. Each successful write is assumed into the
 * informer, so the next reconcile sees it before its watch event arrives, and counted.
 */
import type { CoreV1Api } from '@kubernetes/client-node';
import type { ResourceClient, JsonPatchOperation } from '../../../core/kube/client.ts';
import { ignoreAlreadyExists, ignoreConflict, ignoreNotFound } from '../../../core/kube/errors.ts';
import type { Informer } from '../../../core/kube/informer.ts';
import { sameContent } from '../../../core/kube/equal.ts';
import type { Clock } from '../../../core/kube/time.ts';
import { errorMessage, type Logger } from '../../../core/log.ts';
import { ANNOTATIONS, API_VERSION } from '../../../core/resources/constants.ts';
import { recordedEndValue, type RecordedEnd } from '../../../core/resources/ended.ts';
import type { DagRunStatus } from '../../../core/resources/schemas.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import { compactNodes } from '../../../core/resources/run-records.ts';
import { withConditions } from '../decide/conditions.ts';
import type { RunSegments } from './segments.ts';
import { runKey } from '../ref.ts';

/** Counts an API write by verb (the kubedag_api_writes_total metric). */
export type CountWrite = (verb: 'create' | 'update' | 'patch' | 'delete' | 'event') => void;

export interface RunWriterDeps {
  readonly runs: ResourceClient<DagRunResource>;
  readonly cache: Informer<DagRunResource>;
  readonly core: CoreV1Api;
  readonly clock: Clock;
  readonly log: Logger;
  readonly countWrite: CountWrite;
  /** Where finished step records are sealed (segments.ts). */
  readonly segments: RunSegments;
}

/** Tries at sealing when segment names turn out taken (a write whose status was lost sealed them). */
const SEAL_TRIES = 3;

export class RunWriter {
  private readonly deps: RunWriterDeps;

  constructor(deps: RunWriterDeps) {
    this.deps = deps;
  }

  /**
   * Writes the status when it differs; false when a newer run is coming (conflict): try again
   * then. `next` may hold every step's record (a decision's status, or one read through
   * `RunSegments.expand`): what is stored is compacted, and a full tail of finished records is
   * sealed into a segment first (core/resources/run-records.ts).
   */
  async writeStatus(run: DagRunResource, next: DagRunStatus): Promise<boolean> {
    const status = withConditions(
      await this.compacted(run, next),
      run.metadata?.generation ?? 0,
      this.deps.clock.now(),
    );
    if (sameContent(status, this.stored(run) ?? {})) return true;
    const written = await ignoreConflict(this.deps.runs.replaceStatus({ ...run, status }));
    if (written === undefined) return false;
    this.deps.cache.assume(written, run.metadata?.resourceVersion);
    this.deps.countWrite('update');
    return true;
  }

  /**
   * The status as it is stored. Segments are created before the status that leaves their
   * records out: a crash between the two leaves records in both, which the status's copy wins.
   */
  private async compacted(run: DagRunResource, next: DagRunStatus): Promise<DagRunStatus> {
    const { sealed: _count, ...rest } = next;
    if (next.nodes === undefined)
      return { ...rest, ...(run.status?.sealed === undefined ? {} : { sealed: run.status.sealed }) };
    for (let tries = 0; tries < SEAL_TRIES; tries++) {
      const sealed = await this.deps.segments.sealed(run);
      const { nodes, seal } = compactNodes(next.nodes, sealed);
      const after = seal.length === 0 ? sealed : await this.deps.segments.seal(run, seal);
      if (after !== undefined) return { ...rest, nodes, ...(after.count > 0 ? { sealed: after.count } : {}) };
    }
    throw new Error(`sealing finished steps of run ${runKey(run)}: segment names kept being taken`);
  }

  /** The run's status as stored: `run` may have been expanded for reading (RunSegments.expand). */
  private stored(run: DagRunResource): DagRunStatus | undefined {
    const cached = this.deps.cache.get(run.metadata?.namespace, run.metadata?.name ?? '');
    return cached !== undefined && cached.metadata?.resourceVersion === run.metadata?.resourceVersion
      ? cached.status
      : run.status;
  }

  /** A JSON patch of the run that applies only to the version this reconcile saw. */
  async patchSpec(run: DagRunResource, operations: readonly JsonPatchOperation[]): Promise<DagRunResource> {
    const { namespace = '', name = '', resourceVersion } = run.metadata ?? {};
    const patched = await this.deps.runs.jsonPatch(namespace, name, [
      { op: 'test', path: '/metadata/resourceVersion', value: resourceVersion },
      ...operations,
    ]);
    this.deps.cache.assume(patched, resourceVersion);
    this.deps.countWrite('patch');
    return patched;
  }

  /**
   * Asks a run (a child run of an attempt) to stop, whatever version it is at: the one field
   * is set, so no version test is needed, and one not created after all is no error.
   */
  async requestStop(namespace: string, name: string): Promise<void> {
    const patched = await ignoreNotFound(this.deps.runs.mergePatch(namespace, name, { spec: { stop: true } }));
    if (patched !== undefined) this.deps.countWrite('patch');
  }

  /**
   * Records the run's end in its `kubedag.io/ended` annotation, when the API took no ending
   * status (core/resources/ended.ts): a change of metadata, which admission of the status
   * subresource never sees and which adds a few hundred bytes at most.
   */
  async recordEnd(run: DagRunResource, end: RecordedEnd): Promise<void> {
    const { namespace = '', name = '', resourceVersion } = run.metadata ?? {};
    const patched = await this.deps.runs.mergePatch(namespace, name, {
      metadata: { annotations: { [ANNOTATIONS.ended]: recordedEndValue(end) } },
    });
    this.deps.cache.assume(patched, resourceVersion);
    this.deps.countWrite('patch');
  }

  /** A child run of a sub-DAG attempt; its derived name makes a repeated create find the first. */
  async createChild(namespace: string, body: DagRunResource): Promise<void> {
    if ((await ignoreAlreadyExists(this.deps.runs.create(namespace, body))) !== undefined)
      this.deps.countWrite('create');
  }

  async delete(run: DagRunResource): Promise<void> {
    await ignoreNotFound(
      this.deps.runs.delete(run.metadata?.namespace ?? '', run.metadata?.name ?? '', {
        propagationPolicy: 'Background',
      }),
    );
    this.deps.countWrite('delete');
  }

  /** Records an Event on the run; fire and forget (an Event lost is not worth a retry). */
  event(run: DagRunResource, reason: string, message: string, warning: boolean): void {
    const now = this.deps.clock.now();
    const { namespace = '', name = '', uid = '' } = run.metadata ?? {};
    void this.deps.core
      .createNamespacedEvent({
        namespace,
        body: {
          metadata: { generateName: `${name === '' ? 'dagrun' : name}.` },
          involvedObject: { apiVersion: API_VERSION, kind: 'DAGRun', name, namespace, uid },
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
        this.deps.countWrite('event');
      })
      .catch((error: unknown) => {
        this.deps.log.warn({ run: runKey(run), reason, err: errorMessage(error) }, 'recording an event failed');
      });
  }
}

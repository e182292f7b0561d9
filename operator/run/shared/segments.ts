/**
 * A run's sealed step records (DAGRunSegments; core/resources/run-records.ts says where
 * records live): read once per running run and kept while it runs, extended by what this
 * process seals. Segments never change, so the cache is only ever behind by segments another
 * process sealed, which the run's `status.sealed` then names: it is read again. A run that
 * sealed nothing costs nothing here. Finished runs leave the cache.
 */
import type { ResourceClient } from '../../../core/kube/client.ts';
import { isAlreadyExists } from '../../../core/kube/errors.ts';
import { readSealed } from '../../../core/kube/segments.ts';
import {
  NOTHING_SEALED,
  stepSegment,
  withSealed,
  withSegment,
  type SealedRecords,
} from '../../../core/resources/run-records.ts';
import type { RunNode } from '../../../core/resources/schemas.ts';
import type { DagRunResource, DagRunSegmentResource } from '../../../core/resources/types.ts';
import { runKey, runRef } from '../ref.ts';

export interface RunSegmentsDeps {
  readonly client: ResourceClient<DagRunSegmentResource>;
  /** Counts the segments created (the kubedag_api_writes_total metric). */
  readonly countWrite: (verb: 'create') => void;
}

export class RunSegments {
  private readonly deps: RunSegmentsDeps;
  /** By run key: the sealed records of the run with this uid. */
  private readonly cache = new Map<string, { readonly uid: string; readonly sealed: SealedRecords }>();

  constructor(deps: RunSegmentsDeps) {
    this.deps = deps;
  }

  async sealed(run: DagRunResource): Promise<SealedRecords> {
    const key = runKey(run);
    const uid = run.metadata?.uid ?? '';
    const cached = this.cache.get(key);
    if (cached?.uid === uid && cached.sealed.count >= (run.status?.sealed ?? 0)) return cached.sealed;
    if ((run.status?.sealed ?? 0) === 0) return NOTHING_SEALED;
    return this.read(run, false);
  }

  /**
   * Seals batches of finished records, each into the next segment. Undefined when a segment's
   * name was taken already (sealed by a write whose status was lost): the cache then holds what
   * is there, and the caller decides again from it.
   */
  async seal(run: DagRunResource, batches: readonly RunNode[][]): Promise<SealedRecords | undefined> {
    const ref = runRef(run);
    let sealed = await this.sealed(run);
    for (const nodes of batches) {
      const index = sealed.count;
      const body = stepSegment(ref, index, nodes);
      try {
        await this.deps.client.create(ref.namespace, body);
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
        await this.read(run, true);
        return undefined;
      }
      this.deps.countWrite('create');
      sealed = withSegment(sealed, { index, nodes });
      this.cache.set(ref.key, { uid: ref.uid, sealed });
    }
    return sealed;
  }

  /**
   * The run with every recorded step in its status: the same object when it sealed nothing.
   * For reading only: the writer compacts what it is given again.
   */
  async expand(run: DagRunResource): Promise<DagRunResource> {
    if ((run.status?.sealed ?? 0) === 0 && !this.cache.has(runKey(run))) return run;
    return withSealed(run, await this.sealed(run));
  }

  forget(key: string): void {
    this.cache.delete(key);
  }

  private async read(run: DagRunResource, always: boolean): Promise<SealedRecords> {
    const sealed = await readSealed(this.deps.client, run, always);
    this.cache.set(runKey(run), { uid: run.metadata?.uid ?? '', sealed });
    return sealed;
  }
}

/**
 * Every step record of a run, for the answers that show steps (details, logs, sub runs, step
 * edits): the status's own and those the operator sealed into DAGRunSegments
 * (core/resources/run-records.ts). A run that sealed nothing is answered from the cache as
 * before. Sealed records never change, so they are kept by run uid and segment count, in a
 * cache bounded by the records it holds: history never grows the API server's memory.
 */
import type { ResourceClient } from '../core/kube/client.ts';
import { readSealed } from '../core/kube/segments.ts';
import { withSealed, type SealedRecords } from '../core/resources/run-records.ts';
import type { DagRunResource, DagRunSegmentResource } from '../core/resources/types.ts';

/** Records kept at most (about 400 bytes each): two runs of 10,000 steps. */
export const KEPT_RECORDS = 20_000;

export class RunRecords {
  private readonly client: ResourceClient<DagRunSegmentResource>;
  private readonly limit: number;
  /** By run uid and segment count, least recently used first. */
  private readonly kept = new Map<string, SealedRecords>();
  private held = 0;

  constructor(client: ResourceClient<DagRunSegmentResource>, limit = KEPT_RECORDS) {
    this.client = client;
    this.limit = limit;
  }

  /** The run with every step's record in its status: the same object when it sealed nothing. */
  async expand(run: DagRunResource): Promise<DagRunResource> {
    const count = run.status?.sealed ?? 0;
    if (count === 0 || run.status === undefined) return run;
    const key = `${run.metadata?.uid ?? ''}/${String(count)}`;
    let sealed = this.kept.get(key);
    if (sealed === undefined) sealed = this.keep(key, await readSealed(this.client, run));
    else {
      this.kept.delete(key);
      this.kept.set(key, sealed);
    }
    return withSealed(run, sealed);
  }

  private keep(key: string, sealed: SealedRecords): SealedRecords {
    this.kept.set(key, sealed);
    this.held += sealed.byName.size;
    for (const [oldest, records] of this.kept) {
      if (this.held <= this.limit || oldest === key) break;
      this.kept.delete(oldest);
      this.held -= records.byName.size;
    }
    return sealed;
  }
}

/**
 * Retention in the history store: a DAG's runs that finished before a cutoff (its
 * histRetentionDays) go in batches, each its own transaction, so that no transaction grows
 * with the history and a sweep cut short is simply finished by the next one. `beforeDelete`
 * sees each batch before it is deleted: the operator removes the runs' logs there, so that a
 * crash between the two leaves runs whose logs are gone, found again next time, never logs
 * that no run names.
 */
import type { HistoryStore, RunKey } from './types.ts';

export const RETENTION_BATCH = 500;

export interface PruneOptions {
  readonly namespace: string;
  readonly dagName: string;
  /** ms since the epoch: runs that finished before it go. */
  readonly finishedBefore: number;
  readonly batchSize?: number;
  readonly beforeDelete?: (batch: readonly RunKey[]) => Promise<void>;
}

/** Deletes the expired runs of a DAG; how many went, and in how many batches. */
export async function pruneHistory(
  store: HistoryStore,
  options: PruneOptions,
): Promise<{ readonly removed: number; readonly batches: number }> {
  const size = Math.max(1, options.batchSize ?? RETENTION_BATCH);
  let removed = 0;
  let batches = 0;
  for (;;) {
    const batch = await store.expired(options.namespace, options.dagName, options.finishedBefore, size);
    if (batch.length === 0) break;
    await options.beforeDelete?.(batch);
    removed += await store.remove(batch);
    batches += 1;
    if (batch.length < size) break;
  }
  return { removed, batches };
}

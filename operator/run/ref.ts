/** How a run is named: its resource, its DAG and run id, and where its attempts' logs are kept. Pure. */
import type { DagRunResource } from '../../core/resources/types.ts';
import type { LogRef } from '../logs/store.ts';

export interface RunRef {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly dagName: string;
  readonly dagRunId: string;
}

/** The work queue key of a run: `namespace/name`. */
export function runKey(run: { readonly metadata?: { readonly namespace?: string; readonly name?: string } }): string {
  return `${run.metadata?.namespace ?? ''}/${run.metadata?.name ?? ''}`;
}

export function runRef(run: DagRunResource): RunRef & { readonly key: string } {
  return {
    name: run.metadata?.name ?? '',
    namespace: run.metadata?.namespace ?? '',
    uid: run.metadata?.uid ?? '',
    dagName: run.spec.dagName ?? run.metadata?.name ?? '',
    dagRunId: run.spec.dagRunId ?? run.metadata?.name ?? '',
    key: runKey(run),
  };
}

/** Where an attempt's logs are kept in the store. */
export function logRefOf(ref: RunRef, step: string, attempt: number): LogRef {
  return { namespace: ref.namespace, dagName: ref.dagName, dagRunId: ref.dagRunId, step, attempt };
}

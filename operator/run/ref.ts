/** How a run is named: its resource, its DAG and run id, its work queue key. Pure. */
import type { DagRunResource } from '../../core/resources/types.ts';

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

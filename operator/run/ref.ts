/** How a run is named: its resource, its DAG and run id, its work queue key, and how the objects it owns point to it. Pure. */
import type { V1Pod } from '@kubernetes/client-node';
import { runOwnerReference } from '../../core/resources/frozen.ts';
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

/** The controller reference every object a run owns carries: deleting the run deletes them. */
export function ownerReference(ref: RunRef): NonNullable<NonNullable<V1Pod['metadata']>['ownerReferences']>[number] {
  return runOwnerReference(ref);
}

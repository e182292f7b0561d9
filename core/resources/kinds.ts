/**
 * The names of Kubedag's resource kinds, the one place they are written: the CRDs (crds.ts)
 * add their schemas and columns to these, the typed client (core/kube/client.ts) addresses
 * objects by them.
 */
export interface KindNames {
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
}

export const KIND_NAMES = {
  dag: { kind: 'DAG', plural: 'dags', singular: 'dag', shortNames: [] },
  dagRun: { kind: 'DAGRun', plural: 'dagruns', singular: 'dagrun', shortNames: ['dr'] },
  dagRunSegment: { kind: 'DAGRunSegment', plural: 'dagrunsegments', singular: 'dagrunsegment', shortNames: ['drs'] },
  dagQueue: { kind: 'DAGQueue', plural: 'dagqueues', singular: 'dagqueue', shortNames: ['dq'] },
} as const satisfies Record<string, KindNames>;

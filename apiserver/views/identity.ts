/** Who a DAGRun is in the contract's terms: DAG name, run id, and its root and parent runs. */
import { listedDagName } from '../../core/resources/listed.ts';
import type { DagRunResource } from '../../core/resources/types.ts';

export interface RunIdentity {
  /** The DAG name the run is listed under (follows a rename of its DAG). */
  readonly name: string;
  readonly dagRunId: string;
  readonly rootName: string;
  readonly rootId: string;
  /** Empty for a root run. */
  readonly parentName: string;
  readonly parentId: string;
}

const identities = new WeakMap<DagRunResource, RunIdentity>();

/** Memoised per cached object: listings ask for it many times per run. */
export function runIdentity(run: DagRunResource): RunIdentity {
  let id = identities.get(run);
  if (id === undefined) {
    id = { ...ownIdentity(run), ...lineage(run) };
    identities.set(run, id);
  }
  return id;
}

function ownIdentity(run: DagRunResource): { name: string; dagRunId: string } {
  const spec = run.spec;
  return { name: listedDagName(run), dagRunId: spec.dagRunId ?? run.metadata?.name ?? '' };
}

function lineage(run: DagRunResource): Omit<RunIdentity, 'name' | 'dagRunId'> {
  const own = ownIdentity(run);
  const { root, parent } = run.spec;
  return {
    rootName: root?.name ?? own.name,
    rootId: root?.dagRunId ?? own.dagRunId,
    parentName: parent?.name ?? '',
    parentId: parent?.dagRunId ?? '',
  };
}

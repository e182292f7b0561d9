/**
 * A DAG resource loaded into the model, once per cached object (the informer replaces an object
 * when it changes), for every controller that reads it: the DAG reconciler on each run's status
 * write, the scheduler on each tick. One cache rather than one per controller: a loaded DAG
 * takes about ten times its JSON, and a namespace of a thousand DAGs held two copies.
 */
import type { DagLoad } from '../../core/dag/index.ts';
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import { loadDagSpec } from '../../core/resources/dag.ts';
import type { DagResource } from '../../core/resources/types.ts';

const loads = new WeakMap<DagResource, DagLoad>();

export function loadedDag(dag: DagResource): DagLoad {
  let load = loads.get(dag);
  if (load === undefined) {
    load = loadDagSpec(dag.spec, {
      fileName: dag.metadata?.annotations?.[ANNOTATIONS.fileName] ?? dag.metadata?.name ?? '',
    });
    loads.set(dag, load);
  }
  return load;
}

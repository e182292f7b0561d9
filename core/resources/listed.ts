/** Under which DAG name a run is listed: one rule for the operator, the API server and the history store. */
import { ANNOTATIONS } from './constants.ts';
import type { DagRunResource } from './types.ts';

/**
 * The rename annotation when the run's DAG was renamed after it ran (spec.dagName cannot
 * change), else the name the run was made under, else the DAG it refers to.
 */
export function listedDagName(run: Pick<DagRunResource, 'metadata' | 'spec'>): string {
  return run.metadata?.annotations?.[ANNOTATIONS.dagName] ?? run.spec.dagName ?? run.spec.dagRef?.name ?? '';
}

/**
 * What a run gains before it starts, so that later edits of its DAG never change it: the
 * frozen definition (snapshot), the name it is listed under and its run id. Pure.
 */
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import type { DagResource, DagRunResource } from '../../core/resources/types.ts';

/** What the run must gain before it starts: its frozen definition, DAG name and run id. */
export function freezePatch(run: DagRunResource, dag: DagResource | undefined, newId: () => string): Record<string, unknown> {
  const spec = run.spec;
  const source = spec.definition ?? dag?.spec ?? {};
  const patch: Record<string, unknown> = {};
  if (spec.snapshot === undefined) patch.snapshot = source;
  if (spec.dagName === undefined) patch.dagName = dagNameOf(run, dag, source);
  if (spec.dagRunId === undefined) patch.dagRunId = newId();
  return patch;
}

/** The name a run is listed under: the YAML name, else the DAG file name, else the run's. */
function dagNameOf(run: DagRunResource, dag: DagResource | undefined, source: Record<string, unknown>): string {
  if (typeof source.name === 'string' && source.name !== '') return source.name;
  return dag?.metadata?.annotations?.[ANNOTATIONS.fileName] ?? dag?.metadata?.name ?? run.metadata?.name ?? 'dag';
}

import { dagManifest } from '../core/resources/dag.ts';
import type { DagResource } from '../core/resources/types.ts';
import { dagEntry, type DagEntry } from '../apiserver/views/dags.ts';

/** One step is all a DAG needs to load without errors. */
export const STEPS = [{ name: 'hello', command: 'echo hello' }];

/** A DAG resource as `dagManifest` makes it from a file's documents, plus extra annotations. */
export function dagResource(
  fileName: string,
  documents: Record<string, unknown>[],
  annotations: Record<string, string> = {},
): DagResource {
  const manifest = dagManifest(fileName, documents);
  return {
    ...manifest,
    metadata: { ...manifest.metadata, annotations: { ...manifest.metadata.annotations, ...annotations } },
  };
}

export function entry(fileName: string, fields: Record<string, unknown> = {}): DagEntry {
  return dagEntry(dagResource(fileName, [{ steps: STEPS, ...fields }]));
}

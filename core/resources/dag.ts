import { loadDag, type DagLoad, type LoadOptions } from '../dag/load.ts';
import { ANNOTATIONS, API_VERSION, LABELS } from './constants.ts';
import { dagResourceName, isLabelValue } from './names.ts';
import { specDocuments } from './types.ts';

export interface DagManifest {
  readonly apiVersion: typeof API_VERSION;
  readonly kind: 'DAG';
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels: Record<string, string>;
    readonly annotations: Record<string, string>;
  };
  /** The DAG as written; later documents of the file under `localDags`. */
  readonly spec: Record<string, unknown>;
}

/**
 * The DAG resource for a file's documents (as written, first = the DAG). The file name goes
 * into an annotation always and into a label when it is a valid label value, so that
 * `kubectl get dags -l kubedag.io/file-name=...` finds it.
 */
export function dagManifest(
  fileName: string,
  documents: readonly Record<string, unknown>[],
  namespace?: string,
): DagManifest {
  const [first = {}, ...locals] = documents;
  const labels: Record<string, string> = isLabelValue(fileName) ? { [LABELS.fileName]: fileName } : {};
  return {
    apiVersion: API_VERSION,
    kind: 'DAG',
    metadata: {
      name: dagResourceName(fileName),
      ...(namespace === undefined ? {} : { namespace }),
      labels,
      annotations: { [ANNOTATIONS.fileName]: fileName },
    },
    spec: locals.length === 0 ? { ...first } : { ...first, localDags: locals.map((local) => ({ ...local })) },
  };
}

/**
 * A stored spec (a DAG resource's, or a run's snapshot or inline definition) loaded like a
 * file: JSON is YAML, so each document goes through the one loader the CLI uses.
 */
export function loadDagSpec(spec: Record<string, unknown>, options: LoadOptions = {}): DagLoad {
  return loadDag(
    specDocuments(spec)
      .map((d) => JSON.stringify(d))
      .join('\n---\n'),
    options,
  );
}

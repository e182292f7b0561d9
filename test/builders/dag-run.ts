/**
 * A fluent builder for DAGRun resources, shared by unit and integration tests:
 * `dagRun('etl-r1').of('etl', 'r1').status({ status: 4 }).build()`. Each call returns the
 * builder; `build()` gives a fresh copy, so one builder can make several variants.
 */
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import type { DagRunSpec, DagRunStatus } from '../../core/resources/schemas.ts';
import type { DagRunResource } from '../../core/resources/types.ts';

export class DagRunBuilder {
  private readonly object: DagRunResource & { metadata: NonNullable<DagRunResource['metadata']> };

  constructor(name: string) {
    this.object = { metadata: { name }, spec: {} };
  }

  namespace(namespace: string): this {
    this.object.metadata.namespace = namespace;
    return this;
  }

  uid(uid: string): this {
    this.object.metadata.uid = uid;
    return this;
  }

  /**
   * The creation time, kept as given: objects read through a watch carry the RFC 3339 text,
   * objects from the typed client a Date, and code under test must take both.
   */
  created(at: string | Date): this {
    this.object.metadata.creationTimestamp = at as Date;
    return this;
  }

  annotate(annotations: Record<string, string>): this {
    this.object.metadata.annotations = { ...this.object.metadata.annotations, ...annotations };
    return this;
  }

  label(labels: Record<string, string>): this {
    this.object.metadata.labels = { ...this.object.metadata.labels, ...labels };
    return this;
  }

  /** A run of a DAG resource, as the API's starter creates it: dagRef, dagName and (optionally) the run id. */
  of(dag: string, dagRunId?: string): this {
    return this.spec({ dagRef: { name: dag }, dagName: dag, ...(dagRunId === undefined ? {} : { dagRunId }) });
  }

  /** Listed under another DAG name (its DAG was renamed). */
  renamedTo(dagName: string): this {
    return this.annotate({ [ANNOTATIONS.dagName]: dagName });
  }

  /** A sub run, with its parent and root runs as `[dag name, run id]`. */
  child(parent: readonly [string, string], root: readonly [string, string] = parent): this {
    return this.spec({ parent: { name: parent[0], dagRunId: parent[1] }, root: { name: root[0], dagRunId: root[1] } });
  }

  /** Fields of the definition frozen the old way (`spec.snapshot`), merged into what is there. */
  snapshot(fields: Record<string, unknown>): this {
    return this.spec({ snapshot: { ...this.object.spec.snapshot, ...fields } });
  }

  spec(fields: Partial<DagRunSpec>): this {
    Object.assign(this.object.spec, fields);
    return this;
  }

  /** Status fields, merged into what is there. */
  status(fields: DagRunStatus): this {
    this.object.status = { ...this.object.status, ...fields };
    return this;
  }

  build(): DagRunResource {
    return structuredClone(this.object);
  }
}

export const dagRun = (name: string): DagRunBuilder => new DagRunBuilder(name);

/**
 * A fluent builder for DAG resources, shared by unit and integration tests:
 * `dag('nightly').spec({ steps: ['echo'] }).build()`. The file name annotation is set as the
 * API and the CLI set it.
 */
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import type { DagStatus } from '../../core/resources/schemas.ts';
import type { DagResource } from '../../core/resources/types.ts';

export class DagBuilder {
  private readonly object: DagResource & { metadata: NonNullable<DagResource['metadata']> };

  constructor(name: string, fileName = name) {
    this.object = { metadata: { name, annotations: { [ANNOTATIONS.fileName]: fileName } }, spec: {} };
  }

  namespace(namespace: string): this {
    this.object.metadata.namespace = namespace;
    return this;
  }

  generation(generation: number): this {
    this.object.metadata.generation = generation;
    return this;
  }

  annotate(annotations: Record<string, string>): this {
    this.object.metadata.annotations = { ...this.object.metadata.annotations, ...annotations };
    return this;
  }

  spec(spec: Record<string, unknown>): this {
    this.object.spec = spec;
    return this;
  }

  status(status: DagStatus): this {
    this.object.status = status;
    return this;
  }

  build(): DagResource {
    return structuredClone(this.object);
  }
}

/** A DAG resource named `name`, for the DAG file `fileName` (the same by default). */
export const dag = (name: string, fileName?: string): DagBuilder => new DagBuilder(name, fileName);

/**
 * A fluent builder for DAGQueues, the named queues runs wait in:
 * `dagQueue('batch').maxConcurrency(3).counts({ running: 1, queued: 2 }).build()`.
 */
import { API_VERSION } from '../../core/resources/constants.ts';
import { KIND_NAMES } from '../../core/resources/kinds.ts';
import type { DagQueueStatus } from '../../core/resources/schemas.ts';
import type { DagQueueResource } from '../../core/resources/types.ts';

export class DagQueueBuilder {
  private readonly object: DagQueueResource & { metadata: NonNullable<DagQueueResource['metadata']> };

  constructor(name: string) {
    // One run at a time unless told: the least a DAGQueue may allow.
    this.object = {
      apiVersion: API_VERSION,
      kind: KIND_NAMES.dagQueue.kind,
      metadata: { name },
      spec: { maxConcurrency: 1 },
    };
  }

  namespace(namespace: string): this {
    this.object.metadata.namespace = namespace;
    return this;
  }

  maxConcurrency(maxConcurrency: number): this {
    this.object.spec = { ...this.object.spec, maxConcurrency };
    return this;
  }

  /** The status the operator writes: runs running and waiting now. */
  counts(status: DagQueueStatus): this {
    this.object.status = status;
    return this;
  }

  build(): DagQueueResource {
    return structuredClone(this.object);
  }
}

export const dagQueue = (name: string): DagQueueBuilder => new DagQueueBuilder(name);

/**
 * A fluent builder for DAGRunSegments, the immutable pieces of a run kept beside its DAGRun:
 * `dagRunSegment('etl-r1-steps-0').ownedBy('etl-r1', 'u1').steps(0, records).build()`. The
 * name is given as is: tests of the naming rules name it with core/resources/names.ts.
 */
import type { V1OwnerReference } from '@kubernetes/client-node';
import { API_VERSION, LABELS } from '../../core/resources/constants.ts';
import { KIND_NAMES } from '../../core/resources/kinds.ts';
import type { RunNode } from '../../core/resources/schemas.ts';
import type { DagRunSegmentResource } from '../../core/resources/types.ts';

export class DagRunSegmentBuilder {
  private readonly object: DagRunSegmentResource & { metadata: NonNullable<DagRunSegmentResource['metadata']> };

  constructor(name: string) {
    // A segment of no run yet: `ownedBy` or `forRun` names one (spec.run is required).
    this.object = {
      apiVersion: API_VERSION,
      kind: KIND_NAMES.dagRunSegment.kind,
      metadata: { name },
      spec: { run: '' },
    };
  }

  namespace(namespace: string): this {
    this.object.metadata.namespace = namespace;
    return this;
  }

  /** Of the run `run` (spec.run) without an owner reference or label, as a hand-made one is. */
  forRun(run: string): this {
    this.object.spec.run = run;
    return this;
  }

  /**
   * Of the run `run` whose uid is `uid`, as the operator writes one: owned by the run (garbage
   * collected with it) and labelled with its name (listed by it). `fields` adds to or takes from
   * the owner reference, for the readers that must tell one apart.
   */
  ownedBy(run: string, uid: string, fields: Partial<V1OwnerReference> = {}): this {
    this.object.metadata.labels = { ...this.object.metadata.labels, [LABELS.run]: run };
    this.object.metadata.ownerReferences = [
      {
        apiVersion: API_VERSION,
        kind: KIND_NAMES.dagRun.kind,
        name: run,
        uid,
        controller: true,
        blockOwnerDeletion: true,
        ...fields,
      },
    ];
    return this.forRun(run);
  }

  /** Sealed step records, the run's `index`th segment. */
  steps(index: number, nodes: RunNode[]): this {
    Object.assign(this.object.spec, { index, nodes });
    return this;
  }

  /** The run's frozen definition. */
  definition(definition: Record<string, unknown>): this {
    this.object.spec.definition = definition;
    return this;
  }

  build(): DagRunSegmentResource {
    return structuredClone(this.object);
  }
}

export const dagRunSegment = (name: string): DagRunSegmentBuilder => new DagRunSegmentBuilder(name);

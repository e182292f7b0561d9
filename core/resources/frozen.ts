/**
 * A run's frozen definition: the DAG as it was when the run was made, which later edits of the
 * DAG never change. An inline run's `definition` is its own (immutable from creation). A dagRef
 * run's is written once into a DAGRunSegment it owns, `definitionSegmentName(run)`, and the run
 * names it in `spec.frozenDefinition`: the DAGRun, which every status write rewrites whole,
 * stays small whatever the definition's size. Runs frozen before that carry `spec.snapshot`;
 * every reader still takes it. Pure; core/kube/frozen-definitions.ts reads and writes segments.
 */
import type { Dag } from '../dag/index.ts';
import { API_VERSION, LABELS } from './constants.ts';
import { definitionSegmentName, labelValue } from './names.ts';
import type { FrozenDefinition } from './schemas.ts';
import type { DagRunResource, DagRunSegmentResource } from './types.ts';

/** Where a run's frozen definition is: in its spec, in a segment, or nowhere yet (a dagRef run nobody froze). */
export type DefinitionPlace =
  | { readonly in: 'spec'; readonly definition: Record<string, unknown> }
  | { readonly in: 'segment'; readonly segment: string }
  | { readonly in: 'nowhere' };

export function definitionPlace(run: DagRunResource): DefinitionPlace {
  const { snapshot, frozenDefinition, definition } = run.spec;
  if (snapshot !== undefined) return { in: 'spec', definition: snapshot };
  if (frozenDefinition !== undefined) return { in: 'segment', segment: frozenDefinition.segment };
  if (definition !== undefined) return { in: 'spec', definition };
  return { in: 'nowhere' };
}

export function isFrozen(run: DagRunResource): boolean {
  return definitionPlace(run).in !== 'nowhere';
}

/** What is read of a definition for many runs at once, so that none of them has to be loaded. */
export type DefinitionFacts = Omit<FrozenDefinition, 'segment'>;

/**
 * Whether anything is owed once a run of this DAG has ended: a trace export (otel), mails
 * (mailOn, a step's mailOnError) or the removal of its container. A superset of what the
 * operator's finished-run controller does (operator/run/finished/finished-controller.ts), so
 * that `false` means nothing there needs the definition; work added there must be added here.
 */
export function asksAfterEnd(dag: Dag): boolean {
  return (
    dag.container !== undefined ||
    dag.otel?.enabled === true ||
    dag.mailOn.success ||
    dag.mailOn.failure ||
    // A wait mail sent while the run waited is recorded once the run has ended.
    (dag.mailOn.wait && dag.waitMail !== undefined) ||
    dag.steps.some((step) => step.mailOnError)
  );
}

export function definitionFacts(dag: Dag): DefinitionFacts {
  return {
    ...(dag.queue === undefined || dag.queue === '' ? {} : { queue: dag.queue }),
    maxActiveRuns: dag.maxActiveRuns,
    histRetentionDays: dag.histRetentionDays,
    ...(dag.histRetentionRuns === undefined ? {} : { histRetentionRuns: dag.histRetentionRuns }),
    ...(dag.retryPolicy === undefined ? {} : { retryPolicy: dag.retryPolicy }),
    afterEnd: asksAfterEnd(dag),
  };
}

/** The reference a dagRef run carries to its frozen definition (whose loaded form is `dag`). */
export function frozenReference(runName: string, dag: Dag): FrozenDefinition {
  return { segment: definitionSegmentName(runName), ...definitionFacts(dag) };
}

/** The facts a run's spec tells without loading its definition; undefined when only loading it tells them. */
export function frozenFacts(run: DagRunResource): DefinitionFacts | undefined {
  if (run.spec.snapshot !== undefined) return undefined;
  return run.spec.frozenDefinition;
}

/**
 * A value of the run's definition read without loading it: from the definition in its spec as
 * written, or from the facts its reference carries. For the values read of many runs at once.
 */
export function declaredValue(run: DagRunResource, key: 'queue' | 'maxActiveRuns'): unknown {
  const place = definitionPlace(run);
  return place.in === 'spec' ? place.definition[key] : run.spec.frozenDefinition?.[key];
}

/** The run a segment belongs to, as its owner reference names it (the uid tells a namesake apart). */
export interface SegmentOwner {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
}

export function runOwnerReference(owner: SegmentOwner): {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller: boolean;
  blockOwnerDeletion: boolean;
} {
  return {
    apiVersion: API_VERSION,
    kind: 'DAGRun',
    name: owner.name,
    uid: owner.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The segment that freezes `definition` for the run: garbage collected with it, found by its label. */
export function definitionSegment(owner: SegmentOwner, definition: Record<string, unknown>): DagRunSegmentResource {
  return {
    metadata: {
      name: definitionSegmentName(owner.name),
      namespace: owner.namespace,
      labels: { [LABELS.run]: labelValue(owner.name) },
      ownerReferences: [runOwnerReference(owner)],
    },
    spec: { run: owner.name, definition },
  };
}

/** Whether a segment is the run's own: one left by a deleted namesake is not, until it is collected. */
export function ownedBy(segment: DagRunSegmentResource, uid: string): boolean {
  return (
    uid !== '' &&
    (segment.metadata?.ownerReferences ?? []).some((owner) => owner.kind === 'DAGRun' && owner.uid === uid)
  );
}

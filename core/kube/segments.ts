/**
 * Reading a run's sealed step records (DAGRunSegments, core/resources/run-records.ts): one
 * list by the run's label, keeping only segments its own uid owns (a run deleted and created
 * again under the same name must not inherit its namesake's records). Both the operator and
 * the API server read them this way. The operator seals them as a run goes; the API server
 * writes them only when it puts an archived run back (apiserver/restore.ts).
 */
import { LABELS } from '../resources/constants.ts';
import { labelValue } from '../resources/names.ts';
import type { SegmentOwner } from '../resources/frozen.ts';
import { NOTHING_SEALED, sealedRecords, stepSegment, type SealedRecords } from '../resources/run-records.ts';
import type { RunNode } from '../resources/schemas.ts';
import type { DagRunResource, DagRunSegmentResource } from '../resources/types.ts';
import type { ResourceClient } from './client.ts';
import { ignoreNotFound, isAlreadyExists, isConflict, isNotFound } from './errors.ts';

/**
 * The run's sealed records. A run whose status names no segment has none to read, unless
 * `always`: a segment created just before its status write was lost (a crash, a conflict) is
 * found only by looking.
 */
export async function readSealed(
  client: ResourceClient<DagRunSegmentResource>,
  run: DagRunResource,
  always = false,
): Promise<SealedRecords> {
  if ((run.status?.sealed ?? 0) === 0 && !always) return NOTHING_SEALED;
  const { namespace = '', name = '', uid } = run.metadata ?? {};
  const list = await client.list(namespace, { labelSelector: `${LABELS.run}=${labelValue(name)}` });
  return sealedRecords(
    list.items
      .filter((segment) => ownedBy(segment, uid))
      .flatMap((segment) =>
        segment.spec.nodes === undefined ? [] : [{ index: segment.spec.index ?? 0, nodes: segment.spec.nodes }],
      ),
  );
}

function ownedBy(segment: DagRunSegmentResource, uid: string | undefined): boolean {
  return (segment.metadata?.ownerReferences ?? []).some((owner) => owner.kind === 'DAGRun' && owner.uid === uid);
}

/**
 * Seals `nodes` as the run's `index`th segment, for a writer that may be repeating itself (a
 * restore cut short and asked again): one the run owns already is kept as it is; a deleted
 * namesake's left for the garbage collector is deleted (guarded by its uid) and written again.
 */
export async function writeStepSegment(
  client: ResourceClient<DagRunSegmentResource>,
  owner: SegmentOwner,
  index: number,
  nodes: RunNode[],
): Promise<void> {
  const body = stepSegment(owner, index, nodes);
  const name = body.metadata?.name ?? '';
  for (let attempt = 0; ; attempt++) {
    try {
      await client.create(owner.namespace, body);
      return;
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
    const found = await ignoreNotFound(client.get(owner.namespace, name));
    if (found !== undefined && ownedBy(found, owner.uid)) return;
    if (attempt > 0) throw new Error(`the step segment ${owner.namespace}/${name} is held by another run`);
    if (found !== undefined)
      await client.delete(owner.namespace, name, { uid: found.metadata?.uid ?? '' }).catch((error: unknown) => {
        if (!isNotFound(error) && !isConflict(error)) throw error;
      });
  }
}

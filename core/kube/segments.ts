/**
 * Reading a run's sealed step records (DAGRunSegments, core/resources/run-records.ts): one
 * list by the run's label, keeping only segments its own uid owns (a run deleted and created
 * again under the same name must not inherit its namesake's records). Both the operator and
 * the API server read them this way; only the operator writes them.
 */
import { LABELS } from '../resources/constants.ts';
import { labelValue } from '../resources/names.ts';
import { NOTHING_SEALED, sealedRecords, type SealedRecords } from '../resources/run-records.ts';
import type { DagRunResource, DagRunSegmentResource } from '../resources/types.ts';
import type { ResourceClient } from './client.ts';

/**
 * The run's sealed records. A run whose status names no segment has none to read, unless
 * `always`: a segment created just before its status write was lost (a crash, a conflict) is
 * found only by looking.
 */
export async function readSealed(client: ResourceClient<DagRunSegmentResource>, run: DagRunResource, always = false): Promise<SealedRecords> {
  if ((run.status?.sealed ?? 0) === 0 && !always) return NOTHING_SEALED;
  const { namespace = '', name = '', uid } = run.metadata ?? {};
  const list = await client.list(namespace, { labelSelector: `${LABELS.run}=${labelValue(name)}` });
  return sealedRecords(list.items.filter((segment) => ownedBy(segment, uid)).flatMap((segment) => (segment.spec.nodes === undefined ? [] : [{ index: segment.spec.index ?? 0, nodes: segment.spec.nodes }])));
}

function ownedBy(segment: DagRunSegmentResource, uid: string | undefined): boolean {
  return (segment.metadata?.ownerReferences ?? []).some((owner) => owner.kind === 'DAGRun' && owner.uid === uid);
}

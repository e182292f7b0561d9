/**
 * Reading and writing frozen definitions (core/resources/frozen.ts). A definition segment has
 * one name per run and is written once, so whoever writes it second finds it there
 * (AlreadyExists) and takes what is there: two different definitions can never be frozen for
 * one run, whatever crashes in between. A segment owned by another uid is a deleted namesake's
 * that the garbage collector has not reached yet: it is nobody's definition and may go.
 */
import { definitionSegment, ownedBy, type SegmentOwner } from '../resources/frozen.ts';
import { definitionSegmentName } from '../resources/names.ts';
import type { DagRunResource, DagRunSegmentResource } from '../resources/types.ts';
import type { KubedagClients, ResourceClient } from './client.ts';
import { ignoreNotFound, isAlreadyExists, isConflict, isNotFound } from './errors.ts';

export function ownerOf(run: DagRunResource): SegmentOwner {
  return { name: run.metadata?.name ?? '', namespace: run.metadata?.namespace ?? '', uid: run.metadata?.uid ?? '' };
}

/** The definition in the segment the run names, or undefined while there is none of its own (not written yet). */
export async function readFrozenDefinition(
  client: ResourceClient<DagRunSegmentResource>,
  run: DagRunResource,
): Promise<Record<string, unknown> | undefined> {
  const name = run.spec.frozenDefinition?.segment;
  return name === undefined ? undefined : ownDefinition(client, ownerOf(run), name);
}

/** The definition frozen for the run before its spec named it (a freeze killed between its two writes), if any. */
export async function findFrozenDefinition(
  client: ResourceClient<DagRunSegmentResource>,
  owner: SegmentOwner,
): Promise<Record<string, unknown> | undefined> {
  return ownDefinition(client, owner, definitionSegmentName(owner.name));
}

async function ownDefinition(
  client: ResourceClient<DagRunSegmentResource>,
  owner: SegmentOwner,
  name: string,
): Promise<Record<string, unknown> | undefined> {
  const segment = await ignoreNotFound(client.get(owner.namespace, name));
  return segment !== undefined && ownedBy(segment, owner.uid) ? (segment.spec.definition ?? {}) : undefined;
}

/**
 * Freezes `definition` for the run, or finds the one frozen before: the definition the run
 * has now, and whether this call wrote it. A namesake's leftover is deleted (guarded by its
 * uid) and the create tried again.
 */
export async function writeFrozenDefinition(
  client: ResourceClient<DagRunSegmentResource>,
  owner: SegmentOwner,
  definition: Record<string, unknown>,
): Promise<{ readonly definition: Record<string, unknown>; readonly created: boolean }> {
  const body = definitionSegment(owner, definition);
  const name = body.metadata?.name ?? '';
  for (let attempt = 0; ; attempt++) {
    try {
      await client.create(owner.namespace, body);
      return { definition, created: true };
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
    const found = await ignoreNotFound(client.get(owner.namespace, name));
    if (found !== undefined && ownedBy(found, owner.uid))
      return { definition: found.spec.definition ?? {}, created: false };
    if (attempt > 0) throw new Error(`the definition segment ${owner.namespace}/${name} is held by another run`);
    if (found !== undefined)
      await client.delete(owner.namespace, name, { uid: found.metadata?.uid ?? '' }).catch((error: unknown) => {
        if (!isNotFound(error) && !isConflict(error)) throw error;
      });
  }
}

/**
 * Creates a run whose creator freezes its definition: the run names its segment from its first
 * version (`frozenDefinition` in `body`), and the segment follows at once. So nobody else can
 * freeze another definition for it meanwhile; the operator waits for the segment, and fails a
 * run whose creator died before writing it (operator/run/decide/freeze-patch.ts). A segment that cannot be
 * written takes the run back with it, so the caller's error is the whole story.
 */
export async function createFrozenRun(
  clients: Pick<KubedagClients, 'runs' | 'segments'>,
  namespace: string,
  body: DagRunResource,
  definition: Record<string, unknown>,
): Promise<DagRunResource> {
  const created = await clients.runs.create(namespace, body);
  try {
    await writeFrozenDefinition(clients.segments, ownerOf(created), definition);
  } catch (error) {
    await clients.runs
      .delete(namespace, created.metadata?.name ?? '', { uid: created.metadata?.uid ?? '' })
      .catch(() => undefined);
    throw error;
  }
  return created;
}

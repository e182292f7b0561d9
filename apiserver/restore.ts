/**
 * Putting an archived root run back as a DAGRun, so that it can be retried or edited as a
 * finished run in etcd is (docs/decisions/2026-11-28-history-reads.md). The archived resource
 * holds every record and its definition; written back whole, a 10,000-step run would be one
 * object of megabytes. So it is written the way runs are written while they run: the definition
 * frozen into its segment (core/kube/frozen-definitions.ts) and the finished records sealed into
 * step segments (core/resources/run-records.ts), the status keeping only the short tail.
 *
 * Order, and what a crash leaves:
 * 1. The DAGRun, under the run's original resource name, naming its definition segment and
 *    marked `restored-from` (the archived uid). A dagRef run waits for its definition segment
 *    (operator/run/decide/freeze-patch.ts), so the operator does not start it as a new run meanwhile; an
 *    inline run carries its end on its metadata until its status is written (endRecord).
 * 2. The step segments, owned by the new uid.
 * 3. The status: finished as archived, naming the segments (`sealed`).
 * 4. The definition segment: only now can the operator read the run, and it finds it finished.
 * A crash anywhere leaves a DAGRun marked `restored-from`: the same request again finds it under
 * the same name (never a second run) and finishes the steps left, each of which is safe to
 * repeat. A different run under that name is the contract's already_exists.
 */
import type { KubedagClients } from '../core/kube/client.ts';
import { isAlreadyExists, isConflict } from '../core/kube/errors.ts';
import { ownerOf, writeFrozenDefinition } from '../core/kube/frozen-definitions.ts';
import { writeStepSegment } from '../core/kube/segments.ts';
import { ANNOTATIONS } from '../core/resources/constants.ts';
import { loadDagSpec } from '../core/resources/dag.ts';
import { frozenReference, runOwnerReference } from '../core/resources/frozen.ts';
import { definitionSegmentName } from '../core/resources/names.ts';
import { compactNodes, NOTHING_SEALED } from '../core/resources/run-records.ts';
import type { RunNode } from '../core/resources/schemas.ts';
import { RunStatus } from '../core/resources/status.ts';
import type { DagRunResource } from '../core/resources/types.ts';
import type { Cache } from './cache.ts';
import { ApiError } from './errors.ts';
import { runIdentity } from './views/identity.ts';

/** What a restore writes, worked out before anything is written. */
export interface RestorePlan {
  /** The DAGRun to create (no status: the API server ignores a status on create). */
  readonly body: DagRunResource;
  /** The status it ends with: the tail of records, `sealed` naming the segments. */
  readonly status: NonNullable<DagRunResource['status']>;
  /** One segment's records each, in order. */
  readonly segments: RunNode[][];
  /** The definition to freeze into its segment; undefined for an inline run (its spec holds it). */
  readonly definition?: Record<string, unknown>;
}

/**
 * Annotations a run ended with that belong to no later DAGRun: a pending restart names a run
 * long gone, and a retry's token is echoed by the status, which the DAGRun has none of at first
 * (the operator would take the token for a retry asked). A new retry sets a new token anyway.
 */
const DROPPED = new Set<string>([
  ANNOTATIONS.restartRunId,
  ANNOTATIONS.restartAt,
  ANNOTATIONS.ended,
  ANNOTATIONS.retry,
  ANNOTATIONS.retryStep,
]);

/**
 * For an inline run, which no definition segment holds back: its end recorded on the metadata
 * (core/resources/ended.ts), which every Kubedag cache reads as the status while there is none,
 * so the operator sees the run finished from its first version instead of a new run to start.
 * Taken off once the status is written. Token '': the status it stands in for has none yet.
 */
function endRecord(archived: DagRunResource): Record<string, string> {
  if (archived.spec.definition === undefined) return {};
  const { status = 0, finishedAt = '', error = '' } = archived.status ?? {};
  return { [ANNOTATIONS.ended]: JSON.stringify({ status, finishedAt, error, token: '' }) };
}

/** The spec, naming its definition segment, and the definition for it (dagRef runs); an inline run's spec holds its own. */
function restoredSpec(
  archived: DagRunResource,
  name: string,
): { spec: DagRunResource['spec']; definition?: Record<string, unknown> } {
  const { snapshot, frozenDefinition, ...spec } = archived.spec;
  if (spec.definition !== undefined) return { spec };
  const id = runIdentity(archived);
  if (snapshot === undefined)
    throw new ApiError(
      'bad_request',
      `run "${id.dagRunId}" was archived without its definition; it cannot be put back`,
    );
  // The facts it was frozen with, else worked out again (a run frozen the old way); the segment is always its own.
  const facts =
    frozenDefinition ?? frozenReference(name, loadDagSpec(snapshot, { fileName: spec.dagName ?? id.name }).dag);
  return {
    spec: { ...spec, frozenDefinition: { ...facts, segment: definitionSegmentName(name) } },
    definition: snapshot,
  };
}

/**
 * A sub run is owned by its parent DAGRun, as the operator made it: the operator finds a run's
 * children by that reference, and the garbage collector deletes them with it.
 */
function restoredMetadata(
  archived: DagRunResource,
  namespace: string,
  parent: DagRunResource | undefined,
): NonNullable<DagRunResource['metadata']> {
  const { name = '', labels, uid = '' } = archived.metadata ?? {};
  const annotations = Object.fromEntries(
    Object.entries(archived.metadata?.annotations ?? {}).filter(([key]) => !DROPPED.has(key)),
  );
  const owned = parent === undefined ? {} : { ownerReferences: [runOwnerReference(ownerOf(parent))] };
  return {
    name,
    namespace,
    ...(labels === undefined ? {} : { labels }),
    annotations: { ...annotations, ...endRecord(archived), [ANNOTATIONS.restoredFrom]: uid },
    ...owned,
  };
}

/** The plan for an archived run (HistoryRun.resource), a sub run's with its live parent. Pure; throws the contract's errors. */
export function restorePlan(archived: DagRunResource, namespace: string, parent?: DagRunResource): RestorePlan {
  const metadata = restoredMetadata(archived, namespace, parent);
  const { spec, definition } = restoredSpec(archived, metadata.name ?? '');
  const { observedGeneration: _generation, sealed: _sealed, ...ended } = archived.status ?? {};
  const { nodes, seal } = compactNodes(ended.nodes ?? [], NOTHING_SEALED);
  const status = { ...ended, nodes, ...(seal.length === 0 ? {} : { sealed: seal.length }) };
  return { body: { metadata, spec }, status, segments: seal, ...(definition === undefined ? {} : { definition }) };
}

export interface RestoreDeps {
  readonly clients: Pick<KubedagClients, 'runs' | 'segments'>;
  readonly cache: Cache;
}

/** Another DAGRun holds the archived run's resource name: each route answers it in its own terms. */
export class NameTaken extends Error {}

/** Whether a DAGRun found under the run's name is this run's restore (cut short, or done). */
function isRestoreOf(found: DagRunResource, archived: DagRunResource): boolean {
  return (
    found.metadata?.annotations?.[ANNOTATIONS.restoredFrom] === (archived.metadata?.uid ?? '') &&
    (found.spec.dagRunId ?? '') === (archived.spec.dagRunId ?? '')
  );
}

async function createOrFind(deps: RestoreDeps, plan: RestorePlan, archived: DagRunResource): Promise<DagRunResource> {
  const { namespace = '', name = '' } = plan.body.metadata ?? {};
  try {
    return await deps.clients.runs.create(namespace, plan.body);
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
  const found = await deps.clients.runs.get(namespace, name);
  if (!isRestoreOf(found, archived))
    throw new NameTaken(`another run holds the name of run "${runIdentity(archived).dagRunId}" (${name})`);
  return found;
}

/** The status written once: a run that has one already (a restore finished before, or retried since) keeps it. */
async function writeStatus(
  deps: RestoreDeps,
  run: DagRunResource,
  status: RestorePlan['status'],
): Promise<DagRunResource> {
  for (let current = run; ;) {
    if (current.status?.finishedAt !== undefined || current.status?.status === RunStatus.Running) return current;
    try {
      return await deps.clients.runs.replaceStatus({
        ...current,
        status: {
          ...status,
          ...(current.metadata?.generation === undefined ? {} : { observedGeneration: current.metadata.generation }),
        },
      });
    } catch (error) {
      if (!isConflict(error)) throw error;
      // Someone wrote meanwhile (the operator queueing an inline run): read it and decide again.
      current = await deps.clients.runs.get(current.metadata?.namespace ?? '', current.metadata?.name ?? '');
    }
  }
}

/** Puts an archived run back as a DAGRun (a sub run under its live parent) and waits until the cache has it; answers that cached run. */
export async function restoreRun(
  deps: RestoreDeps,
  archived: DagRunResource,
  parent?: DagRunResource,
): Promise<DagRunResource> {
  const plan = restorePlan(archived, deps.cache.namespace, parent);
  const created = await createOrFind(deps, plan, archived);
  const owner = ownerOf({ ...created, metadata: { ...created.metadata, namespace: deps.cache.namespace } });
  for (const [index, nodes] of plan.segments.entries())
    await writeStepSegment(deps.clients.segments, owner, index, nodes);
  let written = await writeStatus(deps, created, plan.status);
  if (plan.definition !== undefined) await writeFrozenDefinition(deps.clients.segments, owner, plan.definition);
  const name = owner.name;
  if (written.metadata?.annotations?.[ANNOTATIONS.ended] !== undefined)
    written = await deps.clients.runs.mergePatch(owner.namespace, name, {
      metadata: { annotations: { [ANNOTATIONS.ended]: null } },
    });
  await deps.cache.settled(deps.cache.runs, name, written.metadata?.resourceVersion);
  const cached = deps.cache.runs.get(deps.cache.namespace, name);
  if (cached === undefined)
    throw new ApiError(
      'service_unavailable',
      `run "${runIdentity(archived).dagRunId}" was put back but is not cached yet; try again`,
    );
  return cached;
}

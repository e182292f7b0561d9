/**
 * What a run gains before it starts, so that later edits of its DAG never change it: its frozen
 * definition (core/resources/frozen.ts), the name it is listed under and its run id; and what
 * becomes of a run whose creator named a definition segment that is not there. Pure.
 */
import { ANNOTATIONS } from '../../../core/resources/constants.ts';
import type { DagRunStatus, FrozenDefinition } from '../../../core/resources/schemas.ts';
import { RunStatus, runStatusLabel } from '../../../core/resources/status.ts';
import type { DagResource, DagRunResource } from '../../../core/resources/types.ts';

/**
 * How long a run waits for the definition segment its creator named (the API server and the
 * scheduler create the run, then the segment): far longer than the two writes take, short
 * enough that a run whose creator died in between fails while someone still looks.
 */
export const DEFINITION_GRACE_MS = 60_000;
/** How soon a run waiting for its definition segment is looked at again. */
export const DEFINITION_POLL_MS = 200;

/** A dagRef run just frozen: the definition its segment holds (written now, or found there) and the reference to it. */
export interface Freezing {
  readonly definition: Record<string, unknown>;
  readonly reference: FrozenDefinition;
}

/**
 * What the run's spec must gain: the reference to a definition frozen now (dagRef runs nobody
 * froze), its DAG name and its run id, each only when missing. An inline run's definition is
 * its frozen one, so it gains no copy of it.
 */
export function freezePatch(
  run: DagRunResource,
  dag: DagResource | undefined,
  freezing: Freezing | undefined,
  newId: () => string,
): Record<string, unknown> {
  const spec = run.spec;
  const patch: Record<string, unknown> = {};
  if (freezing !== undefined && spec.frozenDefinition === undefined && spec.snapshot === undefined)
    patch.frozenDefinition = freezing.reference;
  if (spec.dagName === undefined)
    patch.dagName = dagNameOf(run, dag, freezing?.definition ?? spec.snapshot ?? spec.definition ?? {});
  if (spec.dagRunId === undefined) patch.dagRunId = newId();
  return patch;
}

/** The name a run is listed under: the YAML name, else the DAG file name, else the run's. */
function dagNameOf(run: DagRunResource, dag: DagResource | undefined, source: Record<string, unknown>): string {
  if (typeof source.name === 'string' && source.name !== '') return source.name;
  return dag?.metadata?.annotations?.[ANNOTATIONS.fileName] ?? dag?.metadata?.name ?? run.metadata?.name ?? 'dag';
}

/**
 * A run naming a definition segment that is not its own yet: its creator is between its two
 * writes, so it waits; once that cannot be true any more, the creator died and it fails.
 */
export function awaitingDefinition(
  run: DagRunResource,
  now: Date,
): { readonly waitMs: number } | { readonly error: string } {
  const created = new Date(run.metadata?.creationTimestamp ?? 0).getTime();
  const left = created + DEFINITION_GRACE_MS - now.getTime();
  if (left > 0) return { waitMs: Math.min(DEFINITION_POLL_MS, left) };
  return {
    error: `its frozen definition (DAGRunSegment ${run.spec.frozenDefinition?.segment ?? ''}) was never written: whoever created the run stopped before writing it`,
  };
}

/** The status of a run that can never start (no definition to freeze, or none arrived): failed, rejected, saying why. */
export function rejectedStatus(error: string, now: Date): DagRunStatus {
  const at = now.toISOString();
  return {
    status: RunStatus.Failed,
    statusLabel: runStatusLabel(RunStatus.Failed),
    error,
    endReason: 'rejected',
    startedAt: at,
    finishedAt: at,
  };
}

/** What freezing writes: the run's failure, the patch of its spec, or nothing (frozen before). */
export type FreezeWrite =
  | { readonly kind: 'fail'; readonly status: DagRunStatus }
  | { readonly kind: 'patch'; readonly patch: Record<string, unknown> }
  | { readonly kind: 'none' };

/**
 * Freezing's decision, once the definition segment of a dagRef run nobody froze is written
 * (`freezing`), or why it cannot be (a string).
 */
export function freezeWrite(
  run: DagRunResource,
  dag: DagResource | undefined,
  freezing: Freezing | string | undefined,
  now: Date,
  newId: () => string,
): FreezeWrite {
  if (typeof freezing === 'string') return { kind: 'fail', status: rejectedStatus(freezing, now) };
  const patch = freezePatch(run, dag, freezing, newId);
  return Object.keys(patch).length === 0 ? { kind: 'none' } : { kind: 'patch', patch };
}

/**
 * Where a run's step records live (docs/decisions/2026-11-28-scale-design.md). The DAGRun's
 * status holds only what may still change (running and waiting steps) and a short tail of
 * finished ones; when the tail is full it is sealed into an immutable DAGRunSegment and leaves
 * the status. So a status write costs a bounded number of records whatever the run's size, and
 * no object grows with the run.
 *
 * The rule that makes every crash harmless: a record in the status supersedes any sealed one,
 * and a later segment's record supersedes an earlier one's. A step whose sealed record is
 * changed again (a retry, an edit through the API) simply gets a record in the status.
 * Pure functions over plain data; the operator and the API server read and write segments.
 */
import { isDeepStrictEqual } from 'node:util';
import { LABELS } from './constants.ts';
import { runOwnerReference, type SegmentOwner } from './frozen.ts';
import { labelValue, stepSegmentName } from './names.ts';
import type { RunNode } from './schemas.ts';
import type { DagRunResource, DagRunSegmentResource } from './types.ts';
import { StepStatus, stepDone } from './status.ts';

/** Finished records the status holds before they are sealed. */
export const SEAL_RECORDS = 16;
/** Bytes of finished records (as JSON) that seal them sooner: outputs can make records large. */
export const SEAL_BYTES = 64 * 1024;
/** Most bytes of records in one segment: well below etcd's object limit (1.5 MiB). */
export const SEGMENT_BYTES = 512 * 1024;

/** One sealed segment's records, with its place among the run's segments. */
export interface SealedSegment {
  readonly index: number;
  readonly nodes: readonly RunNode[];
}

/** The sealed records of a run, by step name (the latest segment's), and how many segments there are. */
export interface SealedRecords {
  readonly count: number;
  readonly byName: ReadonlyMap<string, RunNode>;
}

export const NOTHING_SEALED: SealedRecords = { count: 0, byName: new Map() };

/** The segment that seals `nodes` as the run's `index`th: garbage collected with the run, found by its label. */
export function stepSegment(owner: SegmentOwner, index: number, nodes: RunNode[]): DagRunSegmentResource {
  return {
    metadata: {
      name: stepSegmentName(owner.name, index),
      namespace: owner.namespace,
      labels: { [LABELS.run]: labelValue(owner.name) },
      ownerReferences: [runOwnerReference(owner)],
    },
    spec: { run: owner.name, index, nodes },
  };
}

export function sealedRecords(segments: readonly SealedSegment[]): SealedRecords {
  const byName = new Map<string, RunNode>();
  const ordered = [...segments].sort((a, b) => a.index - b.index);
  for (const segment of ordered) for (const node of segment.nodes) byName.set(node.name, node);
  const last = ordered.at(-1);
  return { count: last === undefined ? 0 : last.index + 1, byName };
}

/** The records after one more segment, sealed after every one `sealed` holds. */
export function withSegment(sealed: SealedRecords, segment: SealedSegment): SealedRecords {
  const byName = new Map(sealed.byName);
  for (const node of segment.nodes) byName.set(node.name, node);
  return { count: Math.max(sealed.count, segment.index + 1), byName };
}

/**
 * Every recorded step: the status's records, and the sealed ones it does not supersede. In the
 * order of `order` (the definition's step names) when given; records of other names follow.
 */
export function expandNodes(
  stored: readonly RunNode[] | undefined,
  sealed: SealedRecords,
  order?: readonly string[],
): RunNode[] {
  if (sealed.count === 0 && order === undefined) return [...(stored ?? [])];
  const byName = new Map(sealed.byName);
  for (const node of stored ?? []) byName.set(node.name, node);
  if (order === undefined) return [...byName.values()];
  const inOrder = order.flatMap((name) => {
    const node = byName.get(name);
    byName.delete(name);
    return node === undefined ? [] : [node];
  });
  return [...inOrder, ...byName.values()];
}

/** The run with every recorded step in its status: the same object when nothing was sealed. */
export function withSealed(run: DagRunResource, sealed: SealedRecords): DagRunResource {
  if (sealed.count === 0 || run.status === undefined) return run;
  return { ...run, status: { ...run.status, nodes: expandNodes(run.status.nodes, sealed) } };
}

/** A step that has not started and carries nothing: no record is needed for it. */
export function isPristine(node: RunNode): boolean {
  if (
    node.status !== StepStatus.NotStarted ||
    (node.retryCount ?? 0) !== 0 ||
    (node.doneCount ?? 0) !== 0 ||
    (node.attempt ?? 0) !== 0
  )
    return false;
  // Asked of every step of a run at each write: no array of keys.
  for (const key in node) if (!PRISTINE_KEYS.has(key)) return false;
  return true;
}

const PRISTINE_KEYS: ReadonlySet<string> = new Set([
  'name',
  'status',
  'statusLabel',
  'retryCount',
  'doneCount',
  'attempt',
]);

export interface Compacted {
  /** The records the status keeps. */
  readonly nodes: RunNode[];
  /** Batches to seal now, each one segment, oldest first; empty when the tail is not full. */
  readonly seal: RunNode[][];
}

/**
 * What the status keeps of a run's records and what is sealed now. A record equal to its
 * sealed one is dropped (sealed already), as is a pristine step's; the finished rest is the
 * tail, sealed whole once it holds SEAL_RECORDS records or SEAL_BYTES bytes.
 */
export function compactNodes(full: readonly RunNode[], sealed: SealedRecords): Compacted {
  const kept = full.filter((node) => {
    const previous = sealed.byName.get(node.name);
    // The same object is the common case (a decision passes unchanged records on): no need to compare.
    if (previous === node) return false;
    return previous === undefined ? !isPristine(node) : !sameRecord(previous, node);
  });
  const tail = kept.filter((node) => stepDone(node.status));
  const bytes = tail.reduce((sum, node) => sum + recordBytes(node), 0);
  if (tail.length < SEAL_RECORDS && bytes < SEAL_BYTES) return { nodes: kept, seal: [] };
  const sealing = new Set(tail);
  return { nodes: kept.filter((node) => !sealing.has(node)), seal: batches(tail) };
}

function batches(records: readonly RunNode[]): RunNode[][] {
  const out: RunNode[][] = [];
  let current: RunNode[] = [];
  let bytes = 0;
  for (const record of records) {
    const size = recordBytes(record);
    if (current.length > 0 && bytes + size > SEGMENT_BYTES) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(record);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}

export function recordBytes(node: RunNode): number {
  return JSON.stringify(node).length;
}

/** Whether two records say the same; key order does not count (the API server re-encodes objects in its own). */
function sameRecord(a: RunNode, b: RunNode): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)));
}

/** The status fields that hold a handler's record, in the order the run log tells them. */
export const HANDLER_RECORD_KEYS = ['onInit', 'onWait', 'onExit', 'onSuccess', 'onFailure', 'onCancel'] as const;

/** Every step record a run's status holds: the steps', then the handlers'. */
export function statusRecords(status: DagRunResource['status']): RunNode[] {
  const s = status ?? {};
  return [...(s.nodes ?? []), ...HANDLER_RECORD_KEYS.flatMap((k) => s[k] ?? [])];
}

/** Whether any record names a sub run: only then does a run's answer need its sub runs' rows. */
export function namesSubRuns(status: DagRunResource['status']): boolean {
  return statusRecords(status).some((n) => (n.subRuns?.length ?? 0) > 0 || (n.subRunsRepeated?.length ?? 0) > 0);
}

/**
 * When a finished run leaves etcd for the history store (docs/decisions/2026-11-28-archiving.md).
 * A run is archived with its sub runs, as one tree keyed by its root: the root has ended, every
 * sub run has ended, nothing is owed after any of their ends, and the root ended longer ago than
 * the archive window. Pure functions over plain data; archiver.ts gathers and acts.
 *
 * "Owed" is whatever would be cut short by deleting the DAGRun, whose Pods, Secrets and
 * segments go with it: a retry asked for and not yet started, a restart promised by a restart
 * tick, a retry under a new id that has not copied its original's steps yet, step Pods whose
 * logs the log archiver has not stored yet (it deletes each Pod once its log is in the store),
 * and the work the run controller does after an end (core/resources/frozen.ts asksAfterEnd):
 * a trace export, mails, removing the run's container.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { owedMails } from '../notify/mails.ts';
import { recorded } from '../notify/reconciler.ts';
import { removesContainer } from '../run/finished/container-cleanup.ts';
import type { RunDefinition } from '../run/decide/run-definition.ts';
import { isFinished } from '../run/decide/observed.ts';
import { RETRY_ANNOTATION } from '../run/decide/retry-status.ts';
import { telemetrySpec } from '../run/pods/trace-context.ts';
import { telemetryToken } from '../telemetry/pod.ts';

/** At most this long between two looks at a tree that is not archived yet (a lost event, a moved clock). */
export const ARCHIVE_RECHECK_MAX_MS = 3_600_000;
/** How soon a tree that waits for owed work is looked at again if no change of it comes first. */
export const OWED_RECHECK_MS = 60_000;

/** What the cached objects tell of one run of the tree, without reading anything more. */
export interface CachedRunFacts {
  readonly run: DagRunResource;
  /** The run's step Pods (attempts) that are not being deleted, as cached. */
  readonly attemptPods: readonly V1Pod[];
  /** A retry under a new id names this run as its original and has not copied its steps yet. */
  readonly copiedByRetry: boolean;
}

export type ArchiveReadiness =
  /** Not a finished tree: nothing to do until a change of it. */
  | { readonly kind: 'not-finished'; readonly reason: string }
  /** Something is owed, or the window has not passed: look again then. */
  | { readonly kind: 'wait'; readonly reason: string; readonly requeueAfterMs: number }
  /** Ready as far as the cache tells: read every record and the definitions, then decide on what is owed after the end. */
  | { readonly kind: 'due' };

/** What is owed that the cached run shows (no definition needed); empty when nothing. */
export function owedInCache(facts: CachedRunFacts): string[] {
  const { run } = facts;
  const name = run.metadata?.name ?? '';
  const annotations = run.metadata?.annotations ?? {};
  const owed: string[] = [];
  const retry = annotations[RETRY_ANNOTATION];
  if (retry !== undefined && retry !== run.status?.retryToken) owed.push(`${name}: a retry was asked for`);
  if (annotations[ANNOTATIONS.restartRunId] !== undefined)
    owed.push(`${name}: a restart tick's new run is still to come`);
  if (facts.copiedByRetry) owed.push(`${name}: a retry under a new id has yet to copy its steps`);
  if (facts.attemptPods.length > 0)
    owed.push(`${name}: ${String(facts.attemptPods.length)} step Pod(s) whose logs are not archived yet`);
  return owed;
}

/**
 * Whether the tree of a root run may be archived now, as far as the cache tells. `subs` are
 * the runs whose spec.root names the root.
 */
export function archiveReadiness(
  root: CachedRunFacts,
  subs: readonly CachedRunFacts[],
  now: number,
  archiveAfterMs: number,
): ArchiveReadiness {
  if (root.run.spec.parent !== undefined)
    return { kind: 'not-finished', reason: 'a sub run is archived with its root' };
  if (!isFinished(root.run)) return { kind: 'not-finished', reason: 'the run has not finished' };
  const running = subs.filter((s) => !isFinished(s.run));
  if (running.length > 0)
    return { kind: 'not-finished', reason: `sub run ${running[0]?.run.metadata?.name ?? ''} has not finished` };
  const owed = [root, ...subs].flatMap(owedInCache);
  if (owed.length > 0) return { kind: 'wait', reason: owed.join('; '), requeueAfterMs: OWED_RECHECK_MS };
  // From its end, or from when the DAGRun was made if that is later: a run the API server put
  // back from the store (to retry or edit it) ended long ago, and would otherwise go again
  // before the request that put it back could act on it.
  const ended = Date.parse(root.run.status?.finishedAt ?? '');
  const made = Date.parse(String(root.run.metadata?.creationTimestamp ?? ''));
  const due = Math.max(ended, Number.isNaN(made) ? ended : made) + archiveAfterMs;
  if (Number.isNaN(due)) return { kind: 'not-finished', reason: 'the run has no end time' };
  if (due > now)
    return {
      kind: 'wait',
      reason: 'the archive window has not passed',
      requeueAfterMs: Math.min(due - now, ARCHIVE_RECHECK_MAX_MS),
    };
  return { kind: 'due' };
}

/** What one run of the tree looks like once every record and its definition are read. */
export interface FullRunFacts {
  /** The run with every step record in its status, sealed ones included. */
  readonly run: DagRunResource;
  /** Its frozen definition, loaded; undefined when it never had one (it ran nothing: nothing is owed). */
  readonly definition: RunDefinition | undefined;
  /** Its container Pod (DAG-level `container`), as cached. */
  readonly containerPod: V1Pod | undefined;
}

/**
 * What the finished-run controller still owes after this run's end (a superset-free mirror of
 * operator/run/finished/finished-controller.ts): a trace not recorded, a mail not recorded, a
 * container Pod still to remove. Empty when nothing.
 */
export function owedAfterEnd(facts: FullRunFacts): string[] {
  const { run, definition } = facts;
  if (definition === undefined) return [];
  const name = run.metadata?.name ?? '';
  const owed: string[] = [];
  if (telemetrySpec(definition.dag, run) !== undefined && run.status?.telemetry?.token !== telemetryToken(run))
    owed.push(`${name}: its trace is not exported yet`);
  const unsent = owedMails(definition.dag, run).filter((mail) => !recorded(run, mail.key));
  if (unsent.length > 0) owed.push(`${name}: ${String(unsent.length)} mail(s) not sent yet`);
  if (removesContainer(run, definition, facts.containerPod))
    owed.push(`${name}: its container Pod is still to be removed`);
  return owed;
}

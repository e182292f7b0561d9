/**
 * The history archiver, keyed by root run (`namespace/name`), level-triggered: a finished tree
 * (the root and its sub runs) that owes nothing and ended longer ago than the archive window is
 * written to the history store whole, with every step record and each run's frozen definition,
 * and then its DAGRuns are deleted (their segments, Pods and Secrets are owned by them and go
 * with them). decide.ts says when.
 *
 * Crash order: the store first, one transaction for the tree, an upsert by run key; then the
 * DAGRuns' deletions, each guarded by the resourceVersion that was archived, so that a run
 * changed since (a retry asked for, a status written) is not deleted but looked at again, and
 * archived again once it is ready. A crash after the put repeats it: one copy remains.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { HistoryStore, RunToArchive } from '../../core/history/types.ts';
import type { ResourceClient } from '../../core/kube/client.ts';
import { ignoreNotFound, isConflict } from '../../core/kube/errors.ts';
import type { Informer } from '../../core/kube/informer.ts';
import type { WorkResult } from '../../core/kube/queue.ts';
import { readFrozenDefinition } from '../../core/kube/frozen-definitions.ts';
import { readSealed } from '../../core/kube/segments.ts';
import type { Clock } from '../../core/kube/time.ts';
import type { Logger } from '../../core/log.ts';
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import { definitionPlace } from '../../core/resources/frozen.ts';
import { listedDagName } from '../../core/resources/listed.ts';
import { sharedContainerPodName } from '../../core/resources/names.ts';
import { expandNodes } from '../../core/resources/run-records.ts';
import type { DagRunResource, DagRunSegmentResource } from '../../core/resources/types.ts';
import { loadDefinition } from '../run/shared/loaded-definitions.ts';
import { ownedBy, ownerRunName } from '../run/decide/observed.ts';
import { isAttemptPod } from '../run/pods/pod-kinds.ts';
import { runRef } from '../run/ref.ts';
import { copiesOriginal } from '../run/decide/retry-status.ts';
import { archiveReadiness, owedAfterEnd, OWED_RECHECK_MS, type CachedRunFacts, type FullRunFacts } from './decide.ts';

export interface ArchiverDeps {
  readonly store: HistoryStore;
  readonly runs: Informer<DagRunResource>;
  readonly pods: Informer<V1Pod>;
  readonly runClient: ResourceClient<DagRunResource>;
  readonly segmentClient: ResourceClient<DagRunSegmentResource>;
  readonly clock: Clock;
  readonly archiveAfterMs: number;
  readonly log: Logger;
  /** A tree was archived: how many runs it held (the root counts one). */
  readonly onArchived: (runs: number, root: DagRunResource) => void;
  readonly countDelete: () => void;
}

/** The runs whose spec.root names this root run. */
export function subRunsOf(root: DagRunResource, runs: readonly DagRunResource[]): DagRunResource[] {
  const ref = runRef(root);
  return runs.filter((r) => r !== root && r.spec.root?.name === ref.dagName && r.spec.root.dagRunId === ref.dagRunId);
}

/**
 * The root of a run's tree as cached: by its owner chain (a sub run is owned by its parent),
 * else by the root its spec names; the run itself for a root, undefined when neither is cached.
 */
export function rootOf(run: DagRunResource, runs: Informer<DagRunResource>): DagRunResource | undefined {
  let current = run;
  for (let depth = 0; depth < 64 && current.spec.parent !== undefined; depth++) {
    const owner = ownerRunName(current);
    const parent = owner === undefined ? undefined : runs.get(current.metadata?.namespace, owner);
    if (parent === undefined) return namedRoot(current, runs);
    current = parent;
  }
  return current;
}

function namedRoot(run: DagRunResource, runs: Informer<DagRunResource>): DagRunResource | undefined {
  const named = run.spec.root;
  if (named === undefined) return undefined;
  return runs
    .list(run.metadata?.namespace)
    .find(
      (r) => r.spec.parent === undefined && runRef(r).dagName === named.name && runRef(r).dagRunId === named.dagRunId,
    );
}

export class HistoryArchiver {
  private readonly deps: ArchiverDeps;

  constructor(deps: ArchiverDeps) {
    this.deps = deps;
  }

  async reconcile(key: string): Promise<WorkResult | undefined> {
    const { deps } = this;
    const [namespace = '', name = ''] = key.split('/');
    const root = deps.runs.get(namespace, name);
    if (root === undefined) return undefined;
    const all = deps.runs.list(namespace);
    const subs = subRunsOf(root, all);
    const facts = (run: DagRunResource): CachedRunFacts => this.cachedFacts(run, all);
    const ready = archiveReadiness(facts(root), subs.map(facts), deps.clock.now().getTime(), deps.archiveAfterMs);
    if (ready.kind === 'not-finished') return undefined;
    if (ready.kind === 'wait') return { requeueAfterMs: ready.requeueAfterMs };
    const tree = await Promise.all([root, ...subs].map((run) => this.full(run)));
    const owed = tree.flatMap(({ facts: full }) => owedAfterEnd(full));
    if (owed.length > 0) {
      deps.log.debug({ run: key, owed }, 'archiving waits for work owed after the end');
      return { requeueAfterMs: OWED_RECHECK_MS };
    }
    await deps.store.put(tree.map(({ archived }) => archived));
    return this.deleteTree(root, subs, key);
  }

  private cachedFacts(run: DagRunResource, all: readonly DagRunResource[]): CachedRunFacts {
    const name = run.metadata?.name;
    const attemptPods = this.deps.pods
      .list(run.metadata?.namespace)
      .filter(ownedBy(run))
      .filter((pod) => isAttemptPod(pod) && pod.metadata?.deletionTimestamp === undefined);
    const copiedByRetry = all.some(
      (other) => copiesOriginal(other) && other.metadata?.annotations?.[ANNOTATIONS.retryOf] === name,
    );
    return { run, attemptPods, copiedByRetry };
  }

  /** One run with every record (sealed ones read whatever its status says) and its frozen definition. */
  private async full(run: DagRunResource): Promise<{ readonly facts: FullRunFacts; readonly archived: RunToArchive }> {
    const { deps } = this;
    const place = definitionPlace(run);
    // A segment created just before a lost status write is found only by looking: always.
    const [sealed, fromSegment] = await Promise.all([
      readSealed(deps.segmentClient, run, true),
      place.in === 'segment' ? readFrozenDefinition(deps.segmentClient, run) : Promise.resolve(undefined),
    ]);
    const nodes = expandNodes(run.status?.nodes, sealed);
    const expanded: DagRunResource = run.status === undefined ? run : { ...run, status: { ...run.status, nodes } };
    const source = place.in === 'spec' ? place.definition : fromSegment;
    const definition = source === undefined ? undefined : loadDefinition(run, source);
    const containerPod = deps.pods.get(run.metadata?.namespace, sharedContainerPodName(run.metadata?.name ?? ''));
    const archived: RunToArchive = {
      dagName: listedDagName(run),
      run,
      nodes,
      ...(fromSegment === undefined ? {} : { definition: fromSegment }),
    };
    return { facts: { run: expanded, definition, containerPod }, archived };
  }

  /**
   * Each run as archived (its resourceVersion a precondition), sub runs before the runs that
   * own them (newest first: a child is created after its parent) and the root last: a run
   * changed since its put (a retry asked for, a status written) is refused with a conflict and
   * kept, with the root, and the tree is archived again once ready. The garbage collector never
   * takes a run that was not archived as it is, since no owner goes before its sub runs.
   */
  private async deleteTree(
    root: DagRunResource,
    subs: readonly DagRunResource[],
    key: string,
  ): Promise<WorkResult | undefined> {
    const { deps } = this;
    const created = (run: DagRunResource): number => new Date(run.metadata?.creationTimestamp ?? 0).getTime();
    const order = [...[...subs].sort((a, b) => created(b) - created(a)), root];
    for (const run of order) {
      const { namespace, name } = runRef(run);
      try {
        await ignoreNotFound(
          deps.runClient.delete(namespace, name, {
            resourceVersion: run.metadata?.resourceVersion ?? '',
            propagationPolicy: 'Background',
          }),
        );
      } catch (error) {
        if (!isConflict(error)) throw error;
        deps.log.info(
          { run: key, changed: name },
          'a run changed after it was archived: it stays, and its tree is archived again when ready',
        );
        // The cache may merely lag behind the change: a second later it shows it.
        return { requeueAfterMs: 1000 };
      }
      deps.countDelete();
    }
    deps.onArchived(1 + subs.length, root);
    deps.log.info(
      { run: key, dag: listedDagName(root), dagRunId: runRef(root).dagRunId, subRuns: subs.length },
      'archived a finished run to the history store',
    );
    return undefined;
  }
}

/**
 * Freezing: the definition a run runs is frozen before anything starts, with its id and DAG
 * name, so later edits of the DAG never change a running run: freeze-patch.ts decides the
 * patch or the run's failure (pure), this module reads what that needs and writes it. A
 * dagRef run nobody froze gets its DAG's spec written into its definition segment first, then
 * the reference in its spec: killed between the two, the next reconcile finds the segment
 * (AlreadyExists) and takes it as it is, so a run never has two definitions. A DAG missing from
 * the cache is read from the API before the run fails: the DAG watch may lag behind the run's
 * (`kubectl create` of both in one file).
 */
import type { ResourceClient } from '../../../core/kube/client.ts';
import { apiErrorMessage, createFailure, ignoreNotFound, refusalLimit } from '../../../core/kube/errors.ts';
import { findFrozenDefinition, ownerOf, writeFrozenDefinition } from '../../../core/kube/frozen-definitions.ts';
import type { Informer } from '../../../core/kube/informer.ts';
import type { WorkResult } from '../../../core/kube/queue.ts';
import type { Clock } from '../../../core/kube/time.ts';
import { ANNOTATIONS } from '../../../core/resources/constants.ts';
import { loadDagSpec } from '../../../core/resources/dag.ts';
import { definitionPlace, frozenReference } from '../../../core/resources/frozen.ts';
import { uuidv7 } from '../../../core/resources/ids.ts';
import type { DagResource, DagRunResource, DagRunSegmentResource } from '../../../core/resources/types.ts';
import { queuePlace } from '../decide/admission.ts';
import type { DefinitionCache } from '../shared/loaded-definitions.ts';
import { awaitingDefinition, freezeWrite, rejectedStatus, type Freezing } from '../decide/freeze-patch.ts';
import type { CountWrite, RunWriter } from '../shared/status-writer.ts';

export interface FreezeDeps {
  readonly dags: Informer<DagResource>;
  readonly dagClient: ResourceClient<DagResource>;
  readonly segmentClient: ResourceClient<DagRunSegmentResource>;
  readonly definitions: DefinitionCache;
  readonly writer: RunWriter;
  readonly clock: Clock;
  readonly countWrite: CountWrite;
}

/** The frozen run (patched now, or frozen before), or undefined when it cannot run. */
export async function frozen(run: DagRunResource, deps: FreezeDeps): Promise<DagRunResource | undefined> {
  const place = definitionPlace(run);
  const dag = await dagOf(run, place.in === 'nowhere', deps);
  const freezing = place.in === 'nowhere' ? await freeze(run, dag, deps) : undefined;
  const write = freezeWrite(run, dag, freezing, deps.clock.now(), () => uuidv7(deps.clock.now().getTime()));
  switch (write.kind) {
    case 'none':
      return run;
    case 'fail':
      await deps.writer.writeStatus(run, write.status);
      return undefined;
    case 'patch':
      // A run frozen just now goes on with the frozen spec rather than waiting for its watch event.
      return deps.writer.patchSpec(
        run,
        Object.entries(write.patch).map(([k, v]) => ({ op: 'add' as const, path: `/spec/${k}`, value: v })),
      );
  }
}

/**
 * Whether the run's definition can be read now (loaded into the cache): true; while the
 * creator that named its segment may still write it, a time to look again; undefined once the
 * run has failed for want of it. Asked only of runs about to use it: a queued run waits
 * without holding its definition.
 */
export async function definitionArrived(run: DagRunResource, deps: FreezeDeps): Promise<true | WorkResult | undefined> {
  if ((await deps.definitions.load(run)) !== undefined) return true;
  const awaiting = awaitingDefinition(run, deps.clock.now());
  if ('waitMs' in awaiting) return { requeueAfterMs: awaiting.waitMs };
  await deps.writer.writeStatus(run, rejectedStatus(awaiting.error, deps.clock.now()));
  return undefined;
}

/** The run's DAG from the cache; from the API too when it is about to be frozen from it. */
async function dagOf(run: DagRunResource, freezing: boolean, deps: FreezeDeps): Promise<DagResource | undefined> {
  const namespace = run.metadata?.namespace ?? '';
  const name = run.spec.dagRef?.name;
  if (name === undefined) return undefined;
  return (
    deps.dags.get(namespace, name) ?? (freezing ? await ignoreNotFound(deps.dagClient.get(namespace, name)) : undefined)
  );
}

/**
 * Writes the DAG's spec into the run's definition segment, or finds the one written before
 * (then the DAG may even be gone since); else why the run cannot be frozen.
 */
async function freeze(run: DagRunResource, dag: DagResource | undefined, deps: FreezeDeps): Promise<Freezing | string> {
  const written = await segmentOf(run, dag, deps);
  if (typeof written === 'string') return written;
  if (written.created) deps.countWrite('create');
  // About to run: nobody needs to read back what was just written. A queued run holds nothing.
  if (queuePlace(run) === 'proceed') deps.definitions.keep(run, written.definition);
  const fileName = dag?.metadata?.annotations?.[ANNOTATIONS.fileName] ?? run.spec.dagRef?.name ?? '';
  return {
    definition: written.definition,
    reference: frozenReference(run.metadata?.name ?? '', loadDagSpec(written.definition, { fileName }).dag),
  };
}

async function segmentOf(
  run: DagRunResource,
  dag: DagResource | undefined,
  deps: FreezeDeps,
): Promise<{ readonly definition: Record<string, unknown>; readonly created: boolean } | string> {
  try {
    if (dag !== undefined) return await writeFrozenDefinition(deps.segmentClient, ownerOf(run), dag.spec);
    const definition = await findFrozenDefinition(deps.segmentClient, ownerOf(run));
    return definition === undefined ? `DAG "${run.spec.dagRef?.name ?? ''}" not found` : { definition, created: false };
  } catch (error) {
    // A segment the API refuses for good (its size, validation, a policy) would be refused at every retry.
    if (createFailure(error) !== 'refused') throw error;
    return `its definition could not be frozen: the Kubernetes API refused it (${refusalLimit(error)}): ${apiErrorMessage(error).slice(0, 512)}`;
  }
}

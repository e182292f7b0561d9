/**
 * Freezing: the definition a run runs is frozen into the run before anything starts, with its
 * id and DAG name (freeze.ts decides the patch), so later edits of the DAG never change a
 * running run. A DAG missing from the cache is read from the API before the run fails: the
 * DAG watch may lag behind the run's (`kubectl create` of both in one file).
 */
import type { ResourceClient } from '../../core/kube/client.ts';
import { ignoreNotFound } from '../../core/kube/errors.ts';
import type { Informer } from '../../core/kube/informer.ts';
import type { Clock } from '../../core/kube/time.ts';
import { uuidv7 } from '../../core/resources/ids.ts';
import { RunStatus } from '../../core/resources/status.ts';
import type { DagResource, DagRunResource } from '../../core/resources/types.ts';
import { freezePatch } from './freeze.ts';
import type { RunWriter } from './writer.ts';

export interface FreezeDeps {
  readonly dags: Informer<DagResource>;
  readonly dagClient: ResourceClient<DagResource>;
  readonly writer: RunWriter;
  readonly clock: Clock;
}

/** The frozen run (patched now, or already frozen), or undefined when it cannot run. */
export async function frozen(run: DagRunResource, deps: FreezeDeps): Promise<DagRunResource | undefined> {
  const { spec } = run;
  const namespace = run.metadata?.namespace ?? '';
  const cachedDag = spec.dagRef === undefined ? undefined : deps.dags.get(namespace, spec.dagRef.name);
  const dag = cachedDag ?? (spec.dagRef === undefined || spec.snapshot !== undefined ? undefined : await ignoreNotFound(deps.dagClient.get(namespace, spec.dagRef.name)));
  if (spec.dagRef !== undefined && spec.snapshot === undefined && dag === undefined) {
    const now = deps.clock.now().toISOString();
    await deps.writer.writeStatus(run, { status: RunStatus.Failed, statusLabel: 'failed', error: `DAG "${spec.dagRef.name}" not found`, endReason: 'rejected', startedAt: now, finishedAt: now });
    return undefined;
  }
  const patch = freezePatch(run, dag, () => uuidv7(deps.clock.now().getTime()));
  if (Object.keys(patch).length === 0) return run;
  // A run frozen just now goes on with the frozen spec rather than waiting for its watch event.
  return deps.writer.patchSpec(run, Object.entries(patch).map(([k, v]) => ({ op: 'add' as const, path: `/spec/${k}`, value: v })));
}

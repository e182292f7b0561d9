/**
 * Retries of finished runs: in place, asked for with the `kubedag.io/retry` annotation (a new
 * value each time, set by the API server or by hand), and under a new run id (a run created
 * with `kubedag.io/retry-of`), which starts from the original's step states. What a retry
 * redoes is decided in retry-status.ts (pure); this module gathers what that needs and writes it.
 */
import type { Informer } from '../../../core/kube/informer.ts';
import type { Clock } from '../../../core/kube/time.ts';
import { ANNOTATIONS } from '../../../core/resources/constants.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import type { DefinitionCache } from '../shared/loaded-definitions.ts';
import { copiedRetry, copiesOriginal, inPlaceRetry, retryRequest, type RetryWrite } from '../decide/retry-status.ts';
import type { RunSegments } from '../shared/segments.ts';
import type { RunWriter } from '../shared/status-writer.ts';

export interface RetryDeps {
  readonly runs: Informer<DagRunResource>;
  readonly writer: RunWriter;
  readonly clock: Clock;
  readonly segments: RunSegments;
  readonly definitions: DefinitionCache;
}

/**
 * A finished run asked to retry goes back to running with the steps to redo reset. A stop
 * left over from before is lifted first. Returns true when it wrote something.
 */
export async function retryInPlace(run: DagRunResource, deps: RetryDeps): Promise<boolean> {
  const request = retryRequest(run);
  if (request.kind === 'none') return false;
  if (request.kind === 'liftStop') {
    await deps.writer.patchSpec(run, [{ op: 'replace', path: '/spec/stop', value: false }]);
    return true;
  }
  const status = (await deps.segments.expand(run)).status ?? {};
  // The frozen definition, never the DAG as it is now: a retry redoes what the run ran.
  const definition = await deps.definitions.once(run);
  if (definition === undefined)
    throw new Error(`run ${run.metadata?.name ?? ''} cannot be retried: its frozen definition cannot be read`);
  await write(run, inPlaceRetry(definition.dag, status, request, deps.clock.now()), deps);
  return true;
}

/**
 * A retry under a new run id: before its first step, the new run takes the original's step
 * states, then resets what a retry redoes. Succeeded steps keep their status and outputs;
 * their logs stay with the original run. Returns true when it wrote something.
 */
export async function copyFromOriginal(run: DagRunResource, deps: RetryDeps): Promise<boolean> {
  const source = run.metadata?.annotations?.[ANNOTATIONS.retryOf];
  if (source === undefined || !copiesOriginal(run)) return false;
  const original = deps.runs.get(run.metadata?.namespace, source);
  if (original?.status?.finishedAt === undefined) return false;
  const originalStatus = (await deps.segments.expand(original)).status ?? original.status;
  // The new run is frozen already (freezing.ts): its definition is the original's, copied by its creator.
  const definition = await deps.definitions.load(run);
  if (definition === undefined)
    throw new Error(`run ${run.metadata?.name ?? ''}: its frozen definition cannot be read`);
  await write(
    run,
    copiedRetry(definition.dag, originalStatus, original.spec.dagRunId ?? source, deps.clock.now()),
    deps,
  );
  return true;
}

async function write(run: DagRunResource, retry: RetryWrite, deps: RetryDeps): Promise<void> {
  await deps.writer.writeStatus(run, retry.status);
  deps.writer.event(run, 'Retrying', retry.message, false);
}

import { describe, expect, it } from 'vitest';
import type { Informer } from '../../../core/kube/informer.ts';
import { RunStatus } from '../../../core/resources/status.ts';
import type { DagResource, DagRunResource } from '../../../core/resources/types.ts';
import type { RunWriter } from '../shared/status-writer.ts';
import { AutoRetryReconciler } from './auto-retry.ts';
import { dagRun } from '../../../test/builders/dag-run.ts';
import type { NotifyReconciler } from '../../notify/reconciler.ts';
import type { TelemetryReconciler } from '../../telemetry/reconciler.ts';
import type { RunDefinition } from '../decide/run-definition.ts';
import { RETRY_ANNOTATION } from '../decide/retry-status.ts';
import type { DefinitionCache } from '../shared/loaded-definitions.ts';
import type { RunSegments } from '../shared/segments.ts';
import type { ContainerCleanup } from './container-cleanup.ts';
import { FinishedRunController } from './finished-controller.ts';

const finished = dagRun('r1')
  .spec({ dagName: 'd', dagRunId: 'r1', definition: { steps: ['echo'] } })
  .status({ status: RunStatus.Failed, statusLabel: 'failed', finishedAt: '2026-01-01T00:00:00Z' })
  .build();

/** The controller over one cached run, with parts that record their calls and fail as `failing` says. */
function controller(run: DagRunResource | undefined, failing: readonly string[] = [], mailAfterMs?: number) {
  const calls: string[] = [];
  const part =
    <T>(name: string, result?: T) =>
    (): Promise<T | undefined> => {
      calls.push(name);
      return failing.includes(name) ? Promise.reject(new Error(`${name} broke`)) : Promise.resolve(result);
    };
  const finishedRuns = new FinishedRunController({
    runs: { get: () => run } as unknown as Informer<DagRunResource>,
    definitions: { once: () => Promise.resolve({ dag: {} } as RunDefinition) } as unknown as DefinitionCache,
    segments: {
      expand: (r: DagRunResource) => Promise.resolve(r),
      forget: () => calls.push('forget'),
    } as unknown as RunSegments,
    containers: { reconcile: part('container') } as unknown as ContainerCleanup,
    telemetry: { reconcile: part('trace') } as unknown as TelemetryReconciler,
    notify: { reconcile: part('mails', mailAfterMs) } as unknown as NotifyReconciler,
    autoRetry: new AutoRetryReconciler({
      writer: {
        patchSpec: () => Promise.reject(new Error('no retry policy: nothing is written')),
      } as unknown as RunWriter,
      clock: { now: () => new Date('2026-01-01T00:01:00Z') },
    }),
    dags: { get: () => undefined } as unknown as Informer<DagResource>,
  });
  return { calls, finishedRuns };
}

describe('FinishedRunController', () => {
  it('a finished run has its container removed, its trace exported and its mails sent', async () => {
    const { calls, finishedRuns } = controller(finished, [], 5000);
    expect(await finishedRuns.reconcile('default/r1')).toEqual({ requeueAfterMs: 5000 });
    expect(calls).toEqual(['container', 'trace', 'mails', 'forget']);
  });

  it('a failing part skips no other, and the failure is thrown for the queue to retry', async () => {
    const { calls, finishedRuns } = controller(finished, ['container']);
    await expect(finishedRuns.reconcile('default/r1')).rejects.toThrow("the run's container Pod's removal");
    expect(calls).toEqual(['container', 'trace', 'mails', 'forget']);
  });

  it.each([
    ['a run that is gone', undefined],
    ['a running run', dagRun('r1').status({ status: RunStatus.Running }).build()],
    [
      'a finished run about to be retried',
      { ...finished, metadata: { ...finished.metadata, annotations: { [RETRY_ANNOTATION]: 't1' } } },
    ],
  ])('%s is owed nothing yet', async (_name, run) => {
    const { calls, finishedRuns } = controller(run);
    expect(await finishedRuns.reconcile('default/r1')).toBeUndefined();
    expect(calls).toEqual([]);
  });
});

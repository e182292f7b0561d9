/**
 * Which queue a run goes through, and whether it counts against maxActiveRuns: the operator's
 * scheduler and admission and the API's starts and listings must agree.
 */
import { ANNOTATIONS } from './constants.ts';
import { declaredValue } from './frozen.ts';
import { RunStatus } from './status.ts';
import type { DagRunResource } from './types.ts';

/** Its own override, else its DAG's `queue` (from the frozen definition), else the DAG name. */
export function queueName(run: DagRunResource): string {
  const own = run.spec.queue;
  if (own !== undefined && own !== '') return own;
  const declared = declaredValue(run, 'queue');
  if (typeof declared === 'string' && declared !== '') return declared;
  return run.metadata?.annotations?.[ANNOTATIONS.dagName] ?? run.spec.dagName ?? run.metadata?.name ?? '';
}

/** Running, queued, or created and not yet picked up by the operator. */
export function isActiveRun(run: DagRunResource): boolean {
  const status = run.status?.status;
  if (status === RunStatus.Running || status === RunStatus.Waiting || status === RunStatus.Queued) return true;
  return run.status?.finishedAt === undefined && (status === undefined || status === RunStatus.NotStarted);
}

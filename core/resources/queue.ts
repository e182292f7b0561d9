/** Which queue a run goes through; the operator's admission and the API's listing must agree. */
import { ANNOTATIONS } from './constants.ts';
import type { DagRunResource } from './types.ts';

/** Its own override, else its DAG's `queue` (from the frozen definition), else the DAG name. */
export function queueName(run: DagRunResource): string {
  const own = run.spec.queue;
  if (own !== undefined && own !== '') return own;
  const declared = (run.spec.snapshot ?? run.spec.definition ?? {}).queue;
  if (typeof declared === 'string' && declared !== '') return declared;
  return run.metadata?.annotations?.[ANNOTATIONS.dagName] ?? run.spec.dagName ?? run.metadata?.name ?? '';
}

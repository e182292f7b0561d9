/**
 * Removes a finished run's container Pod (DAG-level `container`), unless the DAG keeps it
 * (`keepContainer`): then it stays, running, until the run itself is deleted and takes it
 * along as its owner. Level-triggered from the run and the cached Pod, so an operator that
 * dies between the run's end and the deletion deletes it after its restart.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { sharedContainerPodName } from '../../../core/resources/names.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import type { RunDefinition } from '../decide/run-definition.ts';
import type { PodWriter } from '../shared/pod-writer.ts';

/** Whether the run's container Pod should go now. Pure. */
export function removesContainer(
  run: DagRunResource,
  definition: Pick<RunDefinition, 'container'>,
  pod: V1Pod | undefined,
): boolean {
  if (run.status?.finishedAt === undefined || definition.container === undefined || definition.container.keepContainer)
    return false;
  return pod !== undefined && pod.metadata?.deletionTimestamp === undefined;
}

export class ContainerCleanup {
  private readonly pods: PodWriter;

  constructor(pods: PodWriter) {
    this.pods = pods;
  }

  async reconcile(run: DagRunResource, definition: RunDefinition): Promise<void> {
    const namespace = run.metadata?.namespace ?? '';
    const name = sharedContainerPodName(run.metadata?.name ?? '');
    if (removesContainer(run, definition, this.pods.cached(namespace, name))) await this.pods.delete(namespace, name);
  }
}

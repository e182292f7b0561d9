/**
 * Writes the status of the Pods this agent runs. Like the kubelet's status manager, the agent
 * owns its Pods' status: each write is computed from what it wrote last and sent as one patch,
 * guarded by the Pod's uid, with no read; only when that fails is the Pod read and replaced.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { isConflict, isInvalid, isNotFound } from '../../core/kube/errors.ts';
import type { Clock } from '../../core/kube/time.ts';
import { errorMessage, type Logger } from '../../core/log.ts';
import { initialRecords, recoveredRecord, type PodRun } from './run.ts';
import { podStatus, type ContainerRecord } from './status.ts';

export interface StatusWriterOptions {
  readonly api: CoreV1Api;
  readonly clock: Clock;
  readonly logger: Logger;
}

export class StatusWriter {
  private readonly options: StatusWriterOptions;

  constructor(options: StatusWriterOptions) {
    this.options = options;
  }

  /** Queues a write of the run's status as it is now; resolves when that write is done. */
  write(run: PodRun): Promise<void> {
    // The records are read when the write is queued: each write reports the state it was asked for.
    const records = [...run.records.values()];
    const deadline = run.deadline;
    run.statusAsked += 1;
    const asked = run.statusAsked;
    run.statusWrites = run.statusWrites
      .then(() => (asked === run.statusAsked ? this.send(run, records, deadline) : undefined))
      .catch((error: unknown) => {
        run.log.warn({ error: errorMessage(error) }, 'status write failed');
      });
    return run.statusWrites;
  }

  /** A Pod an earlier agent started: it is failed, never started a second time. */
  async failRecovered(pod: V1Pod): Promise<void> {
    const now = this.options.clock.now();
    const message = 'the node agent restarted while this Pod ran; its processes were stopped';
    const records = [...initialRecords(pod).values()].map((record) => recoveredRecord(pod, record, message, now));
    const status = {
      ...podStatus(pod, records, pod.status?.startTime ?? now, now),
      phase: 'Failed' as const,
      reason: 'NodeAgentRestarted',
      message,
    };
    const log = this.options.logger.child({ pod: `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}` });
    log.warn('an earlier agent started this Pod: failing it instead of starting it again');
    await this.replace(
      log,
      pod.metadata?.namespace ?? '',
      pod.metadata?.name ?? '',
      pod.metadata?.uid ?? '',
      () => status,
    );
  }

  private async send(run: PodRun, records: readonly ContainerRecord[], reason: PodRun['deadline']): Promise<void> {
    const deadline =
      reason === undefined
        ? {}
        : {
            phase: 'Failed' as const,
            reason,
            message: 'Pod was active on the node longer than the specified deadline',
          };
    const status = { ...podStatus(run.pod, records, run.startTime, this.options.clock.now()), ...deadline };
    run.pod = { ...run.pod, status };
    try {
      await this.options.api.patchNamespacedPodStatus({
        name: run.name,
        namespace: run.namespace,
        body: [
          { op: 'test', path: '/metadata/uid', value: run.uid },
          { op: 'replace', path: '/status', value: status },
        ],
      });
    } catch (error) {
      // Gone, or replaced by another Pod of the same name (the uid test fails): nothing to report.
      if (isNotFound(error) || isInvalid(error) || isConflict(error)) return;
      run.log.warn({ error: errorMessage(error) }, 'status patch failed; reading the Pod and replacing its status');
      await this.replace(run.log, run.namespace, run.name, run.uid, (pod) => ({
        ...podStatus(pod, records, run.startTime, this.options.clock.now()),
        ...deadline,
      }));
    }
  }

  /** Read, compute, replace; retried on conflicts. A Pod that is gone needs no status. */
  private async replace(
    log: Logger,
    namespace: string,
    name: string,
    uid: string,
    compute: (pod: V1Pod) => NonNullable<V1Pod['status']>,
  ): Promise<void> {
    for (let attempt = 0; attempt < 10; attempt += 1) {
      try {
        const pod = await this.options.api.readNamespacedPod({ name, namespace });
        if (pod.metadata?.uid !== uid) return;
        await this.options.api.replaceNamespacedPodStatus({ name, namespace, body: { ...pod, status: compute(pod) } });
        return;
      } catch (error) {
        if (isNotFound(error)) return;
        if (!isConflict(error)) log.warn({ error: errorMessage(error) }, 'status replace failed');
        await sleep(100 * (attempt + 1));
      }
    }
  }
}

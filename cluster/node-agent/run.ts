/**
 * What the agent holds for one Pod it runs, and the one way its containers are stopped: the
 * kubelet's SIGTERM, grace period, SIGKILL, used for deletion and activeDeadlineSeconds alike.
 */
import type { V1ContainerStateTerminated, V1Pod } from '@kubernetes/client-node';
import type { Logger } from '../../core/log.ts';
import type { ExecTarget } from './exec.ts';
import type { RunningContainer } from './runtime.ts';
import { terminationReason, type ContainerPhase, type ContainerRecord } from './status.ts';

export interface PodRun {
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
  readonly startTime: Date;
  /** Lines about this Pod carry its `namespace/name`. */
  readonly log: Logger;
  readonly records: Map<string, ContainerRecord>;
  readonly running: Map<string, RunningContainer>;
  /** How to exec in each running container (kept in memory: a restarted agent kills them all). */
  readonly exec: Map<string, ExecTarget>;
  stopping: boolean;
  /** Set when activeDeadlineSeconds ended the Pod. */
  deadline?: 'DeadlineExceeded';
  /** The Pod as this agent last wrote it: the base of the next status, without a read. */
  pod: V1Pod;
  /** Status writes, one after another in the order they were asked for. */
  statusWrites: Promise<void>;
  /** Status writes asked for so far: a queued write that a newer one supersedes is skipped. */
  statusAsked: number;
  done: Promise<void>;
}

export function newRun(pod: V1Pod, startTime: Date, logger: Logger): PodRun {
  const namespace = pod.metadata?.namespace ?? '';
  const name = pod.metadata?.name ?? '';
  return {
    uid: pod.metadata?.uid ?? '',
    namespace,
    name,
    startTime,
    log: logger.child({ pod: `${namespace}/${name}` }),
    records: initialRecords(pod),
    running: new Map(),
    exec: new Map(),
    stopping: false,
    done: Promise.resolve(),
    pod,
    statusWrites: Promise.resolve(),
    statusAsked: 0,
  };
}

export function initialRecords(pod: V1Pod): Map<string, ContainerRecord> {
  const records = new Map<string, ContainerRecord>();
  for (const c of pod.spec?.initContainers ?? [])
    records.set(c.name, {
      name: c.name,
      image: c.image ?? '',
      init: true,
      phase: { kind: 'waiting', reason: 'PodInitializing' },
      restartCount: 0,
    });
  for (const c of pod.spec?.containers ?? [])
    records.set(c.name, {
      name: c.name,
      image: c.image ?? '',
      init: false,
      phase: { kind: 'waiting', reason: 'ContainerCreating' },
      restartCount: 0,
    });
  return records;
}

/** Marks the run stopping (nothing more starts) and kills every process it still has. */
export function killRun(run: PodRun): void {
  run.stopping = true;
  for (const container of run.running.values()) container.signal('SIGKILL');
}

/**
 * Stops a run as the kubelet stops a Pod: SIGTERM to each container's main process, SIGKILL
 * to whatever is left once the grace period is over. Resolves when the run has ended.
 */
export async function stopRun(run: PodRun, graceSeconds: number): Promise<void> {
  run.stopping = true;
  for (const container of run.running.values()) container.signal('SIGTERM');
  const kill = setTimeout(() => {
    killRun(run);
  }, graceSeconds * 1000);
  try {
    await run.done;
  } finally {
    clearTimeout(kill);
  }
}

/**
 * Milliseconds until `activeDeadlineSeconds` ends a run started at `startTime` (0 once it has
 * passed), or undefined for a Pod without a deadline.
 */
export function deadlineIn(pod: V1Pod, startTime: Date, now: Date): number | undefined {
  const seconds = pod.spec?.activeDeadlineSeconds;
  if (seconds === undefined) return undefined;
  return Math.max(0, startTime.getTime() + seconds * 1000 - now.getTime());
}

/** What a container of a recovered Pod reports: its earlier end if it had one, else killed. */
export function recoveredRecord(pod: V1Pod, record: ContainerRecord, message: string, now: Date): ContainerRecord {
  const before = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])].find(
    (s) => s.name === record.name,
  );
  const ended = before?.state?.terminated;
  const killed: ContainerPhase = {
    kind: 'terminated',
    exitCode: 137,
    reason: 'NodeAgentRestarted',
    message,
    startedAt: before?.state?.running?.startedAt ?? now,
    finishedAt: now,
  };
  return {
    ...record,
    phase: ended === undefined ? killed : endedPhase(ended, now),
    restartCount: before?.restartCount ?? 0,
  };
}

function endedPhase(ended: V1ContainerStateTerminated, now: Date): ContainerPhase {
  return {
    kind: 'terminated',
    exitCode: ended.exitCode,
    reason: ended.reason ?? terminationReason(ended.exitCode),
    startedAt: ended.startedAt ?? now,
    finishedAt: ended.finishedAt ?? now,
  };
}

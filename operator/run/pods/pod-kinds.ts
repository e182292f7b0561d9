/**
 * Which of a run's Pods are attempts of its steps. The others are the run's helpers: its
 * container (DAG-level `container`), its trace export and its mails; they have no step, no
 * attempt log to archive and no place in the run's decisions.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { GROUP } from '../../../core/resources/constants.ts';
import { isContainerPod } from './shared-container.ts';

// The helpers' labels live here rather than beside their Pods (operator/notify, operator/telemetry),
// which build on run/: the step machinery tells Pods apart without importing what builds them.

/** Marks mail Pods, which are no step's attempt: the step machinery passes them by. */
export const NOTIFY_LABEL = `${GROUP}/notify`;

/** Marks telemetry Pods, which are no step's attempt: the step machinery passes them by. */
export const TELEMETRY_LABEL = `${GROUP}/telemetry`;

export function isNotifyPod(pod: V1Pod): boolean {
  return pod.metadata?.labels?.[NOTIFY_LABEL] !== undefined;
}

export function isTelemetryPod(pod: V1Pod): boolean {
  return pod.metadata?.labels?.[TELEMETRY_LABEL] !== undefined;
}

export function isAttemptPod(pod: V1Pod): boolean {
  return !isTelemetryPod(pod) && !isNotifyPod(pod) && !isContainerPod(pod);
}

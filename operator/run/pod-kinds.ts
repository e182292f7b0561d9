/**
 * Which of a run's Pods are attempts of its steps. The others are the run's helpers: its
 * container (DAG-level `container`), its trace export and its mails; they have no step, no
 * attempt log to archive and no place in the run's decisions.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { isNotifyPod } from '../notify/pod.ts';
import { isTelemetryPod } from '../telemetry/pod.ts';
import { isContainerPod } from './shared-container.ts';

export function isAttemptPod(pod: V1Pod): boolean {
  return !isTelemetryPod(pod) && !isNotifyPod(pod) && !isContainerPod(pod);
}

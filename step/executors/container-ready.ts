/**
 * Waits for the run's container (DAG-level `container`) to be ready before a step execs into
 * it: running, Ready too for `waitFor: healthy`, and a log line matching `logPattern`, within
 * `timeoutSeconds` of the container's start (Dagu's 120 s). Before it starts the container Pod
 * waits for a node and its image as any Pod does; a start that cannot succeed (an image that
 * cannot be pulled, a container that cannot be created or keeps crashing) fails at once.
 *
 * gather (the Pod, its log) -> decide (`readiness`, pure) -> act (wait a second, or go on).
 */
import type { CoreV1Api, V1ContainerState, V1ContainerStateTerminated, V1Pod } from '@kubernetes/client-node';
import type { ContainerReadiness } from '../../core/runner/spec.ts';
import { ContainerExecError } from '../container-exec.ts';

export type Readiness =
  { readonly kind: 'ready' } | { readonly kind: 'wait' } | { readonly kind: 'failed'; readonly reason: string };

/** Waiting reasons after which the container will not start by itself. */
const HOPELESS = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'ErrImageNeverPull',
  'CreateContainerConfigError',
  'CreateContainerError',
  'CrashLoopBackOff',
]);

const POLL_MS = 1000;

function matchesLine(log: string, pattern: string): boolean {
  const re = new RegExp(pattern);
  return log.split('\n').some((line) => re.test(line));
}

function endedText(terminated: V1ContainerStateTerminated | undefined): string {
  if (terminated === undefined) return '';
  return ` (exit code ${String(terminated.exitCode)}${terminated.reason === undefined ? '' : `, ${terminated.reason}`})`;
}

/** Why the container will not be ready however long one waits, or undefined. */
function hopeless(pod: V1Pod, state: V1ContainerState | undefined, name: string): string | undefined {
  if (pod.metadata?.deletionTimestamp !== undefined) return `the run's container ${name} is being removed`;
  if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed')
    return `the run's container ${name} has ended${endedText(state?.terminated)}`;
  const waiting = state?.waiting;
  if (waiting?.reason === undefined || !HOPELESS.has(waiting.reason)) return undefined;
  return `the run's container ${name} cannot start: ${waiting.reason}${waiting.message === undefined ? '' : `: ${waiting.message}`}`;
}

const stateOf = (pod: V1Pod, container: string): V1ContainerState | undefined =>
  pod.status?.containerStatuses?.find((s) => s.name === container)?.state;
const isReady = (pod: V1Pod): boolean =>
  pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

/** Where the container stands. `logMatched`: a line of its log matched (undefined: not read). Pure. */
export function readiness(
  pod: V1Pod,
  container: string,
  ready: ContainerReadiness,
  nowMs: number,
  logMatched: boolean | undefined,
): Readiness {
  const name = `${pod.metadata?.name ?? ''}/${container}`;
  const state = stateOf(pod, container);
  const reason = hopeless(pod, state, name);
  if (reason !== undefined) return { kind: 'failed', reason };
  const started = state?.running?.startedAt;
  if (started === undefined) return { kind: 'wait' };
  const podReady = !ready.healthy || isReady(pod);
  if (podReady && (ready.logPattern === undefined || logMatched === true)) return { kind: 'ready' };
  if (nowMs - new Date(started).getTime() < ready.timeoutSeconds * 1000) return { kind: 'wait' };
  const missing = podReady
    ? `no line of its log matched logPattern ${JSON.stringify(ready.logPattern)}`
    : 'its Pod was not Ready';
  return {
    kind: 'failed',
    reason: `the run's container ${name} was not ready within ${String(ready.timeoutSeconds)} s of its start: ${missing}`,
  };
}

export interface ReadyTarget {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
}

async function readPod(api: CoreV1Api, target: ReadyTarget): Promise<V1Pod> {
  return api.readNamespacedPod({ namespace: target.namespace, name: target.pod }).catch((error: unknown) => {
    const code = (error as { code?: number }).code;
    throw new ContainerExecError(
      code === 404
        ? `the run's container Pod ${target.pod} is gone`
        : `reading Pod ${target.namespace}/${target.pod}: ${(error as Error).message}`,
    );
  });
}

const pause = async (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });

/** Resolves with the Pod once ready; throws ContainerExecError when it cannot become so. */
export async function awaitReady(
  api: CoreV1Api,
  target: ReadyTarget,
  ready: ContainerReadiness,
  signal: AbortSignal,
  now: () => number = Date.now,
): Promise<V1Pod> {
  let matched = false;
  for (;;) {
    signal.throwIfAborted();
    const pod = await readPod(api, target);
    const running = stateOf(pod, target.container)?.running !== undefined;
    // Once a line matched, the container is ready for the rest of this wait.
    if (ready.logPattern !== undefined && running && !matched)
      matched = matchesLine(
        await api.readNamespacedPodLog({ namespace: target.namespace, name: target.pod, container: target.container }),
        ready.logPattern,
      );
    const state = readiness(pod, target.container, ready, now(), ready.logPattern === undefined ? undefined : matched);
    if (state.kind === 'ready') return pod;
    if (state.kind === 'failed') throw new ContainerExecError(state.reason);
    await pause(POLL_MS, signal);
  }
}

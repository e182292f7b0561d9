/**
 * Which signals stop `kubedag-step executor`, and the exit status it then reports. Pure.
 *
 * SIGTERM is the runner's own stop: the step Pod's shell runner sends it SIGTERM whatever the
 * step's `signalOnStop` (operator/run/pods/step-pod.ts), because Node.js acts on some signals before the
 * runner can listen (SIGUSR1 starts the inspector). SIGINT is a stop at a terminal. The step's
 * `signalOnStop` stops it too, so that a runner that gets the step's signal from elsewhere
 * (an older shell runner forwarded it, or someone sends it by hand) stops as Dagu's executors
 * do on any stop signal, rather than dying with no clean end of the remote or exec'd command.
 * docs/decisions/2026-11-28-ssh-stop.md, section "signalOnStop in the runner and container exec".
 */
import { constants } from 'node:os';
import type { ExecutorSpec } from '../core/runner/spec.ts';

/**
 * Never listened to: SIGKILL and SIGSTOP cannot be caught; after a real fault (SIGSEGV, SIGBUS,
 * SIGFPE, SIGILL) Node.js cannot safely run a listener, and the runner must crash, not hang.
 */
const NOT_STOPS = new Set(['SIGKILL', 'SIGSTOP', 'SIGSEGV', 'SIGBUS', 'SIGFPE', 'SIGILL']);

const ALWAYS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

/** `TERM`, `sigterm` or `SIGTERM` as `SIGTERM`; undefined for a name this system lacks. */
export function signalName(text: string): NodeJS.Signals | undefined {
  const name = `SIG${text.trim().toUpperCase().replace(/^SIG/, '')}`;
  return Object.hasOwn(constants.signals, name) ? (name as NodeJS.Signals) : undefined;
}

/** The step's signalOnStop as the operator put it in the spec: `stop` (every executor), or the exec target's. */
export function specStopSignal(spec: ExecutorSpec): NodeJS.Signals {
  return signalName(spec.stop?.signal ?? spec.exec?.stopSignal ?? 'SIGTERM') ?? 'SIGTERM';
}

/** The signals the runner treats as a stop; without a spec (it could not be read), the usual two. */
export function stopSignals(spec?: ExecutorSpec): NodeJS.Signals[] {
  const own = spec === undefined ? [] : [specStopSignal(spec)];
  return [...new Set([...ALWAYS, ...own])].filter((signal) => !NOT_STOPS.has(signal));
}

/** As a shell reports a process ended by the signal: 128 + its number (143 for SIGTERM). */
export function stopExitCode(signal: NodeJS.Signals): number {
  return 128 + constants.signals[signal];
}

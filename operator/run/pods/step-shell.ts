/**
 * The shell a step's commands run in. Its own module because the step Pod (step-pod.ts) and the
 * shared container's exec (shared-container-exec.ts) both need it, and the second is reached
 * from the first through the executor's settings.
 */
import type { Dag, Step } from '../../../core/dag/index.ts';

/** The shell that runs commands: step, then DAG; an sh-like default gets errexit. */
export function stepShell(dag: Dag, step: Step): string[] {
  return [...(step.shell ?? dag.shell ?? ['/bin/sh', '-e'])];
}

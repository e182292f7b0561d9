/**
 * The ExecutorSpec of a step that runs in the run's container (DAG-level `container`): a
 * `container-exec` into `<run>-container`, as Dagu execs `[command, ...args]` into its one
 * container, no shell between. Pure.
 *
 * Beyond Dagu, which execs with the container's environment only and has no way to run a
 * `script` there: the step's environment (DAG env, params, outputs, its own env, the DAG_*
 * built-ins; never secrets, which would travel in the exec request) reaches the command, its
 * `dir` is where it runs, and a script runs from a temporary file in the container with the
 * step's command as interpreter, else a shebang, else the shell, as a shell step's script does.
 */
import type { Dag, Step } from '../../../core/dag/index.ts';
import type { ExecutorSpec } from '../../../core/runner/spec.ts';
import { sharedContainerPodName } from '../../../core/resources/names.ts';
import { stepShell } from './step-shell.ts';
import { READY_TIMEOUT_SECONDS, SHARED_CONTAINER_NAME, type SharedContainer } from './shared-container.ts';

/**
 * Writes the script ($1) to a file of its own and runs it with the interpreter words after it,
 * or, with none, as an executable (its shebang); the file goes afterwards.
 */
const SCRIPT_WRAPPER =
  'f=$(mktemp) || exit 1; printf "%s" "$1" > "$f"; shift; if [ $# -eq 0 ]; then chmod +x "$f"; "$f"; else "$@" "$f"; fi; code=$?; rm -f "$f"; exit "$code"';

/**
 * How long an exec'd command has between its stop signal and SIGKILL: the step Pod's grace
 * period is maxCleanUpTimeSec, and the remote command must end within it.
 */
export function execGraceMs(dag: Dag): number {
  return Math.max(1, dag.maxCleanUpTimeSec - 1) * 1000;
}

export interface SharedExecContext {
  readonly namespace: string;
  readonly runName: string;
  /** Expands one command word as the operator expands commands. */
  readonly expandWord: (word: string) => string;
  /** The variables of the step's Pod that the command sees too. */
  readonly envNames: readonly string[];
}

/** The command as exec'd: the words, or the script with its interpreter. */
export function sharedArgv(dag: Dag, step: Step, expandWord: (word: string) => string): string[] {
  const words = step.command === undefined ? [] : [step.command, ...step.args].map(expandWord);
  if (step.script === undefined) return words;
  const direct = step.shell === undefined && step.script.startsWith('#!');
  const interpreter = words.length > 0 ? words : direct ? [] : stepShell(dag, step);
  return ['sh', '-c', SCRIPT_WRAPPER, 'kubedag-script', step.script, ...interpreter];
}

export function sharedContainerSpec(
  dag: Dag,
  step: Step,
  container: SharedContainer,
  context: SharedExecContext,
): ExecutorSpec {
  const env = [...new Set(context.envNames)].map((name) => `${name}=\${${name}}`);
  return {
    type: 'container-exec',
    argv: sharedArgv(dag, step, context.expandWord),
    config: {},
    exec: {
      namespace: context.namespace,
      pod: sharedContainerPodName(context.runName),
      container: SHARED_CONTAINER_NAME,
      ...(step.dir === undefined ? {} : { workingDir: step.dir }),
      ...(env.length === 0 ? {} : { env }),
      stopSignal: step.signalOnStop,
      graceMs: execGraceMs(dag),
      ready: {
        healthy: container.waitFor === 'healthy',
        ...(container.logPattern === undefined ? {} : { logPattern: container.logPattern }),
        timeoutSeconds: READY_TIMEOUT_SECONDS,
      },
    },
  };
}

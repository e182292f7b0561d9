/**
 * The ExecutorSpec (core/runner/spec.ts) of a step that Kubedag's step runner carries out in
 * its Pod: http, jq, mail and ssh. Pure. Settings keep their `${VAR}` references: the runner
 * expands them from the Pod's environment, where secrets arrive by Secret reference only.
 *
 * DAG-level `ssh`, as in Dagu v1.24.11: a step that names no executor becomes an ssh step
 * (core/dag does that); an ssh step whose own settings are empty uses the DAG's block, with
 * Dagu's defaults (port 22, strictHostKey true); a step with settings of its own uses those
 * alone, not merged with the DAG's. The DAG's `smtp` goes to mail steps.
 *
 * A docker step with `containerName` and no `image` runs in that running container: a
 * `container-exec` spec, whose command words the operator expands one by one (Dagu execs
 * `[command, ...args]`, no shell).
 */
import { SHARED_CONTAINER, type Dag, type Step } from '../../../core/dag/index.ts';
import type { V1EnvVar } from '@kubernetes/client-node';
import {
  RUNNER_EXECUTORS,
  SSH_KEY_ENV,
  type ContainerExecTarget,
  type ExecutorSpec,
  type RunnerExecutor,
} from '../../../core/runner/spec.ts';
import type { SharedContainer } from './shared-container.ts';
import { execGraceMs, sharedArgv, sharedContainerSpec } from './shared-container-exec.ts';

export function isRunnerExecutor(type: string): type is RunnerExecutor {
  return (RUNNER_EXECUTORS as readonly string[]).includes(type);
}

/** The DAG's `ssh` block as Dagu completes it. */
function dagSsh(ssh: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const port =
    typeof ssh.port === 'number' || (typeof ssh.port === 'string' && ssh.port !== '') ? String(ssh.port) : '22';
  return { ...ssh, port, strictHostKey: ssh.strictHostKey ?? true };
}

/** A key of a Dagu settings map, read as mapstructure does: any letter case. */
function setting(map: Readonly<Record<string, unknown>>, name: string): unknown {
  const key = Object.keys(map).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : map[key];
}

/** A step of a DAG with a `container` block that names no executor, or docker: it runs in the run's container. */
export function runsInSharedContainer(step: Step): boolean {
  return step.executor.type === SHARED_CONTAINER && step.call === undefined;
}

/** A step that execs, or may exec, into a container: the run's own, or a named Pod's. */
export function execsIntoContainer(step: Step): boolean {
  return runsInSharedContainer(step) || namesContainer(step);
}

const hasText = (value: unknown): boolean => typeof value === 'string' && value !== '';

/** A docker step with `containerName`, with or without `image`. */
function namesContainer(step: Step): boolean {
  return step.executor.type === 'docker' && step.call === undefined && hasText(step.executor.config.containerName);
}

/** A docker step that runs in an existing container: `containerName` without `image`. */
export function runsInContainer(step: Step): boolean {
  return namesContainer(step) && !hasText(step.executor.config.image);
}

/**
 * A docker step with both `containerName` and `image` and a command or script: as in Dagu, it
 * execs into that container when it runs (the operator looks when it launches the attempt),
 * else it runs from the image, here in a step Pod of its own.
 */
export function mayRunInContainer(step: Step): boolean {
  return (
    namesContainer(step) &&
    hasText(step.executor.config.image) &&
    (step.command !== undefined || step.script !== undefined)
  );
}

/** The Pod and container a containerName step names. */
export function namedContainer(step: Step): { pod: string; container?: string } {
  const [pod = '', container] = String(step.executor.config.containerName).split('/');
  return { pod, ...(container === undefined ? {} : { container }) };
}

/** The `exec` settings this version reads; the others (user, tty, privileged, ...) are refused by name. */
export const EXEC_SETTINGS = ['workingDir', 'env'] as const;

/** Problems of a containerName step's settings, for the run's rejection; empty when it can run. */
export function containerExecProblems(step: Step): string[] {
  if (!namesContainer(step)) return [];
  const at = `step ${step.name}`;
  const name = String(step.executor.config.containerName);
  const parts = name.split('/');
  return [
    ...(parts.length > 2 || parts.includes('')
      ? [
          `${at}: executor.config.containerName "${name}" must be <pod> or <pod>/<container>, a Pod in the run's namespace`,
        ]
      : []),
    ...(runsInContainer(step) && step.command === undefined && step.script === undefined
      ? [`${at}: a step that runs in an existing container (containerName) needs a command or a script`]
      : []),
    ...execSettingProblems(step.executor.config.exec ?? {}).map((problem) => `${at}: executor.config.exec${problem}`),
  ];
}

/** Problems of the docker executor's `exec` map, each after the path it starts with. */
function execSettingProblems(exec: unknown): string[] {
  if (typeof exec !== 'object' || exec === null || Array.isArray(exec)) return [' must be a map (workingDir, env)'];
  const settings = exec as Record<string, unknown>;
  const problems = Object.keys(settings).flatMap((key) => {
    if (key.toLowerCase() === 'user')
      return [
        ".user is not supported on Kubernetes: the exec API has no user, the command runs as the container's user",
      ];
    return EXEC_SETTINGS.some((known) => known.toLowerCase() === key.toLowerCase())
      ? []
      : [`.${key} is not supported on Kubernetes (supported: ${EXEC_SETTINGS.join(', ')})`];
  });
  const workingDir = setting(settings, 'workingDir');
  if (workingDir !== undefined && typeof workingDir !== 'string') problems.push('.workingDir must be text');
  const env = setting(settings, 'env');
  if (env !== undefined && (!Array.isArray(env) || env.some((e) => typeof e !== 'string' || !/^[^=]+=/.test(e))))
    problems.push('.env must be a list of NAME=value entries');
  return problems;
}

/** Where a containerName step runs, with its exec settings; the problems above are checked first. */
export function containerExecTarget(dag: Dag, step: Step, namespace: string): ContainerExecTarget {
  const { pod, container } = namedContainer(step);
  const exec = (step.executor.config.exec ?? {}) as Record<string, unknown>;
  const workingDir = setting(exec, 'workingDir') as string | undefined;
  const env = setting(exec, 'env') as string[] | undefined;
  return {
    namespace,
    pod,
    ...(container === undefined ? {} : { container }),
    ...(workingDir === undefined || workingDir === '' ? {} : { workingDir }),
    ...(env === undefined || env.length === 0 ? {} : { env }),
    stopSignal: step.signalOnStop,
    graceMs: execGraceMs(dag),
  };
}

/**
 * `command`: the step's command after the operator's expansion (step references, JSON paths),
 * except for jq, whose filter Dagu passes as written: `$name` there is jq's own variable.
 */
export interface ExecContext {
  /** The run's namespace, where containerName's Pod is. */
  readonly namespace: string;
  readonly runName: string;
  /** Expands one word of a container-exec command as the operator expands commands. */
  readonly expandWord: (word: string) => string;
  /** The run's container (DAG-level `container`), read by run-definition.ts. */
  readonly container?: SharedContainer;
  /** The variables of the step Pod that a command in the run's container sees too. */
  readonly envNames: readonly string[];
  /** For a step with containerName and image: its container was running at launch. */
  readonly containerRunning?: boolean;
}

/** A containerName step: its words expanded one by one (or its script), for the Pod it names. */
function containerNameSpec(dag: Dag, step: Step, exec: ExecContext): ExecutorSpec {
  return {
    type: 'container-exec',
    argv: sharedArgv(dag, step, exec.expandWord),
    config: step.executor.config,
    exec: containerExecTarget(dag, step, exec.namespace),
  };
}

export function executorSpec(
  dag: Dag,
  step: Step,
  expandedCommand: string | undefined,
  exec?: ExecContext,
): ExecutorSpec | undefined {
  if (runsInSharedContainer(step) && exec?.container !== undefined)
    return sharedContainerSpec(dag, step, exec.container, exec);
  if (exec !== undefined && (runsInContainer(step) || (mayRunInContainer(step) && exec.containerRunning === true)))
    return containerNameSpec(dag, step, exec);
  const type = step.executor.type;
  if (step.call !== undefined || !isRunnerExecutor(type)) return undefined;
  return runnerSpec(dag, step, type, type === 'jq' ? step.cmdWithArgs : expandedCommand);
}

/** An http, jq, mail or ssh step's work. */
function runnerSpec(dag: Dag, step: Step, type: RunnerExecutor, command: string | undefined): ExecutorSpec {
  const own = step.executor.config;
  return {
    type,
    ...(command === undefined ? {} : { command }),
    ...(step.script === undefined ? {} : { script: step.script }),
    config: type === 'ssh' ? sshConfig(dag, step) : own,
    ...(type === 'mail' && dag.smtp !== undefined ? { smtp: dag.smtp } : {}),
    ...(type === 's3' && dag.s3 !== undefined ? { s3: dag.s3 } : {}),
    // Every executor stops on signalOnStop (step/stop.ts); ssh also sends it to the remote
    // command, which must end within the step Pod's grace period, as an exec'd one must.
    stop: { signal: step.signalOnStop, graceMs: execGraceMs(dag) },
  };
}

/**
 * An ssh step's settings: its own, else the DAG's block. The step's own `shell` is the remote
 * shell when they name none, as Dagu 2.x resolves it (a DAG-level shell is for local steps and
 * is not used), rather than a key the step accepts and ssh ignores.
 */
function sshConfig(dag: Dag, step: Step): Readonly<Record<string, unknown>> {
  const own = step.executor.config;
  const config = Object.keys(own).length === 0 && dag.ssh !== undefined ? dagSsh(dag.ssh) : own;
  const named = typeof config.shell === 'string' && config.shell.trim() !== '';
  if (step.shell === undefined || step.shell.length === 0 || named) return config;
  const [shell, ...args] = step.shell;
  return { ...config, shell, ...(args.length === 0 ? {} : { shellArgs: args }) };
}

/**
 * An ssh `key: {secretKeyRef: {name, key}}` reaches the runner as KUBEDAG_SSH_KEY, by reference
 * to the Secret: the key itself is never in the Pod spec or the run's status.
 */
export function executorEnv(spec: ExecutorSpec | undefined): V1EnvVar[] {
  const key = spec?.type === 'ssh' ? spec.config.key : undefined;
  if (key === null || typeof key !== 'object') return [];
  const ref = (key as { secretKeyRef?: { name?: unknown; key?: unknown } }).secretKeyRef;
  if (typeof ref?.name !== 'string' || typeof ref.key !== 'string') return [];
  return [{ name: SSH_KEY_ENV, valueFrom: { secretKeyRef: { name: ref.name, key: ref.key } } }];
}

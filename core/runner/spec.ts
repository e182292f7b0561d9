/**
 * What the operator hands Kubedag's step runner (`kubedag-step`, folder step/) in a step Pod:
 * the work of an executor that is not a shell command (http, jq, mail, ssh), and the
 * notifications after a run. Plain JSON in one environment variable, so that the Pod spec shows
 * what the step does; values keep their `${VAR}` references, which the runner expands from its
 * own environment (DAG env, params, outputs and secrets, the latter by Secret reference), so
 * secret values never appear in a Pod spec or a run's status.
 */

/** The environment variable that carries an ExecutorSpec as JSON. */
export const EXECUTOR_ENV = 'KUBEDAG_EXECUTOR';

/**
 * An ssh step (or DAG-level `ssh` block) may take its private key from a Kubernetes Secret:
 * `key: {secretKeyRef: {name: <Secret>, key: <key in it>}}`, written like a container's
 * `env[].valueFrom.secretKeyRef`. The operator gives the step container this variable with
 * that `valueFrom`, so the key reaches the runner without appearing in the Pod spec, the run's
 * status or a file; `config.key` stays the reference as written. A `key` that is text is a
 * path in the step's container, as in Dagu.
 */
export const SSH_KEY_ENV = 'KUBEDAG_SSH_KEY';

/**
 * Executors the step runner carries out. `container-exec` is no Dagu executor type: it is how a
 * docker step with `containerName` (and, later, each step of a DAG-level `container`) runs,
 * through the exec API into a container of a running Pod. `wait`, `file`, `s3` and `archive`
 * are Dagu 2.x's built-in executors (its `wait.*`, `file.*`, `s3.*` and `archive.*` actions),
 * and so is `artifact` (`artifact.*`, over the run's artifacts directory);
 * their command is the operation. `template` is its `template.render`: the script is the
 * template, rendered unexpanded (`$x` there is a template variable).
 */
export const RUNNER_EXECUTORS = [
  'http',
  'jq',
  'mail',
  'ssh',
  'container-exec',
  'wait',
  'file',
  's3',
  'archive',
  'template',
  'artifact',
] as const;
export type RunnerExecutor = (typeof RUNNER_EXECUTORS)[number];

export interface SmtpSettings {
  readonly host?: string;
  readonly port?: string;
  readonly username?: string;
  readonly password?: string;
}

/** Where and how a `container-exec` step runs its command, decided by the operator. */
export interface ContainerExecTarget {
  /** The run's namespace, and a Pod in it. */
  readonly namespace: string;
  readonly pod: string;
  /** One of its containers; absent: the Pod's default container, as kubectl chooses it. */
  readonly container?: string;
  /** From the docker executor's `exec.workingDir`; absent: the container's own. */
  readonly workingDir?: string;
  /** `NAME=value` entries from `exec.env`, over the container's environment; `${VAR}` expanded by the runner. */
  readonly env?: readonly string[];
  /** What a stop sends the remote command, and how long before SIGKILL. */
  readonly stopSignal: string;
  readonly graceMs: number;
  /** The run's own container (DAG-level `container`): what must hold before the exec. */
  readonly ready?: ContainerReadiness;
}

/**
 * Readiness of the run's container, as Dagu waits for it once before the first step: here each
 * step checks it before its exec, so a run that lost its container says so in every step.
 */
export interface ContainerReadiness {
  /** `waitFor: healthy`: the Pod's Ready condition; otherwise a running container is enough. */
  readonly healthy: boolean;
  /** A regular expression that a line of the container's log must match (`logPattern`). */
  readonly logPattern?: string;
  /** How long after the container started its readiness may take. */
  readonly timeoutSeconds: number;
}

export interface ExecutorSpec {
  readonly type: RunnerExecutor;
  /** The step's command as written (`GET https://...`, a jq filter, a remote command). */
  readonly command?: string;
  /** The step's script: jq's JSON input, or the remote script of an ssh step. */
  readonly script?: string;
  /**
   * The executor's settings as the DAG wrote them (executor.config, with, config); for ssh,
   * the step's own settings when it has any, else the DAG-level `ssh` block (a step-level
   * block replaces the DAG's entirely, as in Dagu; nothing is merged).
   */
  readonly config: Readonly<Record<string, unknown>>;
  /** container-exec: the command's words, each already expanded (not run through a shell, as Dagu's docker exec). */
  readonly argv?: readonly string[];
  /** container-exec: the container and the exec's settings. */
  readonly exec?: ContainerExecTarget;
  /** The DAG's `smtp` block, for mail steps. */
  readonly smtp?: SmtpSettings;
  /**
   * The DAG's `s3` block, for s3 steps: connection defaults that the step's own settings
   * override key by key (Dagu's ApplyDefaults then decode). `${VAR}` kept, as in `config`.
   */
  readonly s3?: Readonly<Record<string, unknown>>;
  /**
   * The step's signalOnStop, which stops the runner too (step/stop.ts), and for ssh what a stop
   * sends the remote command and how long before SIGKILL; absent: SIGTERM, 5 s. container-exec
   * specs carry theirs in `exec`.
   */
  readonly stop?: { readonly signal: string; readonly graceMs: number };
}

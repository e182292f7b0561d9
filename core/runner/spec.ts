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

/** Executors the step runner carries out. */
export const RUNNER_EXECUTORS = ['http', 'jq', 'mail', 'ssh'] as const;
export type RunnerExecutor = (typeof RUNNER_EXECUTORS)[number];

export interface SmtpSettings {
  readonly host?: string;
  readonly port?: string;
  readonly username?: string;
  readonly password?: string;
}

export interface ExecutorSpec {
  readonly type: RunnerExecutor;
  /** The step's command as written (`GET https://...`, a jq filter, a remote command). */
  readonly command?: string;
  /** The step's script: jq's JSON input, or the remote script of an ssh step. */
  readonly script?: string;
  /**
   * The executor's settings as the DAG wrote them (executor.config, with, config); for ssh,
   * the DAG-level `ssh` block merged under the step's own.
   */
  readonly config: Readonly<Record<string, unknown>>;
  /** The DAG's `smtp` block, for mail steps. */
  readonly smtp?: SmtpSettings;
}

/**
 * The ExecutorSpec (core/runner/spec.ts) of a step that Kubedag's step runner carries out in
 * its Pod: http, jq, mail and ssh. Pure. Settings keep their `${VAR}` references: the runner
 * expands them from the Pod's environment, where secrets arrive by Secret reference only.
 *
 * DAG-level `ssh`, as in Dagu v1.24.11: a step that names no executor becomes an ssh step
 * (core/dag does that); an ssh step whose own settings are empty uses the DAG's block, with
 * Dagu's defaults (port 22, strictHostKey true); a step with settings of its own uses those
 * alone, not merged with the DAG's. The DAG's `smtp` goes to mail steps.
 */
import type { Dag, Step } from '../../core/dag/index.ts';
import type { V1EnvVar } from '@kubernetes/client-node';
import { RUNNER_EXECUTORS, SSH_KEY_ENV, type ExecutorSpec, type RunnerExecutor } from '../../core/runner/spec.ts';

export function isRunnerExecutor(type: string): type is RunnerExecutor {
  return (RUNNER_EXECUTORS as readonly string[]).includes(type);
}

/** The DAG's `ssh` block as Dagu completes it. */
function dagSsh(ssh: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const port = typeof ssh.port === 'number' || (typeof ssh.port === 'string' && ssh.port !== '') ? String(ssh.port) : '22';
  return { ...ssh, port, strictHostKey: ssh.strictHostKey ?? true };
}

/**
 * `command`: the step's command after the operator's expansion (step references, JSON paths),
 * except for jq, whose filter Dagu passes as written: `$name` there is jq's own variable.
 */
export function executorSpec(dag: Dag, step: Step, expandedCommand: string | undefined): ExecutorSpec | undefined {
  const type = step.executor.type;
  if (step.call !== undefined || !isRunnerExecutor(type)) return undefined;
  const own = step.executor.config;
  const config = type === 'ssh' && Object.keys(own).length === 0 && dag.ssh !== undefined ? dagSsh(dag.ssh) : own;
  const command = type === 'jq' ? step.cmdWithArgs : expandedCommand;
  return {
    type,
    ...(command === undefined ? {} : { command }),
    ...(step.script === undefined ? {} : { script: step.script }),
    config,
    ...(type === 'mail' && dag.smtp !== undefined ? { smtp: dag.smtp } : {}),
  };
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

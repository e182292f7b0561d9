/**
 * The `container-exec` executor: a step that runs in a container of a running Pod of the run's
 * namespace (the docker executor's `containerName`), through the exec API. The step Pod runs as
 * the run's exec ServiceAccount, whose token the exec and the Pod lookup use.
 *
 * The run's own container (DAG-level `container`) is waited for first (container-ready.ts).
 *
 * gather (the Pod) -> decide (which container, is it running, the command line) -> act (exec).
 */
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { chooseContainer } from '../../core/kube/pod-container.ts';
import type { ContainerExecTarget, ExecutorSpec } from '../../core/runner/spec.ts';
import { ContainerExecError, execInContainer, execKubeConfig } from '../container-exec.ts';
import { expandSetting, type StepIO } from '../io.ts';
import { SettingError } from '../settings.ts';
import { awaitReady } from './container-ready.ts';

/**
 * The command as the exec runs it: `exec.env` through env(1), `exec.workingDir` through a `cd`
 * in sh, so that neither needs more of the exec API than a command (it has no such fields). Pure.
 */
export function execCommand(
  argv: readonly string[],
  target: Pick<ContainerExecTarget, 'workingDir' | 'env'>,
  env: Readonly<Record<string, string>>,
): string[] {
  const vars = (target.env ?? []).map((entry) => expandSetting(entry, env));
  const withEnv = vars.length === 0 ? [...argv] : ['env', ...vars, ...argv];
  if (target.workingDir === undefined) return withEnv;
  return [
    'sh',
    '-c',
    'cd -- "$1" || exit 1; shift; exec "$@"',
    'kubedag-cd',
    expandSetting(target.workingDir, env),
    ...withEnv,
  ];
}

export interface ContainerExecDeps {
  readonly kubeConfig?: KubeConfig;
}

export async function runContainerExec(spec: ExecutorSpec, io: StepIO, deps: ContainerExecDeps = {}): Promise<number> {
  const target = spec.exec;
  if (target === undefined || spec.argv === undefined || spec.argv.length === 0)
    throw new SettingError('container-exec: the spec needs exec (the container) and argv (the command)');
  const { namespace } = target;
  const kc = deps.kubeConfig ?? execKubeConfig(io.env);
  const api = kc.makeApiClient(CoreV1Api);
  // The run's own container is waited for; a Pod that containerName names must run already.
  const pod =
    target.ready !== undefined && target.container !== undefined
      ? await awaitReady(api, { namespace, pod: target.pod, container: target.container }, target.ready, io.signal)
      : await api.readNamespacedPod({ namespace, name: target.pod }).catch((error: unknown) => {
          const code = (error as { code?: number }).code;
          throw new ContainerExecError(
            code === 404
              ? `Pod ${target.pod} not found in namespace ${namespace} (containerName names a running Pod of the run's namespace)`
              : `reading Pod ${namespace}/${target.pod}: ${(error as Error).message}`,
          );
        });
  const chosen = chooseContainer(pod, target.container);
  if ('error' in chosen) throw new ContainerExecError(chosen.error);
  const result = await execInContainer(
    kc,
    { namespace, pod: target.pod, container: chosen.container },
    {
      command: execCommand(spec.argv, target, io.env),
      stdout: io.stdout,
      stderr: io.stderr,
      signal: io.signal,
      stopSignal: target.stopSignal as NodeJS.Signals,
      graceMs: target.graceMs,
    },
  );
  return result.exitCode;
}

/**
 * A Dagu 2.x step's own `container:` (v2.15.1 `buildContainerField`, `buildContainerFromSpec`,
 * the docker executor's `newDocker`), rewritten into the 1.x docker step Kubedag runs:
 *
 * - `container: <name>` or `{exec: <name>, working_dir, env}` execs into a running container:
 *   the docker step with `containerName` and its `exec` settings (a Pod of the run's namespace).
 * - `{image, ...}` runs the step in a new container of that image: the docker step with `image`,
 *   a step Pod of its own; `name` is `containerName` (as in Dagu: exec into it when it runs),
 *   `env` follows the step's env (the container's wins), `pull_policy`, `working_dir`, a numeric
 *   `user` and `platform` are the step's Pod settings (its `kubernetes` block).
 *
 * Keys that describe a long-lived container (startup, readiness, ports, restarts) or the host
 * (volumes, networks) have no meaning for a step Pod and are refused by name. Only docker steps
 * (a step that names no type, `run:`, `type: docker`/`container`, `action: docker.run`) take a
 * container, as in Dagu. See docs/decisions/2026-11-29-dagu-2x-step-container.md.
 */
import { isRefusedAction } from './dialect-actions.ts';
import { canonicalExecutorType } from './executors.ts';
import { refusal, type DeliberateFeature } from './dialect-refusal.ts';
import { containerShell, nodeSelector, podSettingsClashes, pullPolicy, scalar, userIds } from './container-settings.ts';
import { childPath, issue, type DagIssue } from './issues.ts';
import { isMapping, without } from './mapping.ts';

type Mapping = Record<string, unknown>;

/** Every key of Dagu's container mapping (its `container` struct). */
const KEYS = [
  'exec',
  'name',
  'image',
  'pull_policy',
  'env',
  'volumes',
  'user',
  'working_dir',
  'platform',
  'ports',
  'network',
  'keep_container',
  'startup',
  'command',
  'wait_for',
  'log_pattern',
  'restart_policy',
  'healthcheck',
  'shell',
];

/** Keys Dagu refuses beside `exec` (`fields [...] cannot be used with 'exec'`). */
const NOT_WITH_EXEC = KEYS.filter((key) => !['exec', 'image', 'user', 'working_dir', 'env', 'shell'].includes(key));

/** Keys Kubedag does not read on a step container: the feature, and its why unless DELIBERATE holds it. */
export const REFUSED: Readonly<
  Record<string, readonly [feature: DeliberateFeature] | readonly [feature: string, why: string]>
> = {
  volumes: ['step container.volumes (bind mounts of the host)'],
  healthcheck: ['step container.healthcheck'],
  ports: ['step container.ports', 'a step Pod runs one command and publishes no ports; use a Service'],
  network: ['step container.network', "a Pod has the cluster's network only"],
  keep_container: ['step container.keep_container', 'a step Pod ends with its command; use the DAG-level container'],
  startup: ['step container.startup', 'a step Pod runs the step command; use the DAG-level container'],
  command: ['step container.command', 'a step Pod runs the step command; use the DAG-level container'],
  wait_for: ['step container.wait_for', 'a step Pod runs the step command; use the DAG-level container'],
  log_pattern: ['step container.log_pattern', 'a step Pod runs the step command; use the DAG-level container'],
  restart_policy: ['step container.restart_policy', 'retries come from retry_policy'],
};

/** The actions whose step Dagu runs with the docker executor, which alone takes a container. */
const CONTAINER_ACTIONS = ['docker.run', 'container.run', 'docker', 'container'];

/** The step with its `container:` as 1.x docker settings and Pod settings; errors for what cannot be. */
export function withStepContainer(step: Mapping, path: string, errors: DagIssue[], written: Mapping): Mapping {
  if (!Object.hasOwn(step, 'container')) return step;
  const { container, ...rest } = step;
  // A step whose action Kubedag refuses (harness.run takes a container in Dagu) is refused already.
  if (typeof written.action === 'string' && isRefusedAction(written.action)) return rest;
  const at = childPath(path, 'container');
  const before = errors.length;
  const misplaced = placementProblem(rest, written);
  if (misplaced !== undefined) errors.push(issue(at, misplaced));
  if (typeof container === 'string' && container.trim() === '') {
    errors.push(issue(at, 'must not be empty (the name of a running container)'));
    return rest;
  }
  const spec = typeof container === 'string' ? { exec: container } : container;
  if (!isMapping(spec)) {
    errors.push(issue(at, 'must be a container name or a mapping (image or exec)'));
    return rest;
  }
  const read = readSpec(spec, at, errors);
  if (errors.length > before) return rest;
  const docker = without(rest, 'with', 'config');
  return read.exec !== undefined
    ? execStep(docker, spec, read.exec, path, errors)
    : imageStep(docker, spec, at, errors);
}

/** Why this step cannot have a container of its own (Dagu: only the docker executor takes one). */
function placementProblem(step: Mapping, written: Mapping): string | undefined {
  const action = typeof written.action === 'string' ? written.action.trim() : undefined;
  const type = typeof step.type === 'string' ? step.type.trim() : '';
  // exec (the key, or the action that writes it) runs a process directly, never in a container.
  if (written.exec !== undefined || action === 'exec')
    return 'exec runs a command directly, not in a container; write the command with run';
  if (action !== undefined && !CONTAINER_ACTIONS.includes(action))
    return `action "${action}" does not take container (only ${CONTAINER_ACTIONS.join(', ')} do)`;
  if (step.call !== undefined || (type !== '' && canonicalExecutorType(type) !== 'docker'))
    return `only a docker step runs in a container of its own, not a ${stepKind(step)}`;
  if (hasSettings(step))
    return `container and ${step.with === undefined ? 'config' : 'with'} both give docker settings; use container`;
  return undefined;
}

function hasSettings(step: Mapping): boolean {
  const settings = step.with ?? step.config;
  return isMapping(settings) && Object.keys(settings).length > 0;
}

function stepKind(step: Mapping): string {
  if (step.call !== undefined) return 'sub-DAG step';
  return `step of type ${String(step.type)}`;
}

/** Dagu's own checks of the mapping (known keys, exactly one of exec and image, exec's keys), then Kubedag's refusals. */
function readSpec(spec: Mapping, at: string, errors: DagIssue[]): { exec?: string } {
  for (const key of Object.keys(spec).filter((k) => !KEYS.includes(k)))
    errors.push(issue(childPath(at, key), `unknown key (a container takes ${KEYS.join(', ')})`));
  const exec = text(spec.exec);
  errors.push(...modeProblems(spec, exec, at));
  for (const key of Object.keys(spec)) {
    const refused = REFUSED[key];
    if (refused !== undefined && !(exec !== undefined && NOT_WITH_EXEC.includes(key)))
      errors.push(
        refused.length === 1
          ? refusal(childPath(at, key), refused[0])
          : refusal(childPath(at, key), refused[0], refused[1]),
      );
  }
  return exec === undefined ? {} : { exec };
}

function modeProblems(spec: Mapping, exec: string | undefined, at: string): DagIssue[] {
  const image = text(spec.image);
  const problems: DagIssue[] = [];
  for (const [key, value] of [['exec', exec] as const, ['image', image] as const])
    if (spec[key] !== undefined && value === undefined)
      problems.push(issue(childPath(at, key), 'must be a non-empty string'));
  if (exec !== undefined && image !== undefined) problems.push(issue(at, "'exec' and 'image' are mutually exclusive"));
  if (spec.exec === undefined && spec.image === undefined)
    problems.push(issue(at, "either 'exec' or 'image' must be specified"));
  const invalid = exec === undefined ? [] : NOT_WITH_EXEC.filter((key) => spec[key] !== undefined);
  if (invalid.length > 0) problems.push(issue(at, `fields ${invalid.join(', ')} cannot be used with 'exec'`));
  return problems;
}

/** Exec into a running container: `containerName` with `exec.workingDir` and `exec.env` (step env first). */
function execStep(step: Mapping, spec: Mapping, name: string, path: string, errors: DagIssue[]): Mapping {
  const at = childPath(path, 'container');
  if (spec.shell !== undefined) errors.push(refusal(childPath(at, 'shell'), 'step container.shell with exec'));
  if (spec.user !== undefined)
    errors.push(
      refusal(
        childPath(at, 'user'),
        'step container.user with exec',
        "the exec API has no user, the command runs as the container's user",
      ),
    );
  const env = [
    ...envLines(step.env, childPath(path, 'env'), errors),
    ...envLines(spec.env, childPath(at, 'env'), errors),
  ];
  const workingDir = text(spec.working_dir);
  if (spec.working_dir !== undefined && workingDir === undefined)
    errors.push(issue(childPath(at, 'working_dir'), 'must be a non-empty string'));
  const exec = { ...(workingDir === undefined ? {} : { workingDir }), ...(env.length === 0 ? {} : { env }) };
  return {
    ...step,
    type: 'docker',
    with: { containerName: name, ...(Object.keys(exec).length === 0 ? {} : { exec }) },
  };
}

/** A step Pod of the image: docker `image`, the container's env after the step's, the rest as Pod settings. */
function imageStep(step: Mapping, spec: Mapping, at: string, errors: DagIssue[]): Mapping {
  const before = errors.length;
  const pod = podSettings(spec, at, errors);
  errors.push(
    ...podSettingsClashes({
      pod,
      at,
      what: 'container',
      workingDirAt: childPath(at, 'working_dir'),
      workingDirKey: 'container.working_dir',
      ...(step.working_dir === undefined ? {} : { stepWorkingDir: 'working_dir' }),
      stepKubernetes: step.kubernetes !== undefined,
    }),
  );
  // A named container is exec'd into when it runs, and exec'd commands run without a shell.
  if (spec.shell !== undefined && spec.name !== undefined)
    errors.push(refusal(childPath(at, 'shell'), 'step container.shell with exec'));
  const shell = spec.shell === undefined ? undefined : containerShell(spec.shell, childPath(at, 'shell'), errors);
  if (spec.shell !== undefined && step.shell !== undefined)
    errors.push(
      issue(childPath(at, 'shell'), "the step's shell and container.shell both name the shell; use one of them"),
    );
  // What is wrong is told in the container's keys, not again in the Pod settings it would have become.
  if (errors.length > before) return step;
  const env = spec.env === undefined ? undefined : [...envItems(step.env), ...envItems(spec.env)];
  const name = text(spec.name);
  return {
    ...step,
    ...(env === undefined ? {} : { env }),
    ...(shell === undefined ? {} : { shell }),
    type: 'docker',
    with: { image: text(spec.image), ...(name === undefined ? {} : { containerName: name }) },
    ...(Object.keys(pod).length === 0 ? {} : { kubernetes: pod }),
  };
}

/** The container's keys that are the step Pod's settings (its kubernetes block). */
function podSettings(spec: Mapping, at: string, errors: DagIssue[]): Mapping {
  const pod: Mapping = {};
  const policy = pullPolicy(spec.pull_policy, childPath(at, 'pull_policy'), errors);
  if (policy !== undefined) pod.imagePullPolicy = policy;
  const workingDir = text(spec.working_dir);
  if (workingDir !== undefined) pod.workingDir = workingDir;
  const user = userIds(spec.user, childPath(at, 'user'), errors);
  if (user !== undefined) pod.securityContext = user;
  const platform = nodeSelector(spec.platform, childPath(at, 'platform'), errors);
  if (platform !== undefined) pod.nodeSelector = platform;
  return pod;
}

/** Env entries in list form, each as written (NAME=value or a one-key mapping), for the loader to check. */
function envItems(env: unknown): unknown[] {
  if (env === undefined) return [];
  if (Array.isArray(env)) return env;
  return isMapping(env) ? Object.entries(env).map(([name, value]) => ({ [name]: value })) : [env];
}

/** Env entries as NAME=value lines, as the exec settings take them. */
function envLines(env: unknown, at: string, errors: DagIssue[]): string[] {
  return envItems(env).flatMap((item, i) => {
    if (typeof item === 'string' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(item)) return [item];
    if (isMapping(item)) return Object.entries(item).map(([name, value]) => `${name}=${scalar(value) ?? ''}`);
    errors.push(issue(childPath(at, i), 'must be NAME=value or a NAME: value mapping'));
    return [];
  });
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

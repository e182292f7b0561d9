/**
 * The Dagu 1.24 docker executor's settings for a new container (`pull`, `platform`,
 * `autoRemove`, `container`, `host`, `network`), read into what a step Pod can do with them:
 * the Pod settings (the step's `kubernetes` block) and env the container adds after the
 * step's own. What has no Kubernetes form is refused by name, never accepted and ignored.
 * See the 1.x paragraph of docs/decisions/2026-11-29-dagu-2x-step-container.md.
 */
import { nodeSelector, podSettingsClashes, pullPolicy, userIds } from './container-settings.ts';
import { envFromFile, type EnvInput } from './fields.ts';
import { childPath, issue, type DagIssue } from './issues.ts';
import type { Step } from './model.ts';
import type { StepFile } from './schema.ts';
import { isMapping } from './mapping.ts';

type Mapping = Record<string, unknown>;

/** The executor keys read here; the rest (image, containerName, exec) stay the executor's. */
export const POD_KEYS = ['pull', 'platform', 'autoRemove', 'container', 'host', 'network'] as const;

export interface DockerPodSettings {
  /** The rest of the executor's config, without the keys read here. */
  readonly config: Mapping;
  /** Pod settings in the `kubernetes` block's shape; empty when none were written. */
  readonly pod: Mapping;
  /** `container.env` as written, to follow the step's env (the container's wins, as in Dagu). */
  readonly env?: unknown;
}

/** Docker's container config keys with a step Pod form (matched in any letter case, as Dagu decodes them). */
const CONTAINER_READ = ['env', 'workingDir', 'user'];

/** Why a key of Docker's container config has no form in a step Pod, for the ones users write most. */
const CONTAINER_WHY: Readonly<Record<string, string>> = {
  exposedports: 'a step Pod publishes no ports; reach it through a Service',
  cmd: 'the step command is what runs',
  entrypoint: 'the step command is what runs; use a kubernetes step for an image entrypoint',
  image: 'the executor image is the image',
};

/** Why a key of Docker's host config has no form in a step Pod. */
const HOST_WHY: Readonly<Record<string, string>> = {
  binds: "a step Pod mounts no directories of the node; use kubernetes volumes (or the run's workspace)",
  portbindings: 'a step Pod binds no node ports; reach it through a Service',
  privileged: 'the namespace policy decides what a step Pod may do; a file cannot ask for a privileged Pod',
  autoremove: 'write autoRemove beside image (a step Pod is deleted once its logs are archived)',
};

/** Reads a docker step's settings; `configPath` is where they were written. Pure apart from `errors`. */
export function dockerPodSettings(written: Mapping, configPath: string, errors: DagIssue[]): DockerPodSettings {
  const config = Object.fromEntries(
    Object.entries(written).filter(([key]) => !(POD_KEYS as readonly string[]).includes(key)),
  );
  const present = POD_KEYS.filter((key) => written[key] !== undefined && written[key] !== null);
  if (present.length === 0) return { config, pod: {} };
  const at = (key: string): string => childPath(configPath, key);
  const before = errors.length;
  errors.push(...autoRemoveProblems(written.autoRemove, at('autoRemove')));
  errors.push(...mappingRefusals(written.host, at('host'), HOST_WHY, []));
  errors.push(...networkRefusals(written.network, at('network')));
  const container = readContainer(written.container, at('container'), errors);
  const pod: Mapping = {};
  const policy = pullPolicy(written.pull, at('pull'), errors);
  if (policy !== undefined) pod.imagePullPolicy = policy;
  const platform = nodeSelector(written.platform, at('platform'), errors);
  if (platform !== undefined) pod.nodeSelector = platform;
  Object.assign(pod, container.pod);
  // Without an image nothing new is created: the step execs into a running container, as it is.
  const forNewContainer = present.filter((key) => key !== 'autoRemove');
  if (!isText(written.image) && isText(written.containerName) && forNewContainer.length > 0)
    errors.push(
      issue(
        at(forNewContainer[0] ?? ''),
        'sets up a new container, but without image the step execs into the running container named by containerName',
      ),
    );
  if (errors.length > before) return { config, pod: {} };
  return { config, pod, ...(container.env === undefined ? {} : { env: container.env }) };
}

/**
 * A docker step's settings for a new container (pull, platform, container env, ...) become its
 * Pod settings and env; the step's own kubernetes block and them would be two sources for one Pod.
 */
export function withDockerSettings(
  step: Step,
  raw: StepFile,
  configPath: string,
  errors: DagIssue[],
): { step: Step; kubernetes: StepFile['kubernetes'] } {
  if (step.executor.type !== 'docker' || step.call !== undefined) return { step, kubernetes: raw.kubernetes };
  const settings = dockerPodSettings(step.executor.config, configPath, errors);
  const env = [
    ...step.env,
    ...envFromFile(settings.env as EnvInput, childPath(childPath(configPath, 'container'), 'env'), errors),
  ];
  const docker: Step = { ...step, executor: { type: 'docker', config: settings.config }, env };
  if (Object.keys(settings.pod).length === 0) return { step: docker, kubernetes: raw.kubernetes };
  // Told at the key written, not at the kubernetes.workingDir it would have become.
  const clashes = podSettingsClashes({
    pod: settings.pod,
    at: configPath,
    what: 'docker settings',
    workingDirAt: childPath(childPath(configPath, 'container'), 'workingDir'),
    workingDirKey: 'container.workingDir',
    ...(step.dir === undefined ? {} : { stepWorkingDir: 'workingDir (or dir)' }),
    stepKubernetes: raw.kubernetes !== undefined,
  });
  errors.push(...clashes);
  return { step: docker, kubernetes: clashes.length > 0 ? raw.kubernetes : settings.pod };
}

function autoRemoveProblems(value: unknown, at: string): DagIssue[] {
  if (value === undefined || value === null || value === true || value === 'true') return [];
  if (value === false || value === 'false')
    return [
      issue(
        at,
        'false is not supported on Kubernetes: a step Pod is always deleted once its logs are archived; for a container that outlives its step use the DAG-level container with keepContainer',
      ),
    ];
  return [issue(at, `must be a boolean, not ${JSON.stringify(value)}`)];
}

function networkRefusals(value: unknown, at: string): DagIssue[] {
  if (!isMapping(value)) return value === undefined || value === null ? [] : [issue(at, 'must be a mapping')];
  if (Object.keys(value).length === 0) return [];
  return [
    issue(
      at,
      "is not supported on Kubernetes: a step Pod has the cluster's network only (reach other steps' services by their Service names)",
    ),
  ];
}

/** An error for each key of a Docker config mapping that has no step Pod form (those in `read` excepted). */
function mappingRefusals(
  value: unknown,
  at: string,
  why: Readonly<Record<string, string>>,
  read: readonly string[],
): DagIssue[] {
  if (!isMapping(value)) return value === undefined || value === null ? [] : [issue(at, 'must be a mapping')];
  return Object.keys(value)
    .filter((key) => !read.includes(key.toLowerCase()))
    .map((key) =>
      issue(
        childPath(at, key),
        `is not supported on Kubernetes: ${why[key.toLowerCase()] ?? 'this Docker setting has no form in a step Pod'}`,
      ),
    );
}

/** A key of Docker's container config, matched in any letter case as Dagu decodes it. */
export function containerEntry(container: Mapping, name: string): [string, unknown] | undefined {
  return Object.entries(container).find(([key]) => key.toLowerCase() === name.toLowerCase());
}

/** Docker's container config: env, workingDir and a numeric user have a Pod form, every other key is refused. */
function readContainer(value: unknown, at: string, errors: DagIssue[]): { pod: Mapping; env?: unknown } {
  const read = CONTAINER_READ.map((key) => key.toLowerCase());
  errors.push(...mappingRefusals(value, at, CONTAINER_WHY, read));
  if (!isMapping(value)) return { pod: {} };
  const find = (name: string): [string, unknown] | undefined => containerEntry(value, name);
  const pod: Mapping = {};
  const workingDir = find('workingDir');
  if (workingDir !== undefined) {
    if (isText(workingDir[1])) pod.workingDir = (workingDir[1] as string).trim();
    else errors.push(issue(childPath(at, workingDir[0]), 'must be a non-empty path'));
  }
  const user = find('user');
  const ids = user === undefined ? undefined : userIds(user[1], childPath(at, user[0]), errors);
  if (ids !== undefined) pod.securityContext = ids;
  const env = find('env');
  if (env !== undefined && !Array.isArray(env[1]) && !isMapping(env[1]))
    errors.push(issue(childPath(at, env[0]), 'must be a list of NAME=value'));
  return { pod, ...(env === undefined ? {} : { env: env[1] }) };
}

function isText(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}

/**
 * The DAG-level `container` as one Pod per run (`<run>-container`), which the steps that run in
 * it exec into (docs/decisions/2026-11-24-shared-container.md). Pure: what the block asks for,
 * read and checked (`sharedContainer`), and the Pod that carries it out (`sharedContainerPod`).
 *
 * Docker settings map to Pod fields where Kubernetes has one; where it has none, or where the
 * meaning differs (host paths, host ports, networks, user names), the setting is refused by name
 * rather than approximated.
 */
import { posix } from 'node:path';
import type { V1Container, V1ContainerPort, V1Pod, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import type { Dag } from '../../../core/dag/index.ts';
import { API_VERSION, LABELS } from '../../../core/resources/constants.ts';
import { labelValue, sharedContainerPodName } from '../../../core/resources/names.ts';
import type { StepDefaults } from '../../config.ts';
import { withPodSettings } from './pod-settings.ts';
import type { RunRef } from '../ref.ts';
import type { RunAs } from './security.ts';
import { WORKSPACE_VOLUME, type Workspace } from './workspace.ts';

/** Labels the shared container Pod apart from step Pods. */
export const ROLE_LABEL = 'kubedag.io/role';

/**
 * `startup: keepalive`: the container idles until the run ends. A shell that is a container's
 * first process ignores SIGTERM unless it traps it, so the trap makes removal quick; `wait`
 * lets the trap run at once rather than after the sleep.
 */
export const KEEPALIVE_COMMAND = ['sh', '-c', 'trap "exit 0" TERM INT; while :; do sleep 86400 & wait $!; done'];

/** The container's name in its Pod: the one the steps exec into. */
export const SHARED_CONTAINER_NAME = 'main';

/** How long the run waits for the container to be ready before it fails. */
export const READY_TIMEOUT_SECONDS = 120;

export type Mount =
  | { readonly kind: 'workspace'; readonly subPath: string; readonly path: string; readonly readOnly: boolean }
  | { readonly kind: 'claim'; readonly claim: string; readonly path: string; readonly readOnly: boolean };

export interface SharedContainer {
  readonly image: string;
  /** undefined: the image's entrypoint and command (`startup: entrypoint`). */
  readonly command?: readonly string[];
  readonly env: readonly { readonly name: string; readonly value: string }[];
  readonly workingDir?: string;
  readonly user?: RunAs;
  readonly imagePullPolicy?: string;
  readonly nodeSelector: Readonly<Record<string, string>>;
  readonly ports: readonly V1ContainerPort[];
  readonly mounts: readonly Mount[];
  readonly restartPolicy: 'Never' | 'Always' | 'OnFailure';
  readonly keepContainer: boolean;
  readonly waitFor: 'running' | 'healthy';
  readonly logPattern?: string;
}

const PULL: Record<string, string> = {
  always: 'Always',
  missing: 'IfNotPresent',
  never: 'Never',
  true: 'Always',
  false: 'Never',
};
const RESTART: Record<string, SharedContainer['restartPolicy']> = {
  no: 'Never',
  always: 'Always',
  'unless-stopped': 'Always',
  'on-failure': 'OnFailure',
};
const WAIT_FOR: Record<string, SharedContainer['waitFor']> = { running: 'running', healthy: 'healthy' };

const texts = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;

type Read<T> = { value: T } | { problem: string };

function startupCommand(block: Readonly<Record<string, unknown>>): Read<readonly string[] | undefined> {
  const startup = block.startup ?? 'keepalive';
  const command = block.command === undefined ? undefined : texts(block.command);
  if (block.command !== undefined && (command ?? []).length === 0)
    return { problem: 'container.command must be a non-empty list of words' };
  if (startup === 'keepalive') return { value: command ?? KEEPALIVE_COMMAND };
  if (startup === 'entrypoint')
    return command === undefined
      ? { value: undefined }
      : {
          problem:
            "container.command is not used with startup: entrypoint (the image's own runs); use startup: command",
        };
  if (startup === 'command')
    return command === undefined
      ? { problem: 'container.startup: command needs container.command' }
      : { value: command };
  return { problem: `container.startup must be keepalive, entrypoint or command, not ${JSON.stringify(startup)}` };
}

/** `[ip:][hostPort:]containerPort[/proto]`: only the container port has a meaning in a Pod. */
function port(text: string, at: string): Read<V1ContainerPort> {
  const match = /^(\d{1,5})(?:\/(tcp|udp|sctp))?$/i.exec(text);
  if (match === null)
    return {
      problem: `${at}: "${text}" must be a container port (8080 or 8080/udp); a host address or port has no meaning for a Pod (use a Service)`,
    };
  return { value: { containerPort: Number(match[1]), protocol: (match[2] ?? 'tcp').toUpperCase() } };
}

/** `source:target[:ro|rw]`: a relative source is in the run's workspace, a name is a PVC. */
function mount(text: string, at: string, hasWorkspace: boolean): Read<Mount> {
  const [source = '', path = '', mode = 'rw', ...rest] = text.split(':');
  if (rest.length > 0 || source === '' || !posix.isAbsolute(path) || !['ro', 'rw'].includes(mode))
    return { problem: `${at}: "${text}" must be source:/path[:ro]` };
  const readOnly = mode === 'ro';
  if (posix.isAbsolute(source))
    return {
      problem: `${at}: host path ${source} is refused on Kubernetes (a step Pod has no host of its own); use a path relative to the workspace or a PersistentVolumeClaim name`,
    };
  if (source.startsWith('.') || source.includes('/')) {
    const subPath = posix.normalize(source);
    if (subPath === '..' || subPath.startsWith('../')) return { problem: `${at}: ${source} leaves the workspace` };
    if (!hasWorkspace) return { problem: `${at}: a relative source needs the run's workspace, which is turned off` };
    return { value: { kind: 'workspace', subPath: subPath === '.' ? '' : subPath, path, readOnly } };
  }
  return { value: { kind: 'claim', claim: source, path, readOnly } };
}

function all<T>(list: unknown, at: string, read: (text: string, at: string) => Read<T>, problems: string[]): T[] {
  if (list === undefined) return [];
  const items = texts(list);
  if (items === undefined) {
    problems.push(`${at} must be a list of text`);
    return [];
  }
  return items.flatMap((item, i) => {
    const got = read(item, `${at}[${String(i)}]`);
    if ('problem' in got) problems.push(got.problem);
    return 'value' in got ? [got.value] : [];
  });
}

/** A setting that is text (or a number, as YAML may write a uid), else undefined. */
const scalar = (value: unknown): string | undefined =>
  typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;

function platform(value: unknown): Read<Record<string, string>> {
  const text = scalar(value) ?? '';
  if (value === undefined || text === '') return { value: {} };
  const [os = '', arch, ...rest] = text.split('/');
  if (os === '' || rest.length > 0)
    return {
      problem: `container.platform: ${JSON.stringify(value)} must be os or os/arch (a variant cannot be chosen on Kubernetes)`,
    };
  return { value: { 'kubernetes.io/os': os, ...(arch === undefined ? {} : { 'kubernetes.io/arch': arch }) } };
}

function user(value: unknown): Read<RunAs | undefined> {
  if (value === undefined) return { value: undefined };
  const ids = /^(\d+)(?::(\d+))?$/.exec(scalar(value) ?? '');
  if (ids === null)
    return { problem: `container.user: ${JSON.stringify(value)} must be a numeric uid or uid:gid on Kubernetes` };
  return { value: { runAsUser: Number(ids[1]), ...(ids[2] === undefined ? {} : { runAsGroup: Number(ids[2]) }) } };
}

function oneOf<T>(value: unknown, fallback: string, table: Readonly<Record<string, T>>, problem: string): Read<T> {
  const got = table[scalar(value ?? fallback) ?? ''];
  return got === undefined ? { problem: `${problem}, not ${JSON.stringify(value)}` } : { value: got };
}

function logPattern(value: unknown): Read<string | undefined> {
  if (value === undefined || value === '') return { value: undefined };
  if (typeof value === 'string' && validPattern(value)) return { value };
  return { problem: `container.logPattern: ${JSON.stringify(value)} is not a valid regular expression` };
}

function envEntry(text: string, at: string): Read<{ name: string; value: string }> {
  const equals = text.indexOf('=');
  return equals > 0
    ? { value: { name: text.slice(0, equals), value: text.slice(equals + 1) } }
    : { problem: `${at}: "${text}" must be NAME=value` };
}

/** The value, or undefined with its problem noted. */
function take<T>(read: Read<T>, problems: string[]): T | undefined {
  if ('problem' in read) {
    problems.push(read.problem);
    return undefined;
  }
  return read.value;
}

const IMAGE_REQUIRED: Read<string> = { problem: 'container.image is required' };
const NETWORK_REFUSED = (network: unknown): Read<undefined> =>
  network === undefined || network === '' || network === 'bridge'
    ? { value: undefined }
    : { problem: `container.network: ${JSON.stringify(network)} is refused: a Pod has the cluster's network only` };

/** The block read as a Pod can carry it out, or every problem with it. */
export function sharedContainer(
  block: Readonly<Record<string, unknown>>,
  hasWorkspace: boolean,
): { container: SharedContainer } | { problems: string[] } {
  const problems: string[] = [];
  const image = take(
    typeof block.image === 'string' && block.image !== '' ? { value: block.image } : IMAGE_REQUIRED,
    problems,
  );
  const command = take(startupCommand(block), problems);
  const env = all(block.env, 'container.env', envEntry, problems);
  const ports = all(block.ports, 'container.ports', port, problems);
  const mounts = all(block.volumes, 'container.volumes', (text, at) => mount(text, at, hasWorkspace), problems);
  const nodeSelector = take(platform(block.platform), problems) ?? {};
  const ids = take(user(block.user), problems);
  take(NETWORK_REFUSED(block.network), problems);
  const restartPolicy = take(
    oneOf(
      block.restartPolicy,
      'no',
      RESTART,
      'container.restartPolicy must be no, always, unless-stopped or on-failure',
    ),
    problems,
  );
  const waitFor = take(
    oneOf(block.waitFor, 'running', WAIT_FOR, 'container.waitFor must be running or healthy'),
    problems,
  );
  const pattern = take(logPattern(block.logPattern), problems);
  const pull =
    block.pullPolicy === undefined
      ? undefined
      : take(oneOf(block.pullPolicy, '', PULL, 'container.pullPolicy must be always, missing or never'), problems);
  if (problems.length > 0 || image === undefined || restartPolicy === undefined || waitFor === undefined)
    return { problems };
  const workingDir = [block.workDir, block.workingDir].find((d): d is string => typeof d === 'string' && d !== '');
  return {
    container: {
      image,
      ...(command === undefined ? {} : { command }),
      env,
      ...(workingDir === undefined ? {} : { workingDir }),
      ...(ids === undefined ? {} : { user: ids }),
      ...(pull === undefined ? {} : { imagePullPolicy: pull }),
      nodeSelector,
      ports,
      mounts,
      restartPolicy,
      keepContainer: block.keepContainer === true,
      waitFor,
      ...(pattern === undefined ? {} : { logPattern: pattern }),
    },
  };
}

function validPattern(text: string): boolean {
  try {
    new RegExp(text);
    return true;
  } catch {
    return false;
  }
}

/** The block's volumes: claims by name, and the run's workspace (declared by withPodSettings) by subPath. */
function volumesOf(mounts: readonly Mount[]): { volumes: V1Volume[]; volumeMounts: V1VolumeMount[] } {
  const claims = [...new Set(mounts.flatMap((m) => (m.kind === 'claim' ? [m.claim] : [])))];
  const volumeName = (m: Mount): string =>
    m.kind === 'claim' ? `claim-${String(claims.indexOf(m.claim))}` : WORKSPACE_VOLUME;
  return {
    volumes: claims.map((claim, i) => ({ name: `claim-${String(i)}`, persistentVolumeClaim: { claimName: claim } })),
    volumeMounts: mounts.map((m) => ({
      name: volumeName(m),
      mountPath: m.path,
      ...(m.kind === 'workspace' && m.subPath !== '' ? { subPath: m.subPath } : {}),
      ...(m.readOnly ? { readOnly: true } : {}),
    })),
  };
}

export interface ContainerPodContext {
  readonly workspace: Workspace | undefined;
  readonly registrySecret: string | undefined;
  readonly defaults: Pick<StepDefaults, 'security' | 'user'>;
}

/**
 * The run's container Pod, owned by the run, with the DAG's Pod settings, the run's workspace
 * (mounted where step Pods have it), security defaults and pull Secret, as step Pods get them.
 * `restartPolicy: always` restarts the container from a fresh root: unlike Docker, only
 * volumes keep its files. No per-attempt deadline: the Pod lives as long as the run.
 */
export function sharedContainerPod(
  ref: RunRef,
  dag: Dag,
  container: SharedContainer,
  context: ContainerPodContext,
): V1Pod {
  const { volumes, volumeMounts } = volumesOf(container.mounts);
  const main: V1Container = {
    name: SHARED_CONTAINER_NAME,
    image: container.image,
    ...(container.command === undefined ? {} : { command: [...container.command] }),
    ...(container.env.length === 0 ? {} : { env: container.env.map((e) => ({ ...e })) }),
    ...(container.workingDir === undefined ? {} : { workingDir: container.workingDir }),
    ...(container.imagePullPolicy === undefined ? {} : { imagePullPolicy: container.imagePullPolicy }),
    ...(container.ports.length === 0 ? {} : { ports: container.ports.map((p) => ({ ...p })) }),
    ...(volumeMounts.length === 0 ? {} : { volumeMounts }),
  };
  const nodeSelector = { ...dag.workerSelector, ...container.nodeSelector };
  const pod: V1Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: sharedContainerPodName(ref.name),
      namespace: ref.namespace,
      labels: { [LABELS.run]: labelValue(ref.name), [LABELS.dag]: labelValue(ref.dagName), [ROLE_LABEL]: 'container' },
      ownerReferences: [
        {
          apiVersion: API_VERSION,
          kind: 'DAGRun',
          name: ref.name,
          uid: ref.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      restartPolicy: container.restartPolicy,
      terminationGracePeriodSeconds: dag.maxCleanUpTimeSec,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      ...(Object.keys(nodeSelector).length === 0 ? {} : { nodeSelector }),
      ...(volumes.length === 0 ? {} : { volumes }),
      containers: [main],
    },
  };
  const { workspace: _workspace, activeDeadlineSeconds: _deadline, ...settings } = dag.kubernetes ?? {};
  return withPodSettings(pod, {
    settings,
    defaults: context.defaults,
    workspace: context.workspace,
    registrySecret: context.registrySecret,
    ...(container.user === undefined ? {} : { runAs: container.user }),
  });
}

/** The run's container Pod, told apart from step Pods. */
export function isContainerPod(pod: V1Pod): boolean {
  return pod.metadata?.labels?.[ROLE_LABEL] === 'container';
}

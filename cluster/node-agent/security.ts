/**
 * A container's securityContext as the kubelet and containerd turn it into process settings:
 * who it runs as (container settings override the Pod's; fsGroup and supplementalGroups are
 * added to its groups), its capabilities (containerd's default set, then add and drop), no new
 * privileges, a read-only root. Pure, so it is tested as tables without a cluster.
 */
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { imageGroups, userOf, type ImageUsers } from './users.ts';

export interface ProcessIdentity {
  readonly uid: number;
  readonly gid: number;
  /** Supplementary groups, in the order the runtime gives them. */
  readonly groups: readonly number[];
  /** HOME, from the image's passwd entry for the uid, else `/` as runtimes do. */
  readonly home: string;
}

export interface ContainerSecurity {
  readonly identity: ProcessIdentity;
  /** Capability names as setpriv takes them (`chown`), or every capability (privileged). */
  readonly capabilities: readonly string[] | 'all';
  readonly noNewPrivs: boolean;
  readonly readOnlyRoot: boolean;
}

/** What containerd grants a container that asks for nothing (its default capability set). */
export const DEFAULT_CAPABILITIES: readonly string[] = [
  'chown',
  'dac_override',
  'fsetid',
  'fowner',
  'mknod',
  'net_raw',
  'setgid',
  'setuid',
  'setfcap',
  'setpcap',
  'net_bind_service',
  'sys_chroot',
  'kill',
  'audit_write',
];

/** Every capability setpriv (libcap-ng) knows by name; others are ignored rather than failing the start. */
export const KNOWN_CAPABILITIES: readonly string[] = [
  'chown',
  'dac_override',
  'dac_read_search',
  'fowner',
  'fsetid',
  'kill',
  'setgid',
  'setuid',
  'setpcap',
  'linux_immutable',
  'net_bind_service',
  'net_broadcast',
  'net_admin',
  'net_raw',
  'ipc_lock',
  'ipc_owner',
  'sys_module',
  'sys_rawio',
  'sys_chroot',
  'sys_ptrace',
  'sys_pacct',
  'sys_admin',
  'sys_boot',
  'sys_nice',
  'sys_resource',
  'sys_time',
  'sys_tty_config',
  'mknod',
  'lease',
  'audit_write',
  'audit_control',
  'setfcap',
  'mac_override',
  'mac_admin',
  'syslog',
  'wake_alarm',
  'block_suspend',
  'audit_read',
  'perfmon',
  'bpf',
  'checkpoint_restore',
];

/** A start the kubelet refuses (CreateContainerConfigError); it retries, the spec will not change. */
export class SecurityConfigError extends Error {}

const podName = (pod: V1Pod): string =>
  `${pod.metadata?.name ?? ''}_${pod.metadata?.namespace ?? ''}(${pod.metadata?.uid ?? ''})`;

/**
 * The kubelet's verifyRunAsNonRoot: the image user here is root (the host is the image), so
 * runAsNonRoot needs an explicit non-zero runAsUser. Messages are the kubelet's.
 */
function verifyNonRoot(pod: V1Pod, container: V1Container, uid: number | undefined): void {
  const nonRoot = container.securityContext?.runAsNonRoot ?? pod.spec?.securityContext?.runAsNonRoot;
  if (nonRoot !== true) return;
  if (uid === 0)
    throw new SecurityConfigError(
      `container's runAsUser breaks non-root policy (pod: "${podName(pod)}", container: ${container.name})`,
    );
  if (uid === undefined)
    throw new SecurityConfigError(
      `container has runAsNonRoot and image will run as root (pod: "${podName(pod)}", container: ${container.name})`,
    );
}

/** The container's setting, else the Pod's: runAsUser, runAsGroup and runAsNonRoot work so. */
function effective(pod: V1Pod, container: V1Container, key: 'runAsUser' | 'runAsGroup'): number | undefined {
  return container.securityContext?.[key] ?? pod.spec?.securityContext?.[key];
}

export function processIdentity(pod: V1Pod, container: V1Container, users: ImageUsers): ProcessIdentity {
  const podContext = pod.spec?.securityContext ?? {};
  const asked = effective(pod, container, 'runAsUser');
  verifyNonRoot(pod, container, asked);
  const uid = asked ?? 0;
  const user = userOf(users, uid);
  const gid = effective(pod, container, 'runAsGroup') ?? user?.gid ?? 0;
  const fsGroup = podContext.fsGroup === undefined ? [] : [podContext.fsGroup];
  const groups = [...new Set([gid, ...imageGroups(users, uid), ...fsGroup, ...(podContext.supplementalGroups ?? [])])];
  return { uid, gid, groups, home: user?.home ?? '/' };
}

const capName = (name: string): string => name.toLowerCase().replace(/^cap_/, '');

/** containerd's order: add ALL, drop ALL, then the named adds, then the named drops. */
export function capabilities(container: V1Container): readonly string[] | 'all' {
  if (container.securityContext?.privileged === true) return 'all';
  const add = (container.securityContext?.capabilities?.add ?? []).map(capName);
  const drop = (container.securityContext?.capabilities?.drop ?? []).map(capName);
  let set = new Set(DEFAULT_CAPABILITIES);
  if (add.includes('all')) set = new Set(KNOWN_CAPABILITIES);
  if (drop.includes('all')) set = new Set();
  for (const name of add) if (KNOWN_CAPABILITIES.includes(name)) set.add(name);
  for (const name of drop) set.delete(name);
  return KNOWN_CAPABILITIES.filter((name) => set.has(name));
}

/** Throws SecurityConfigError when the kubelet would refuse to start the container. */
export function containerSecurity(pod: V1Pod, container: V1Container, users: ImageUsers): ContainerSecurity {
  const privileged = container.securityContext?.privileged === true;
  return {
    identity: processIdentity(pod, container, users),
    capabilities: capabilities(container),
    // Kubernetes allows escalation unless it is turned off, and never for privileged containers.
    noNewPrivs: !privileged && container.securityContext?.allowPrivilegeEscalation === false,
    readOnlyRoot: container.securityContext?.readOnlyRootFilesystem === true,
  };
}

/** setpriv's arguments for these settings, ending in `--` before the container's argv. */
export function setprivArgs(security: ContainerSecurity): string[] {
  const { uid, gid, groups } = security.identity;
  const caps = security.capabilities;
  return [
    `--reuid=${uid}`,
    `--regid=${gid}`,
    groups.length === 0 ? '--clear-groups' : `--groups=${groups.join(',')}`,
    '--inh-caps=-all',
    ...(caps === 'all' ? [] : [`--bounding-set=-all${caps.map((c) => `,+${c}`).join('')}`]),
    ...(security.noNewPrivs ? ['--no-new-privs'] : []),
    '--',
  ];
}

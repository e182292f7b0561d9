/**
 * The Pod Security Standards (https://kubernetes.io/docs/concepts/security/pod-security-standards/)
 * as a pure check of a Pod spec, so that Kubedag refuses a Pod above its namespace's ceiling
 * before creating it, whatever the cluster's own admission enforces (many clusters enforce
 * nothing, and kube-apiserver's `--allow-privileged` is the only other guard). The checks follow
 * the standard's `latest` version, field by field; each violation names the field in the Pod's
 * terms, so a caller that built the Pod from a DAG can name the DAG's key instead. Pure.
 */
import type { V1Container, V1PodSecurityContext, V1PodSpec, V1SecurityContext } from '@kubernetes/client-node';

/** The three levels of the standard, least to most restrictive. */
export const POLICY_LEVELS = ['privileged', 'baseline', 'restricted'] as const;
export type PolicyLevel = (typeof POLICY_LEVELS)[number];

export const isPolicyLevel = (value: unknown): value is PolicyLevel =>
  (POLICY_LEVELS as readonly unknown[]).includes(value);

export interface Violation {
  /** Where, in the Pod's spelling: `spec.hostNetwork`, `spec.containers[step].securityContext.privileged`. */
  readonly field: string;
  /** What is wrong, without the field: `true is not allowed`. */
  readonly problem: string;
  /** The least level that allows it. */
  readonly needs: PolicyLevel;
}

/** A Pod as far as the standard looks at it: its spec and annotations (AppArmor's older spelling). */
export interface PodShape {
  readonly spec: Readonly<V1PodSpec>;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** Capabilities baseline lets a container add: the container runtimes' defaults. */
const BASELINE_CAPABILITIES = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);
/** Sysctls namespaced to the Pod, which cannot reach the node or its other Pods. */
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
]);
const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);
/** Volume types restricted allows: none of them reaches the node or a storage driver's own privileges. */
const RESTRICTED_VOLUMES = [
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
];
const APPARMOR_ANNOTATION = 'container.apparmor.security.beta.kubernetes.io/';

interface Named {
  readonly path: string;
  readonly container: Readonly<V1Container>;
}

function containersOf(spec: Readonly<V1PodSpec>): Named[] {
  const list = (kind: string, items: readonly V1Container[] | undefined): Named[] =>
    (items ?? []).map((container) => ({ path: `spec.${kind}[${container.name}]`, container }));
  return [
    ...list('initContainers', spec.initContainers),
    ...list('containers', spec.containers),
    ...list('ephemeralContainers', spec.ephemeralContainers),
  ];
}

type Found = Omit<Violation, 'needs'>;
type PodRule = (pod: PodShape, context: Readonly<V1PodSecurityContext>) => Found[];
type ContainerRule = (
  at: string,
  context: Readonly<V1SecurityContext>,
  container: Readonly<V1Container>,
  pod: Readonly<V1PodSecurityContext>,
) => Found[];

const when = (condition: boolean, field: string, problem: string): Found[] => (condition ? [{ field, problem }] : []);
const listed = (names: readonly string[]): string =>
  `${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} not allowed`;

/** The baseline checks of the Pod as a whole: nothing that reaches the node, its namespaces or its kernel. */
const BASELINE_POD: readonly PodRule[] = [
  ({ spec }) =>
    (['hostNetwork', 'hostPID', 'hostIPC'] as const).flatMap((key) =>
      when(spec[key] === true, `spec.${key}`, 'true is not allowed'),
    ),
  (_, pod) =>
    when(
      pod.windowsOptions?.hostProcess === true,
      'spec.securityContext.windowsOptions.hostProcess',
      'true is not allowed',
    ),
  (_, pod) => [...selinux('spec.securityContext', pod.seLinuxOptions), ...profiles('spec.securityContext', pod)],
  (_, pod) =>
    (pod.sysctls ?? []).flatMap((sysctl) =>
      when(!SAFE_SYSCTLS.has(sysctl.name), 'spec.securityContext.sysctls', `${sysctl.name} is not a safe sysctl`),
    ),
  ({ spec }) =>
    (spec.volumes ?? []).flatMap((volume) =>
      when(volume.hostPath !== undefined, `spec.volumes[${volume.name}].hostPath`, 'host paths are not allowed'),
    ),
  ({ annotations }) =>
    Object.entries(annotations ?? {}).flatMap(([key, value]) =>
      when(
        key.startsWith(APPARMOR_ANNOTATION) && value !== 'runtime/default' && !value.startsWith('localhost/'),
        `metadata.annotations[${key}]`,
        `${value} is not allowed`,
      ),
    ),
];

/** The baseline checks of each container. */
const BASELINE_CONTAINER: readonly ContainerRule[] = [
  (at, context) => when(context.privileged === true, `${at}.privileged`, 'true is not allowed'),
  (at, context) =>
    when(context.windowsOptions?.hostProcess === true, `${at}.windowsOptions.hostProcess`, 'true is not allowed'),
  (at, context) =>
    when(
      context.procMount !== undefined && context.procMount !== 'Default',
      `${at}.procMount`,
      `${String(context.procMount)} is not allowed`,
    ),
  (at, context) => {
    const added = (context.capabilities?.add ?? []).filter((c) => !BASELINE_CAPABILITIES.has(c));
    return when(added.length > 0, `${at}.capabilities.add`, listed(added));
  },
  (at, context) => [...selinux(at, context.seLinuxOptions), ...profiles(at, context)],
  (at, _, container) =>
    (container.ports ?? []).flatMap((port) =>
      when(
        port.hostPort !== undefined && port.hostPort !== 0,
        `${at.replace(/\.securityContext$/, '')}.ports[${String(port.containerPort)}].hostPort`,
        `${String(port.hostPort)} is not allowed`,
      ),
    ),
];

function volumeType(volume: object): string | undefined {
  return Object.entries(volume as Readonly<Record<string, unknown>>).find(
    ([key, value]) => key !== 'name' && value !== undefined,
  )?.[0];
}

/** The restricted checks beyond baseline: a non-root, unprivileged process with no capabilities. */
const RESTRICTED_POD: readonly PodRule[] = [
  ({ spec }) =>
    (spec.volumes ?? []).flatMap((volume) => {
      const type = volumeType(volume);
      return when(
        type !== undefined && !RESTRICTED_VOLUMES.includes(type),
        `spec.volumes[${volume.name}].${String(type)}`,
        type === 'hostPath' ? 'host paths are not allowed' : `${String(type)} volumes are not allowed`,
      );
    }),
  (_, pod) => when(pod.runAsUser === 0, 'spec.securityContext.runAsUser', '0 (root) is not allowed'),
  (_, pod) => when(pod.runAsNonRoot === false, 'spec.securityContext.runAsNonRoot', 'false is not allowed'),
];

const RESTRICTED_CONTAINER: readonly ContainerRule[] = [
  (at, context) => when(context.allowPrivilegeEscalation !== false, `${at}.allowPrivilegeEscalation`, 'must be false'),
  // Each container's own setting wins over the Pod's; one of the two must say so.
  (at, context, _, pod) =>
    context.runAsNonRoot === false
      ? [{ field: `${at}.runAsNonRoot`, problem: 'false is not allowed' }]
      : when(
          context.runAsNonRoot !== true && pod.runAsNonRoot !== true,
          `${at}.runAsNonRoot`,
          'must be true (here or in spec.securityContext)',
        ),
  (at, context) => when(context.runAsUser === 0, `${at}.runAsUser`, '0 (root) is not allowed'),
  (at, context, _, pod) => {
    const seccomp = context.seccompProfile?.type ?? pod.seccompProfile?.type;
    // Unconfined is baseline's to report.
    return when(
      seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost' && seccomp !== 'Unconfined',
      `${at}.seccompProfile.type`,
      'must be RuntimeDefault or Localhost (here or in spec.securityContext)',
    );
  },
  (at, context) =>
    when(!(context.capabilities?.drop ?? []).includes('ALL'), `${at}.capabilities.drop`, 'must include ALL'),
  // Baseline names the capabilities it refuses; restricted allows only this one back.
  (at, context) => {
    const added = (context.capabilities?.add ?? []).filter(
      (c) => c !== 'NET_BIND_SERVICE' && BASELINE_CAPABILITIES.has(c),
    );
    return when(added.length > 0, `${at}.capabilities.add`, `${listed(added)} (only NET_BIND_SERVICE)`);
  },
];

function check(shape: PodShape, podRules: readonly PodRule[], containerRules: readonly ContainerRule[]): Found[] {
  const pod = shape.spec.securityContext ?? {};
  const found = podRules.flatMap((rule) => rule(shape, pod));
  for (const { path, container } of containersOf(shape.spec)) {
    const context = container.securityContext ?? {};
    found.push(...containerRules.flatMap((rule) => rule(`${path}.securityContext`, context, container, pod)));
  }
  return found;
}

function selinux(at: string, options: V1PodSecurityContext['seLinuxOptions']): Found[] {
  if (options === undefined) return [];
  const found: Found[] = [];
  if (!SELINUX_TYPES.has(options.type ?? ''))
    found.push({ field: `${at}.seLinuxOptions.type`, problem: `${String(options.type)} is not allowed` });
  if (options.user !== undefined && options.user !== '')
    found.push({ field: `${at}.seLinuxOptions.user`, problem: 'must not be set' });
  if (options.role !== undefined && options.role !== '')
    found.push({ field: `${at}.seLinuxOptions.role`, problem: 'must not be set' });
  return found;
}

/** Seccomp and AppArmor: never Unconfined. */
function profiles(at: string, context: Pick<V1SecurityContext, 'seccompProfile' | 'appArmorProfile'>): Found[] {
  const found: Found[] = [];
  if (context.seccompProfile?.type === 'Unconfined')
    found.push({ field: `${at}.seccompProfile.type`, problem: 'Unconfined is not allowed' });
  if (context.appArmorProfile?.type === 'Unconfined')
    found.push({ field: `${at}.appArmorProfile.type`, problem: 'Unconfined is not allowed' });
  return found;
}

/** What a Pod does that `level` does not allow; empty when it may be created. */
export function podViolations(pod: PodShape, level: PolicyLevel): Violation[] {
  if (level === 'privileged') return [];
  const base = check(pod, BASELINE_POD, BASELINE_CONTAINER).map((v) => ({ ...v, needs: 'privileged' as const }));
  if (level === 'baseline') return base;
  const seen = new Set(base.map((v) => v.field));
  return [
    ...base,
    ...check(pod, RESTRICTED_POD, RESTRICTED_CONTAINER)
      .filter((v) => !seen.has(v.field))
      .map((v) => ({ ...v, needs: 'baseline' as const })),
  ];
}

/** One line per violation, naming the field and the level: `spec.hostPID: true is not allowed by pod policy "baseline"`. */
export function describeViolations(violations: readonly Violation[], level: PolicyLevel): string[] {
  return violations.map((v) => `${v.field}: ${v.problem} under pod policy "${level}"`);
}

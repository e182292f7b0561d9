/**
 * What a Pod asks for that this node cannot enforce, said out loud rather than silently
 * claimed: each becomes a Warning Event on the Pod and a log line when the Pod starts. Pure,
 * over the Pod and what the agent found it can do on this machine.
 */
import type { V1Container, V1Pod, V1PodSecurityContext } from '@kubernetes/client-node';
import type { SandboxMode } from './sandbox.ts';

export interface Abilities {
  readonly sandbox: SandboxMode;
  /** The agent runs as root and can start processes as other users. */
  readonly changeUser: boolean;
  /** cgroup controllers the agent can write, to limit each container. */
  readonly cgroups: { readonly memory: boolean; readonly cpu: boolean };
}

export interface Unenforced {
  readonly reason: 'LimitsNotEnforced' | 'SecurityNotEnforced' | 'IsolationNotEnforced';
  readonly message: string;
}

const containersOf = (pod: V1Pod): V1Container[] => [
  ...(pod.spec?.initContainers ?? []),
  ...(pod.spec?.containers ?? []),
];

function limitGaps(pod: V1Pod, abilities: Abilities): string[] {
  return containersOf(pod).flatMap((c) => {
    const limits = c.resources?.limits ?? {};
    const missing = [
      ...(limits.memory !== undefined && !abilities.cgroups.memory ? [`memory ${limits.memory}`] : []),
      ...(limits.cpu !== undefined && !abilities.cgroups.cpu ? [`cpu ${limits.cpu}`] : []),
      ...(limits['ephemeral-storage'] !== undefined ? [`ephemeral-storage ${limits['ephemeral-storage']}`] : []),
    ];
    return missing.length === 0 ? [] : [`${c.name} (${missing.join(', ')})`];
  });
}

const confining = (type: string | undefined): boolean => type !== undefined && type !== 'Unconfined';

/** The container's field, else the Pod's, for fields both contexts have. */
function either<T>(container: T | undefined, pod: T | undefined): T | undefined {
  return container ?? pod;
}

function containerSecurityGaps(c: V1Container, podContext: V1PodSecurityContext): string[] {
  const context = c.securityContext ?? {};
  const seccomp = either(context.seccompProfile, podContext.seccompProfile)?.type;
  const appArmor = either(context.appArmorProfile, podContext.appArmorProfile)?.type;
  return [
    confining(seccomp) ? `seccompProfile ${seccomp ?? ''}` : '',
    confining(appArmor) ? `appArmorProfile ${appArmor ?? ''}` : '',
    either(context.seLinuxOptions, podContext.seLinuxOptions) === undefined ? '' : 'seLinuxOptions',
    context.procMount === 'Unmasked' ? 'procMount Unmasked' : '',
  ].filter((g) => g !== '');
}

function securityGaps(pod: V1Pod): string[] {
  const podContext = pod.spec?.securityContext ?? {};
  const gaps = containersOf(pod).flatMap((c) => containerSecurityGaps(c, podContext));
  return [...new Set([...gaps, ...((podContext.sysctls ?? []).length > 0 ? ['sysctls'] : [])])];
}

function isolationGaps(pod: V1Pod, abilities: Abilities): string[] {
  const gaps: string[] = [];
  if (abilities.sandbox === 'none')
    gaps.push(
      'container root file systems (containers run in the host file system; volumes are not mounted at their paths)',
    );
  if (
    !abilities.changeUser &&
    containersOf(pod).some((c) => (c.securityContext?.runAsUser ?? pod.spec?.securityContext?.runAsUser) !== undefined)
  )
    gaps.push('runAsUser (the agent is not root)');
  const memoryVolumes = (pod.spec?.volumes ?? [])
    .filter((v) => v.emptyDir?.medium === 'Memory' || v.emptyDir?.sizeLimit !== undefined)
    .map((v) => v.name);
  if (memoryVolumes.length > 0)
    gaps.push(`emptyDir medium and sizeLimit (${memoryVolumes.join(', ')}: plain directories on disk)`);
  return gaps;
}

export function unenforced(pod: V1Pod, abilities: Abilities): Unenforced[] {
  const limits = limitGaps(pod, abilities);
  const security = securityGaps(pod);
  const isolation = isolationGaps(pod, abilities);
  return [
    ...(limits.length === 0
      ? []
      : [
          {
            reason: 'LimitsNotEnforced' as const,
            message: `resource limits not enforced on this node: ${limits.join('; ')}`,
          },
        ]),
    ...(security.length === 0
      ? []
      : [
          {
            reason: 'SecurityNotEnforced' as const,
            message: `not enforced by the local runtime: ${security.join(', ')}`,
          },
        ]),
    ...(isolation.length === 0
      ? []
      : [{ reason: 'IsolationNotEnforced' as const, message: `not provided on this node: ${isolation.join('; ')}` }]),
  ];
}

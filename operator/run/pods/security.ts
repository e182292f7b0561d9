/**
 * The security settings of a step Pod. By default (`restricted`) they meet the Pod Security
 * Standard of that name, so runs work in namespaces that enforce it: a non-root uid (also the
 * group and fsGroup, so the workspace is writable), no privilege escalation, every capability
 * dropped, the runtime's default seccomp profile. The user the Pod must run as (the DAG-level
 * `container.user`, for the run's container Pod) and the DAG's `kubernetes` security contexts
 * are laid over the defaults and win. Pure.
 */
import type { V1PodSecurityContext, V1SecurityContext } from '@kubernetes/client-node';
import { mergeMappings, type KubernetesSettings } from '../../../core/dag/index.ts';
import type { StepDefaults } from '../../config.ts';

/** A uid, and a gid with it, that a Pod must run as. */
export interface RunAs {
  readonly runAsUser: number;
  readonly runAsGroup?: number;
}

export interface SecurityContexts {
  readonly pod?: V1PodSecurityContext;
  readonly container?: V1SecurityContext;
}

type Plain = Readonly<Record<string, unknown>>;

function restrictedDefaults(user: number): { pod: Plain; container: Plain } {
  return {
    // OnRootMismatch: ownership is fixed once, not walked through the whole volume at every start.
    pod: {
      runAsNonRoot: true,
      runAsUser: user,
      runAsGroup: user,
      fsGroup: user,
      fsGroupChangePolicy: 'OnRootMismatch',
      seccompProfile: { type: 'RuntimeDefault' },
    },
    container: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
  };
}

const nonEmpty = <T extends Plain>(value: T): T | undefined => (Object.keys(value).length === 0 ? undefined : value);

export function securityContexts(
  defaults: Pick<StepDefaults, 'security' | 'user'>,
  user: RunAs | undefined,
  settings: KubernetesSettings | undefined,
): SecurityContexts {
  const base = defaults.security === 'restricted' ? restrictedDefaults(defaults.user) : { pod: {}, container: {} };
  const podOwn: Plain = settings?.podSecurityContext ?? {};
  const containerOwn: Plain = settings?.securityContext ?? {};
  const pod: Record<string, unknown> = { ...mergeMappings(mergeMappings(base.pod, { ...user }), podOwn) };
  const container = mergeMappings(base.container, containerOwn);
  // A DAG that runs as root on purpose relaxes runAsNonRoot, unless it asked for that too.
  const uid = container.runAsUser ?? pod.runAsUser;
  const askedNonRoot = 'runAsNonRoot' in podOwn || 'runAsNonRoot' in containerOwn;
  if (uid === 0 && !askedNonRoot) delete pod.runAsNonRoot;
  const podContext = nonEmpty(pod);
  const containerContext = nonEmpty(container);
  return {
    ...(podContext === undefined ? {} : { pod: podContext }),
    ...(containerContext === undefined ? {} : { container: containerContext }),
  };
}

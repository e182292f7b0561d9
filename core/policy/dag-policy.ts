/**
 * Whether a DAG asks of its Pods more than its namespace's pod policy allows: its `kubernetes`
 * blocks (DAG level, each step's, a kubernetes executor's settings, which core/dag has merged
 * into the step's), its `container` and the service accounts it names. The same function
 * decides for the DAG's status, `kubedag validate --policy`, the API server's validate and
 * create routes and the operator before a run creates anything, so all of them say the same
 * thing. Each problem names the DAG's field and the level. Pure.
 *
 * The DAG's settings are laid over the restricted defaults step Pods get from the operator
 * (operator/run/pods/security.ts with step-security `restricted`, the default), so a DAG that says
 * nothing passes `restricted`. An operator started with step-security `none` under a
 * `restricted` namespace is caught by the check of the built Pod (operator/run/shared/pod-writer.ts).
 */
import type { V1PodSecurityContext, V1SecurityContext } from '@kubernetes/client-node';
import { mergeMappings, type Dag, type KubernetesSettings } from '../dag/index.ts';
import { podViolations, type PodShape, type PolicyLevel } from './pod-standards.ts';
import { ALLOW_RUNS_LABEL } from './namespace.ts';

export interface PolicyContext {
  readonly level: PolicyLevel;
  readonly namespace: string;
  /**
   * Service accounts of the namespace allowed for Kubedag runs; undefined when unknown (a
   * check without a cluster), which leaves service accounts unchecked.
   */
  readonly serviceAccounts?: ReadonlySet<string>;
}

/** What the operator's restricted step defaults add (operator/run/pods/security.ts), with a non-root uid. */
const RESTRICTED_POD: V1PodSecurityContext = { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };
const RESTRICTED_CONTAINER: V1SecurityContext = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };

/** The Pod spec's fields, as the `kubernetes` block spells them. */
const DAG_FIELDS: readonly (readonly [string, string])[] = [
  ['spec.containers[step].securityContext', 'kubernetes.securityContext'],
  ['spec.securityContext', 'kubernetes.podSecurityContext'],
  ['spec.volumes', 'kubernetes.volumes'],
  ['metadata.annotations', 'kubernetes.annotations'],
  ['spec.', 'kubernetes.'],
];

const dagField = (field: string): string => {
  const pair = DAG_FIELDS.find(([pod]) => field.startsWith(pod));
  return pair === undefined ? field : pair[1] + field.slice(pair[0].length);
};

/** The Pod the operator builds from a block, as far as the standard looks: security contexts over the defaults, volumes, annotations. */
function podOf(settings: KubernetesSettings, restricted: boolean): PodShape {
  const podOwn: Record<string, unknown> = { ...settings.podSecurityContext };
  const containerOwn: Record<string, unknown> = { ...settings.securityContext };
  const pod: Record<string, unknown> = { ...mergeMappings(restricted ? { ...RESTRICTED_POD } : {}, podOwn) };
  const container = mergeMappings(restricted ? { ...RESTRICTED_CONTAINER } : {}, containerOwn);
  // Root by the DAG's own wish: security.ts drops runAsNonRoot then, so must the check.
  const uid = container.runAsUser ?? pod.runAsUser;
  if (uid === 0 && !('runAsNonRoot' in podOwn) && !('runAsNonRoot' in containerOwn)) delete pod.runAsNonRoot;
  const spec = {
    securityContext: pod as V1PodSecurityContext,
    volumes: [...(settings.volumes ?? [])],
    containers: [{ name: 'step', securityContext: container as V1SecurityContext }],
  };
  return { spec, ...(settings.annotations === undefined ? {} : { annotations: settings.annotations }) };
}

/** The policy's verdict on one `kubernetes` block: a line per field, by field. */
function settingsProblems(settings: KubernetesSettings | undefined, context: PolicyContext): Map<string, string> {
  const found = new Map<string, string>();
  if (settings === undefined) return found;
  for (const v of podViolations(podOf(settings, context.level === 'restricted'), context.level)) {
    const field = dagField(v.field);
    if (!found.has(field)) found.set(field, `${field}: ${v.problem} under pod policy "${context.level}"`);
  }
  const account = settings.serviceAccountName;
  if (account !== undefined && context.serviceAccounts !== undefined && !context.serviceAccounts.has(account)) {
    found.set(
      'kubernetes.serviceAccountName',
      `kubernetes.serviceAccountName: "${account}" is not allowed for Kubedag runs in namespace "${context.namespace}" (an administrator labels the ServiceAccount ${ALLOW_RUNS_LABEL}=true)`,
    );
  }
  return found;
}

/** A DAG-level `container.user` of uid 0: the run's container Pod runs as root. */
function containerProblems(dag: Dag, context: PolicyContext): string[] {
  if (context.level !== 'restricted') return [];
  const user = dag.container?.user;
  const uid = typeof user === 'number' ? user : typeof user === 'string' ? /^(\d+)/.exec(user)?.[1] : undefined;
  return uid !== undefined && Number(uid) === 0
    ? [`container.user: 0 (root) is not allowed under pod policy "restricted"`]
    : [];
}

/**
 * What the DAG asks that its namespace's policy refuses, one line each; empty when it may run.
 * A DAG-level setting is reported once, not again for every step that inherits it.
 */
export function dagPolicyProblems(dag: Dag, context: PolicyContext): string[] {
  if (context.level === 'privileged' && context.serviceAccounts === undefined) return [];
  const dagLevel = settingsProblems(dag.kubernetes, context);
  const problems = [...dagLevel.values(), ...containerProblems(dag, context)];
  for (const step of [...dag.steps, ...Object.values(dag.handlerOn)]) {
    for (const [field, problem] of settingsProblems(step.kubernetes, context)) {
      if (dagLevel.get(field) !== problem) problems.push(`step ${step.name}: ${problem}`);
    }
  }
  return problems;
}

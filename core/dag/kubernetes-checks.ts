/**
 * Checks of each value of a normalised kubernetes block on its own, with Kubernetes' rules,
 * so that a DAG that loads gives Pods the API server accepts. Rules that need two settings
 * together, possibly from different levels, are in kubernetes-rules.ts.
 */
import {
  configKeyProblem,
  dnsLabelProblem,
  dnsSubdomainProblem,
  envNameProblem,
  isReservedKey,
  labelValueProblem,
  qualifiedNameProblem,
} from './kube-names.ts';
import type { KubeEnvVar, KubeResources, KubernetesSettings } from './kubernetes-model.ts';
import { affinityProblems, nodeSelectorProblems, tolerationProblems } from './kubernetes-placement-checks.ts';
import { mountProblems, volumeProblems } from './kubernetes-volume-checks.ts';
import { childPath, eachItem, issue, issueIf, type DagIssue } from './issues.ts';
import { isNegative, isWhole, parseQuantity } from './quantity.ts';

/** Kubernetes' limit on all annotations of one object together. */
const MAX_ANNOTATIONS_BYTES = 256 * 1024;

export function checkSettings(settings: KubernetesSettings, path: string): DagIssue[] {
  const at = (key: string): string => childPath(path, key);
  return [
    ...textProblems(settings, path),
    ...eachItem(settings.imagePullSecrets, at('imagePullSecrets'), (name, p) => issueIf(p, dnsSubdomainProblem(name))),
    ...eachItem(settings.env, at('env'), envVarProblems),
    ...eachItem(settings.envFrom, at('envFrom'), (source, p) => envFromProblems(source, p)),
    ...resourceProblems(settings.resources, at('resources')),
    ...nodeSelectorProblems(settings.nodeSelector, at('nodeSelector')),
    ...eachItem(settings.tolerations, at('tolerations'), tolerationProblems),
    ...affinityProblems(settings.affinity, at('affinity')),
    ...securityProblems(settings, path),
    ...metadataProblems(settings.labels, at('labels'), labelValueProblem),
    ...metadataProblems(settings.annotations, at('annotations'), () => undefined),
    ...annotationSizeProblems(settings.annotations, at('annotations')),
    ...volumeProblems(settings.volumes, at('volumes')),
    ...mountProblems(settings.volumeMounts, at('volumeMounts')),
  ];
}

/** Single texts: present ones must be usable as written. */
function textProblems(settings: KubernetesSettings, path: string): DagIssue[] {
  const at = (key: string): string => childPath(path, key);
  const { image, workingDir, serviceAccountName, priorityClassName, namespace } = settings;
  return [
    ...issueIf(
      at('image'),
      image === '' ? 'is empty' : image !== undefined && /\s/.test(image) ? `"${image}" holds white space` : undefined,
    ),
    ...issueIf(at('workingDir'), workingDir?.trim() === '' ? 'is empty' : undefined),
    ...issueIf(
      at('serviceAccountName'),
      serviceAccountName === undefined ? undefined : dnsSubdomainProblem(serviceAccountName),
    ),
    ...issueIf(
      at('priorityClassName'),
      priorityClassName === undefined ? undefined : dnsSubdomainProblem(priorityClassName),
    ),
    ...issueIf(at('namespace'), namespace === undefined ? undefined : dnsLabelProblem(namespace)),
  ];
}

/** The Pod fields an environment variable may read (the downward API for env). */
const FIELD_PATH =
  /^(metadata\.(name|namespace|uid)|metadata\.(labels|annotations)\['[^']+'\]|spec\.(nodeName|serviceAccountName)|status\.(hostIP|hostIPs|podIP|podIPs))$/;

function envVarProblems(variable: KubeEnvVar, path: string): DagIssue[] {
  const problems = issueIf(childPath(path, 'name'), envNameProblem(variable.name));
  const from = variable.valueFrom;
  if (from === undefined) return problems;
  if (variable.value !== undefined) problems.push(issue(path, 'set value or valueFrom, not both'));
  const at = childPath(path, 'valueFrom');
  const sources = Object.keys(from);
  if (sources.length !== 1)
    return [...problems, issue(at, 'needs exactly one of secretKeyRef, configMapKeyRef and fieldRef')];
  const ref = from.secretKeyRef ?? from.configMapKeyRef;
  if (ref !== undefined) {
    const refPath = childPath(at, sources[0] ?? '');
    problems.push(
      ...issueIf(childPath(refPath, 'name'), dnsSubdomainProblem(ref.name ?? '')),
      ...issueIf(childPath(refPath, 'key'), configKeyProblem(ref.key)),
    );
  }
  const fieldPath = from.fieldRef?.fieldPath;
  if (fieldPath !== undefined && !FIELD_PATH.test(fieldPath)) {
    problems.push(
      issue(
        childPath(childPath(at, 'fieldRef'), 'fieldPath'),
        `"${fieldPath}" is not a Pod field an environment variable can read (metadata.name, metadata.namespace, metadata.uid, metadata.labels['<key>'], metadata.annotations['<key>'], spec.nodeName, spec.serviceAccountName, status.hostIP, status.hostIPs, status.podIP, status.podIPs)`,
      ),
    );
  }
  return problems;
}

function envFromProblems(source: NonNullable<KubernetesSettings['envFrom']>[number], path: string): DagIssue[] {
  const refs = (['secretRef', 'configMapRef'] as const).filter((key) => source[key] !== undefined);
  if (refs.length !== 1) return [issue(path, 'needs exactly one of secretRef and configMapRef')];
  const key = refs[0] ?? 'secretRef';
  const prefix = source.prefix;
  return [
    ...issueIf(childPath(childPath(path, key), 'name'), dnsSubdomainProblem(source[key]?.name ?? '')),
    ...issueIf(childPath(path, 'prefix'), prefix === undefined || prefix === '' ? undefined : envNameProblem(prefix)),
  ];
}

const STANDARD_RESOURCES = ['cpu', 'memory', 'ephemeral-storage'];

/** Resources a container may name: the standard ones, hugepages of a size, or extended ones. */
export function resourceNameProblem(name: string): string | undefined {
  if (STANDARD_RESOURCES.includes(name)) return undefined;
  if (name.startsWith('hugepages-') && typeof parseQuantity(name.slice('hugepages-'.length)) !== 'string')
    return undefined;
  if (isExtendedResource(name) && qualifiedNameProblem(name) === undefined) return undefined;
  return `"${name}" is not a container resource: cpu, memory, ephemeral-storage, hugepages-<size>, or an extended resource with a domain such as nvidia.com/gpu`;
}

/** Device plugins' resources (`nvidia.com/gpu`): a domain that is not Kubernetes' own. */
export function isExtendedResource(name: string): boolean {
  const domain = name.includes('/') ? (name.split('/')[0] ?? '') : undefined;
  return domain !== undefined && domain !== 'kubernetes.io' && !domain.endsWith('.kubernetes.io');
}

/** Resources Kubernetes never overcommits: a request must equal the limit. */
export function isExclusiveResource(name: string): boolean {
  return isExtendedResource(name) || name.startsWith('hugepages-');
}

function resourceProblems(resources: KubeResources | undefined, path: string): DagIssue[] {
  return (['requests', 'limits'] as const).flatMap((kind) =>
    Object.entries(resources?.[kind] ?? {}).flatMap(([name, text]) => {
      const at = childPath(childPath(path, kind), name);
      const nameProblem = resourceNameProblem(name);
      if (nameProblem !== undefined) return [issue(at, nameProblem)];
      const value = parseQuantity(text);
      if (typeof value === 'string') return [issue(at, value)];
      if (isNegative(value)) return [issue(at, 'must not be negative')];
      return issueIf(
        at,
        isExtendedResource(name) && !isWhole(value) ? `must be a whole number: ${name} is counted in units` : undefined,
      );
    }),
  );
}

function securityProblems(settings: KubernetesSettings, path: string): DagIssue[] {
  const seccomp = (profile: { type: string; localhostProfile?: string } | undefined, at: string): DagIssue[] => {
    if (profile === undefined) return [];
    const local = profile.localhostProfile;
    if (profile.type === 'Localhost')
      return issueIf(
        childPath(at, 'localhostProfile'),
        local === undefined || local.trim() === '' ? 'is required when type is Localhost' : undefined,
      );
    return issueIf(
      childPath(at, 'localhostProfile'),
      local === undefined ? undefined : 'applies to type Localhost only',
    );
  };
  const container = childPath(path, 'securityContext');
  const pod = childPath(path, 'podSecurityContext');
  const capabilities = settings.securityContext?.capabilities;
  return [
    ...(['add', 'drop'] as const).flatMap((kind) =>
      eachItem(capabilities?.[kind], childPath(childPath(container, 'capabilities'), kind), (name, at) =>
        issueIf(at, name.trim() === '' ? 'is empty' : undefined),
      ),
    ),
    ...seccomp(settings.securityContext?.seccompProfile, childPath(container, 'seccompProfile')),
    ...seccomp(settings.podSecurityContext?.seccompProfile, childPath(pod, 'seccompProfile')),
    ...eachItem(settings.podSecurityContext?.sysctls, childPath(pod, 'sysctls'), (sysctl, at) => [
      ...issueIf(childPath(at, 'name'), sysctl.name.trim() === '' ? 'is empty' : undefined),
      ...issueIf(childPath(at, 'value'), sysctl.value.trim() === '' ? 'is empty' : undefined),
    ]),
  ];
}

/** Label and annotation keys follow one rule; label values another; Kubedag's keys are its own. */
function metadataProblems(
  map: Readonly<Record<string, string>> | undefined,
  path: string,
  valueProblem: (value: string) => string | undefined,
): DagIssue[] {
  return Object.entries(map ?? {}).flatMap(([key, value]) => {
    const at = childPath(path, key);
    if (isReservedKey(key)) return [issue(at, 'keys under kubedag.io/ are set by Kubedag itself')];
    return [...issueIf(at, qualifiedNameProblem(key)), ...issueIf(at, valueProblem(value))];
  });
}

function annotationSizeProblems(annotations: Readonly<Record<string, string>> | undefined, path: string): DagIssue[] {
  const bytes = Object.entries(annotations ?? {}).reduce(
    (sum, [key, value]) => sum + Buffer.byteLength(key) + Buffer.byteLength(value),
    0,
  );
  return issueIf(
    path,
    bytes > MAX_ANNOTATIONS_BYTES
      ? `hold ${bytes} bytes; Kubernetes allows at most ${MAX_ANNOTATIONS_BYTES} in all annotations of a Pod`
      : undefined,
  );
}

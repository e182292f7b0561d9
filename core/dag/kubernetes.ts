/**
 * A shape-checked `kubernetes` block into KubernetesSettings: YAML scalars become the text
 * Kubernetes wants, Dagu's spellings of values become Kubernetes' own, and Dagu's keys that
 * have no meaning for a Pod per attempt are refused with the reason (or accepted with the one
 * value that is what Kubedag does anyway). Each value is then checked (kubernetes-checks.ts).
 */
import { checkSettings } from './kubernetes-checks.ts';
import {
  IMAGE_PULL_POLICIES,
  type ImagePullPolicy,
  type KubernetesSettings,
  type WorkspaceSettings,
} from './kubernetes-model.ts';
import type { DagKubernetesFile, KubernetesFile } from './kubernetes-schema.ts';
import { childPath, issue, type DagIssue, type Diagnostics } from './issues.ts';
import { parseQuantity, quantityText } from './quantity.ts';

type Scalar = string | number | boolean;

/** Normalises one block (DAG or step level; the workspace is read by workspaceFromFile). */
export function kubernetesFromFile(
  input: KubernetesFile | DagKubernetesFile,
  path: string,
  errors: DagIssue[],
): KubernetesSettings {
  const { kubeconfig, context, cleanupPolicy, backoffLimit, ttlAfterFinished, podFailurePolicy, workspace, ...rest } =
    input;
  // Refused keys get their refusal alone; the workspace is plain text too.
  errors.push(...daguOnlyProblems(input, path), ...variableProblems({ ...rest, workspace }, path));
  const settings = withoutUndefined({
    ...rest,
    image: rest.image?.trim(),
    imagePullPolicy:
      rest.imagePullPolicy === undefined
        ? undefined
        : pullPolicyOf(rest.imagePullPolicy, childPath(path, 'imagePullPolicy'), errors),
    imagePullSecrets: rest.imagePullSecrets?.map((secret) => (typeof secret === 'string' ? secret : secret.name)),
    env: rest.env?.map(({ value, ...variable }) =>
      value === undefined ? variable : { ...variable, value: String(value) },
    ),
    resources:
      rest.resources &&
      withoutUndefined({ requests: quantities(rest.resources.requests), limits: quantities(rest.resources.limits) }),
    nodeSelector: texts(rest.nodeSelector),
    labels: texts(rest.labels),
    annotations: texts(rest.annotations),
    volumes: rest.volumes?.map((volume) => {
      const sizeLimit = volume.emptyDir?.sizeLimit;
      return sizeLimit === undefined
        ? volume
        : { ...volume, emptyDir: { ...volume.emptyDir, sizeLimit: quantityText(sizeLimit) } };
    }),
    // 0 is Dagu's "no deadline"; Kubernetes wants a deadline to be positive or absent.
    activeDeadlineSeconds: rest.activeDeadlineSeconds === 0 ? undefined : rest.activeDeadlineSeconds,
  }) as KubernetesSettings;
  errors.push(...checkSettings(settings, path));
  return settings;
}

/** `workspace: false`, `true`, or its settings; an absent workspace is left to the operator. */
export function workspaceFromFile(
  input: DagKubernetesFile['workspace'],
  path: string,
  diagnostics: Diagnostics,
): WorkspaceSettings | undefined {
  if (input === undefined) return undefined;
  if (typeof input === 'boolean') return { enabled: input };
  const size = input.size === undefined ? undefined : quantityText(input.size);
  if (size !== undefined) {
    const value = parseQuantity(size);
    if (typeof value === 'string') diagnostics.errors.push(issue(childPath(path, 'size'), value));
    else if (value.numerator <= 0n) diagnostics.errors.push(issue(childPath(path, 'size'), 'must be more than 0'));
  }
  if (input.storageClassName?.trim() === '')
    diagnostics.errors.push(issue(childPath(path, 'storageClassName'), 'is empty'));
  const settings = withoutUndefined({
    enabled: input.enabled ?? true,
    storageClassName: input.storageClassName,
    size,
    accessMode: input.accessMode,
  });
  if (!settings.enabled && Object.keys(settings).length > 1) {
    diagnostics.warnings.push(
      issue(path, 'the workspace is disabled (enabled: false), so its other settings have no effect'),
    );
  }
  return settings;
}

/** Dagu compares pull policies without case; Kubernetes wants its own spelling. */
function pullPolicyOf(written: string, path: string, errors: DagIssue[]): ImagePullPolicy | undefined {
  const word = written.trim().toLowerCase();
  const policy = IMAGE_PULL_POLICIES.find((p) => p.toLowerCase() === word);
  if (policy !== undefined) return policy;
  const hint: Readonly<Record<string, string>> = {
    missing: '; "missing" is the container block\'s word, Kubernetes says IfNotPresent',
    fallback: '; Kubernetes has no "pull, else use a local image" policy',
  };
  errors.push(issue(path, `must be Always, IfNotPresent or Never, not ${JSON.stringify(written)}${hint[word] ?? ''}`));
  return undefined;
}

/**
 * Dagu's executor runs a Job in a cluster of its choice; a Kubedag step is a Pod per attempt
 * in the operator's cluster. Keys that only mean something for the former are refused, except
 * where the one accepted value is what Kubedag does anyway.
 */
function daguOnlyProblems(input: KubernetesFile | DagKubernetesFile, path: string): DagIssue[] {
  const at = (key: string): string => childPath(path, key);
  const problems: DagIssue[] = [];
  const otherCluster = 'step Pods run in the cluster of the operator, with its own credentials; remove it';
  if (input.kubeconfig !== undefined) problems.push(issue(at('kubeconfig'), otherCluster));
  if (input.context !== undefined) problems.push(issue(at('context'), otherCluster));
  if (input.cleanupPolicy !== undefined && input.cleanupPolicy.trim().toLowerCase() !== 'delete') {
    problems.push(
      issue(at('cleanupPolicy'), 'only "delete" is possible: a step Pod is deleted once its logs are archived'),
    );
  }
  if (input.backoffLimit !== undefined && input.backoffLimit !== 0) {
    problems.push(
      issue(at('backoffLimit'), 'only 0 is possible: each attempt is one Pod; use retryPolicy to run a step again'),
    );
  }
  if (input.ttlAfterFinished !== undefined)
    problems.push(
      issue(
        at('ttlAfterFinished'),
        'finished step Pods are deleted once their logs are archived, and runs after histRetentionDays; remove it',
      ),
    );
  if (input.podFailurePolicy !== undefined)
    problems.push(issue(at('podFailurePolicy'), 'a step Pod is not a Job; use retryPolicy and continueOn'));
  return problems;
}

/**
 * The block describes the Pod and goes into it as written; nothing expands `${...}` there, so
 * a reference would reach Kubernetes as literal text. Refusing it says so at once.
 */
function variableProblems(value: unknown, path: string): DagIssue[] {
  if (typeof value === 'string') {
    return value.includes('${')
      ? [
          issue(
            path,
            'variables (${...}) are not expanded in the kubernetes block: its values go into the Pod as written',
          ),
        ]
      : [];
  }
  if (Array.isArray(value)) return value.flatMap((item: unknown, i) => variableProblems(item, childPath(path, i)));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) => variableProblems(item, childPath(path, key)));
}

function texts(map: Readonly<Record<string, Scalar>> | undefined): Record<string, string> | undefined {
  return map && Object.fromEntries(Object.entries(map).map(([key, value]) => [key, String(value)]));
}

function quantities(map: Readonly<Record<string, string | number>> | undefined): Record<string, string> | undefined {
  return map && Object.fromEntries(Object.entries(map).map(([key, value]) => [key, quantityText(value)]));
}

function withoutUndefined<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}

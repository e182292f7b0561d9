import { createHash } from 'node:crypto';

/** The API's `{fileName}` rule. */
export const FILE_NAME_PATTERN = /^[a-zA-Z0-9_-]+$/;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
/** Resource names stay within a DNS label so they also fit label values and derived names. */
export const MAX_RESOURCE_NAME_LENGTH = 63;
const HASH_LENGTH = 8;

/**
 * The DAG resource name for a file name: the file name itself when it already is a valid
 * DNS-1123 label, else a lower-cased form with `_` turned into `-` plus a short hash of the
 * original, so that `My_Dag` and `my-dag` never collide.
 */
export function dagResourceName(fileName: string): string {
  if (DNS_LABEL.test(fileName) && fileName.length <= MAX_RESOURCE_NAME_LENGTH) return fileName;
  const hash = createHash('sha256').update(fileName).digest('hex').slice(0, HASH_LENGTH);
  const base = fileName
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_RESOURCE_NAME_LENGTH - HASH_LENGTH - 1)
    .replace(/-+$/, '');
  return base === '' ? `dag-${hash}` : `${base}-${hash}`;
}

/** Whether a text may be used as a Kubernetes label value as it is. */
export function isLabelValue(value: string): boolean {
  return value.length <= 63 && LABEL_VALUE.test(value);
}

/** A file path's DAG file name: the base name without its last extension. */
export function fileNameOf(path: string): string {
  const base = path.split(/[\\/]/).pop() ?? path;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

function hash(text: string, length: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** `<readable prefix>-<hash>` within 63 characters, the hash taken over every part exactly. */
function derivedName(parts: readonly string[], hashLength = 10): string {
  const suffix = hash(parts.join('\u0000'), hashLength);
  const readable = parts
    .map(slug)
    .filter((p) => p !== '')
    .join('-');
  const prefix = readable.slice(0, MAX_RESOURCE_NAME_LENGTH - hashLength - 1).replace(/-+$/, '');
  return prefix === '' ? `kd-${suffix}` : `${prefix}-${suffix}`;
}

/**
 * The DAGRun resource name for (DAG name, run id): deterministic, so a second run with the
 * same id finds the first (already exists) instead of starting twice.
 */
export function dagRunResourceName(dagName: string, runId: string): string {
  return derivedName([dagName, runId]);
}

/** The Pod of one attempt of one step (or handler) of a run. */
export function stepPodName(runResourceName: string, stepName: string, attempt: number): string {
  return derivedName([runResourceName, stepName, String(attempt)]);
}

/** The Secret holding a run's resolved secrets (DAG `secrets`), owned by the run. */
export function runSecretName(runResourceName: string): string {
  return derivedName([runResourceName, 'secrets']);
}

/** The PersistentVolumeClaim of a run's workspace, owned by the run. */
export function workspaceClaimName(runResourceName: string): string {
  return derivedName([runResourceName, 'workspace']);
}

/** The image pull Secret (dockerconfigjson) built from a DAG's `registryAuths`, owned by the run. */
export function registrySecretName(runResourceName: string): string {
  return derivedName([runResourceName, 'registry']);
}

/** The ServiceAccount, and its RoleBinding, of a run's steps that exec into containers; owned by the run. */
export function execServiceAccountName(runResourceName: string): string {
  return derivedName([runResourceName, 'exec']);
}

/** The Pod of a run's DAG-level `container`, which its steps exec into; owned by the run. */
export function sharedContainerPodName(runResourceName: string): string {
  return derivedName([runResourceName, 'container']);
}

/** A sealed batch of a run's finished step records (a DAGRunSegment), owned by the run. */
export function stepSegmentName(runResourceName: string, index: number): string {
  return derivedName([runResourceName, 'steps', String(index)]);
}

/** The DAGRunSegment holding a run's frozen definition, owned by the run. */
export function definitionSegmentName(runResourceName: string): string {
  return derivedName([runResourceName, 'definition']);
}

/** A label value for any text: the text itself when Kubernetes accepts it, else a derived one. */
export function labelValue(text: string): string {
  return isLabelValue(text) ? text : derivedName([text], 10);
}

/**
 * Docker's container settings that have a Kubernetes form in a step Pod, read alike from a
 * Dagu 2.x step `container:` (dialect-container.ts) and the docker executor's 1.x keys
 * (docker-settings.ts): the pull policy, a numeric user and the platform.
 */
import { issue, type DagIssue } from './issues.ts';

type Mapping = Record<string, unknown>;

/** Dagu's pull policies (exact words, then Go's boolean words) as Kubernetes spells them. */
const PULL: Readonly<Record<string, string>> = {
  always: 'Always',
  missing: 'IfNotPresent',
  never: 'Never',
  ...Object.fromEntries(['1', 't', 'T', 'TRUE', 'true', 'True'].map((word) => [word, 'Always'])),
  ...Object.fromEntries(['0', 'f', 'F', 'FALSE', 'false', 'False'].map((word) => [word, 'Never'])),
};

export function pullPolicy(value: unknown, at: string, errors: DagIssue[]): string | undefined {
  if (value === undefined) return undefined;
  const policy = PULL[scalar(value) ?? ''];
  if (policy === undefined)
    errors.push(
      issue(
        at,
        `must be always, missing, never or a boolean, not ${JSON.stringify(value)}${value === 'fallback' ? ' (Kubernetes has no "pull, else use a local image" policy)' : ''}`,
      ),
    );
  return policy;
}

/** A numeric `uid` or `uid:gid` as the Pod's security context (Kubernetes has no user names). */
export function userIds(value: unknown, at: string, errors: DagIssue[]): Mapping | undefined {
  if (value === undefined) return undefined;
  const ids = /^(\d+)(?::(\d+))?$/.exec(scalar(value) ?? '');
  if (ids === null) {
    errors.push(issue(at, `${JSON.stringify(value)} must be a numeric uid or uid:gid on Kubernetes`));
    return undefined;
  }
  return { runAsUser: Number(ids[1]), ...(ids[2] === undefined ? {} : { runAsGroup: Number(ids[2]) }) };
}

/** `os` or `os/arch` as the node labels Kubernetes sets. */
export function nodeSelector(value: unknown, at: string, errors: DagIssue[]): Mapping | undefined {
  const written = scalar(value) ?? '';
  if (value === undefined || written === '') return undefined;
  const [os = '', arch, ...extra] = written.split('/');
  if (os === '' || extra.length > 0) {
    errors.push(issue(at, `${JSON.stringify(value)} must be os or os/arch (a variant cannot be chosen on Kubernetes)`));
    return undefined;
  }
  return { 'kubernetes.io/os': os, ...(arch === undefined ? {} : { 'kubernetes.io/arch': arch }) };
}

export function scalar(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : undefined;
}

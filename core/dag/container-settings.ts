/**
 * Docker's container settings that have a Kubernetes form in a step Pod, read alike from a
 * Dagu 2.x step `container:` (dialect-container.ts) and the docker executor's 1.x keys
 * (docker-settings.ts): the pull policy, a numeric user and the platform; and the one rule of
 * where those Pod settings may not meet the step's own.
 */
import { issue, type DagIssue } from './issues.ts';
import { labelValueProblem } from './kube-names.ts';

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
  // Checked here, where it was written, not later as the kubernetes block's nodeSelector it becomes.
  const problem = [os, arch].flatMap((part) => (part === undefined ? [] : [labelValueProblem(part)])).find(Boolean);
  if (problem !== undefined) {
    errors.push(issue(at, `${JSON.stringify(value)} must be os or os/arch, each a node label value: ${problem}`));
    return undefined;
  }
  return { 'kubernetes.io/os': os, ...(arch === undefined ? {} : { 'kubernetes.io/arch': arch }) };
}

export function scalar(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : undefined;
}

/**
 * Docker's `shell` ([/bin/bash, -o, errexit]): the words Dagu puts before `-c <command>`, so the
 * step's shell, which Kubedag's runner calls the same way. Dagu adds `-c` when it is missing,
 * so a last `-c` is dropped; a string is one word, as Dagu decodes it into the list.
 */
export function containerShell(value: unknown, at: string, errors: DagIssue[]): string[] | undefined {
  const words = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(words) || words.length === 0 || words.some((w) => typeof w !== 'string' || w.trim() === '')) {
    errors.push(issue(at, 'must be a list of words, such as [/bin/bash, -o, errexit]'));
    return undefined;
  }
  const spaced = (words as string[]).find((word) => /\s/.test(word.trim()));
  if (spaced !== undefined) {
    errors.push(
      issue(
        at,
        `${JSON.stringify(spaced)} is one word to Docker; write each word apart: [${spaced.trim().split(/\s+/).join(', ')}]`,
      ),
    );
    return undefined;
  }
  const trimmed = (words as string[]).map((word) => word.trim());
  const flag = trimmed.indexOf('-c');
  if (flag === 0) {
    errors.push(issue(at, 'must start with the shell program, such as /bin/bash'));
    return undefined;
  }
  if (flag !== -1 && flag !== trimmed.length - 1) {
    errors.push(issue(at, '-c must be the last word: the command follows it'));
    return undefined;
  }
  return flag === -1 ? trimmed : trimmed.slice(0, -1);
}

/** Container settings that became Pod settings, and what of the step's own they could clash with. */
export interface PodSettingsBeside {
  /** The Pod settings read from the container settings. */
  readonly pod: Mapping;
  /** Where the settings were written, and what the file calls them (`docker settings`, `container`). */
  readonly at: string;
  readonly what: string;
  /** Where the container's working directory was written, and its key as the file spells it. */
  readonly workingDirAt: string;
  readonly workingDirKey: string;
  /** The step's own working directory key as the file spells it, when the step sets one. */
  readonly stepWorkingDir?: string;
  readonly stepKubernetes: boolean;
}

/**
 * One source for each thing a step Pod is told: the container's working directory beside the
 * step's own, or the step's kubernetes block beside the container's Pod settings, is an error
 * at the key written, rather than one of the two silently winning.
 */
export function podSettingsClashes(beside: PodSettingsBeside): DagIssue[] {
  const { pod, at, what, workingDirAt, workingDirKey, stepWorkingDir, stepKubernetes } = beside;
  return [
    ...(pod.workingDir !== undefined && stepWorkingDir !== undefined
      ? [
          issue(
            workingDirAt,
            `the step's ${stepWorkingDir} and ${workingDirKey} both say where the command runs; use ${workingDirKey}`,
          ),
        ]
      : []),
    ...(Object.keys(pod).length > 0 && stepKubernetes
      ? [issue(at, `the step's kubernetes block and its ${what} both set the step Pod; use one of them`)]
      : []),
  ];
}

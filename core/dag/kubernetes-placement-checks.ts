/**
 * Checks of where a step Pod may run: nodeSelector, tolerations and affinity, with the rules
 * the API server applies (operators and their values, weights, label keys and values).
 */
import type {
  V1Affinity,
  V1LabelSelector,
  V1NodeSelectorRequirement,
  V1NodeSelectorTerm,
  V1PodAffinityTerm,
  V1Toleration,
} from '@kubernetes/client-node';
import { dnsLabelProblem, labelValueProblem, qualifiedNameProblem } from './kube-names.ts';
import { childPath, eachItem, issue, issueIf, type DagIssue } from './issues.ts';

export function nodeSelectorProblems(selector: Readonly<Record<string, string>> | undefined, path: string): DagIssue[] {
  return Object.entries(selector ?? {}).flatMap(([key, value]) => [
    ...issueIf(childPath(path, key), qualifiedNameProblem(key)),
    ...issueIf(childPath(path, key), labelValueProblem(value)),
  ]);
}

export function tolerationProblems(toleration: Readonly<V1Toleration>, path: string): DagIssue[] {
  const { key = '', operator = 'Equal', value, effect, tolerationSeconds } = toleration;
  const problems = key === '' ? [] : issueIf(childPath(path, 'key'), qualifiedNameProblem(key));
  if (key === '' && operator !== 'Exists')
    problems.push(issue(childPath(path, 'operator'), 'must be Exists when key is empty (that tolerates every taint)'));
  if (operator === 'Exists' && value !== undefined && value !== '')
    problems.push(issue(childPath(path, 'value'), 'must be empty with operator Exists'));
  if (operator === 'Equal' && value !== undefined)
    problems.push(...issueIf(childPath(path, 'value'), labelValueProblem(value)));
  if (tolerationSeconds !== undefined && effect !== 'NoExecute')
    problems.push(issue(childPath(path, 'tolerationSeconds'), 'applies to effect NoExecute only'));
  return problems;
}

export function affinityProblems(affinity: Readonly<V1Affinity> | undefined, path: string): DagIssue[] {
  if (affinity === undefined) return [];
  const node = affinity.nodeAffinity;
  const nodePath = childPath(path, 'nodeAffinity');
  const required = childPath(
    childPath(nodePath, 'requiredDuringSchedulingIgnoredDuringExecution'),
    'nodeSelectorTerms',
  );
  return [
    ...eachItem(node?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms, required, nodeTermProblems),
    ...eachItem(
      node?.preferredDuringSchedulingIgnoredDuringExecution,
      childPath(nodePath, 'preferredDuringSchedulingIgnoredDuringExecution'),
      (term, at) => nodeTermProblems(term.preference, childPath(at, 'preference')),
    ),
    ...(['podAffinity', 'podAntiAffinity'] as const).flatMap((kind) => {
      const rules = affinity[kind];
      const at = childPath(path, kind);
      return [
        ...eachItem(
          rules?.requiredDuringSchedulingIgnoredDuringExecution,
          childPath(at, 'requiredDuringSchedulingIgnoredDuringExecution'),
          podTermProblems,
        ),
        ...eachItem(
          rules?.preferredDuringSchedulingIgnoredDuringExecution,
          childPath(at, 'preferredDuringSchedulingIgnoredDuringExecution'),
          (term, p) => podTermProblems(term.podAffinityTerm, childPath(p, 'podAffinityTerm')),
        ),
      ];
    }),
  ];
}

function nodeTermProblems(term: V1NodeSelectorTerm, path: string): DagIssue[] {
  return [
    ...eachItem(term.matchExpressions, childPath(path, 'matchExpressions'), (requirement, at) =>
      requirementProblems(requirement, at, true),
    ),
    ...eachItem(term.matchFields, childPath(path, 'matchFields'), (requirement, at) =>
      requirementProblems(requirement, at, false),
    ),
  ];
}

/** In and NotIn need values, Exists and DoesNotExist none, Gt and Lt one integer. */
function requirementProblems(requirement: V1NodeSelectorRequirement, path: string, label: boolean): DagIssue[] {
  const { key, operator, values = [] } = requirement;
  const problems = label ? issueIf(childPath(path, 'key'), qualifiedNameProblem(key)) : [];
  const at = childPath(path, 'values');
  if (operator === 'In' || operator === 'NotIn') {
    if (values.length === 0) problems.push(issue(at, `needs at least one value with operator ${operator}`));
    if (label) problems.push(...eachItem(values, at, (value, p) => issueIf(p, labelValueProblem(value))));
  } else if (operator === 'Exists' || operator === 'DoesNotExist') {
    if (values.length > 0) problems.push(issue(at, `must be empty with operator ${operator}`));
  } else if (values.length !== 1 || !/^-?\d+$/.test(values[0] ?? '')) {
    problems.push(issue(at, `needs exactly one integer with operator ${operator}`));
  }
  return problems;
}

function podTermProblems(term: V1PodAffinityTerm, path: string): DagIssue[] {
  return [
    ...issueIf(
      childPath(path, 'topologyKey'),
      term.topologyKey.trim() === '' ? 'is empty' : qualifiedNameProblem(term.topologyKey),
    ),
    ...labelSelectorProblems(term.labelSelector, childPath(path, 'labelSelector')),
    ...labelSelectorProblems(term.namespaceSelector, childPath(path, 'namespaceSelector')),
    ...eachItem(term.namespaces, childPath(path, 'namespaces'), (namespace, at) =>
      issueIf(at, dnsLabelProblem(namespace)),
    ),
  ];
}

function labelSelectorProblems(selector: V1LabelSelector | undefined, path: string): DagIssue[] {
  if (selector === undefined) return [];
  return [
    ...nodeSelectorProblems(selector.matchLabels, childPath(path, 'matchLabels')),
    ...eachItem(selector.matchExpressions, childPath(path, 'matchExpressions'), (requirement, at) =>
      requirementProblems(requirement, at, true),
    ),
  ];
}

/**
 * Where a namespace's pod policy comes from: the operator's default (setting `pod-policy`,
 * chart value `podPolicy`), unless a cluster administrator labelled the namespace
 * `kubedag.io/pod-policy=<level>`, higher or lower. Labelling a namespace takes `patch
 * namespaces`, which no DAG author of a namespace has by being one, and nothing in a DAG
 * reaches it. Service accounts a DAG may name carry the label `kubedag.io/allow-runs=true`
 * (a label, not an annotation, so a watch can select just them). Pure.
 */
import { isPolicyLevel, type PolicyLevel } from './pod-standards.ts';

export const POLICY_LABEL = 'kubedag.io/pod-policy';
export const ALLOW_RUNS_LABEL = 'kubedag.io/allow-runs';

export interface NamespaceLevel {
  readonly level: PolicyLevel;
  /** Set when the label holds no level: the default applies and someone should hear of it. */
  readonly problem?: string;
}

export function namespaceLevel(
  labels: Readonly<Record<string, string>> | undefined,
  fallback: PolicyLevel,
): NamespaceLevel {
  const value = labels?.[POLICY_LABEL];
  if (value === undefined) return { level: fallback };
  if (isPolicyLevel(value)) return { level: value };
  // A typo must not raise the ceiling: the default holds, the most a typo can do is nothing.
  return {
    level: fallback,
    problem: `label ${POLICY_LABEL}="${value}" is none of privileged, baseline, restricted; the default "${fallback}" applies`,
  };
}

/**
 * Gathers what a pod policy decision needs of the cluster, from the operator's caches: the
 * namespace's level (its label kubedag.io/pod-policy, else the operator's `pod-policy`) and the
 * service accounts labelled kubedag.io/allow-runs=true. The decisions themselves are
 * core/policy's pure functions.
 */
import type { V1Namespace, V1ServiceAccount } from '@kubernetes/client-node';
import type { Informer } from '../core/kube/informer.ts';
import { namespaceLevel, type PolicyContext, type PolicyLevel } from '../core/policy/index.ts';

/** A namespace's policy as decisions take it. `problem`: its label is wrong, and the default applies. */
export type NamespacePolicy = PolicyContext & { readonly problem?: string };

export type PolicyOf = (namespace: string) => NamespacePolicy;

export function policySource(
  namespaces: Informer<V1Namespace>,
  accounts: Informer<V1ServiceAccount>,
  fallback: PolicyLevel,
): PolicyOf {
  return (namespace) => {
    const { level, problem } = namespaceLevel(namespaces.get(undefined, namespace)?.metadata?.labels, fallback);
    const serviceAccounts = new Set(
      accounts.list(namespace).flatMap((a) => (a.metadata?.name === undefined ? [] : [a.metadata.name])),
    );
    return { level, namespace, serviceAccounts, ...(problem === undefined ? {} : { problem }) };
  };
}

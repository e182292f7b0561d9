/**
 * The pod policy of the namespace the API server serves, so that it answers as the operator
 * will decide (core/policy, docs/pod-policy.md): POST /dags/validate, a DAG's create and spec
 * update, and inline runs refuse a DAG above it with 400 before anything is written. The
 * level is the namespace's label kubedag.io/pod-policy, read from the namespace (the chart
 * lets the API server get its own namespace and list its service accounts), else the
 * `pod-policy` setting, which the chart sets to the operator's. Reads are kept for a few
 * seconds: an administrator's change shows within that time, and a burst of requests costs
 * one read. Without permission to read, the setting holds and service accounts are left to
 * the operator, which refuses such runs anyway.
 */
import type { CoreV1Api } from '@kubernetes/client-node';
import type { Dag } from '../core/dag/index.ts';
import {
  ALLOW_RUNS_LABEL,
  dagPolicyProblems,
  namespaceLevel,
  type PolicyContext,
  type PolicyLevel,
} from '../core/policy/index.ts';
import { ApiError } from './errors.ts';

const KEEP_MS = 5_000;

export class NamespacePolicy {
  private readonly core: Pick<CoreV1Api, 'readNamespace' | 'listNamespacedServiceAccount'>;
  private readonly namespace: string;
  private readonly fallback: PolicyLevel;
  private readonly now: () => number;
  private kept: { readonly at: number; readonly context: Promise<PolicyContext> } | undefined;

  constructor(
    core: Pick<CoreV1Api, 'readNamespace' | 'listNamespacedServiceAccount'>,
    namespace: string,
    fallback: PolicyLevel,
    now: () => number = Date.now,
  ) {
    this.core = core;
    this.namespace = namespace;
    this.fallback = fallback;
    this.now = now;
  }

  /** The namespace's policy as decisions take it. */
  context(): Promise<PolicyContext> {
    const now = this.now();
    if (this.kept === undefined || now - this.kept.at > KEEP_MS) this.kept = { at: now, context: this.read() };
    return this.kept.context;
  }

  /** What the DAG asks above the namespace's policy; empty when it may run. */
  async problems(dag: Dag): Promise<string[]> {
    return dagPolicyProblems(dag, await this.context());
  }

  private async read(): Promise<PolicyContext> {
    const [labels, accounts] = await Promise.all([
      this.core.readNamespace({ name: this.namespace }).then(
        (n) => n.metadata?.labels ?? {},
        () => undefined,
      ),
      this.core
        .listNamespacedServiceAccount({ namespace: this.namespace, labelSelector: `${ALLOW_RUNS_LABEL}=true` })
        .then(
          (list) => new Set(list.items.flatMap((a) => (a.metadata?.name === undefined ? [] : [a.metadata.name]))),
          () => undefined,
        ),
    ]);
    return {
      level: namespaceLevel(labels, this.fallback).level,
      namespace: this.namespace,
      ...(accounts === undefined ? {} : { serviceAccounts: accounts }),
    };
  }
}

/** Refuses with 400, before anything is written, a DAG above the namespace's pod policy. */
export async function refuseAbovePolicy(policy: NamespacePolicy | undefined, dag: Dag): Promise<void> {
  const problems = policy === undefined ? [] : await policy.problems(dag);
  if (problems.length > 0) throw new ApiError('bad_request', `invalid spec: ${problems.join('; ')}`);
}

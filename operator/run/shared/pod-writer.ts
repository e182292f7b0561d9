/**
 * Every write the operator makes to step Pods and a run's Secrets, workspace claim and exec
 * ServiceAccount: create (a repeated create of
 * a deterministic name finds the first), stop without deleting, delete once. Shared by the run
 * controller (launch, stop) and the log archiver (delete after archiving, the run's Secret).
 */
import type {
  CoreV1Api,
  RbacAuthorizationV1Api,
  V1PersistentVolumeClaim,
  V1Pod,
  V1RoleBinding,
  V1Secret,
  V1ServiceAccount,
} from '@kubernetes/client-node';
import { ignoreAlreadyExists, ignoreNotFound } from '../../../core/kube/errors.ts';
import { describeViolations, podViolations, type PolicyLevel } from '../../../core/policy/index.ts';
import type { Informer } from '../../../core/kube/informer.ts';
import type { Clock } from '../../../core/kube/time.ts';
import type { CountWrite } from './status-writer.ts';

/** How long a deletion is remembered: the cache shows it long before, a lost event not much after. */
const DELETED_MEMORY_MS = 30_000;

export interface PodWriterDeps {
  readonly core: CoreV1Api;
  readonly rbac: RbacAuthorizationV1Api;
  readonly pods: Informer<V1Pod>;
  readonly clock: Clock;
  readonly countWrite: CountWrite;
  /** The pod policy level of a namespace (operator/policy.ts); every Pod is checked against it before it is created. */
  readonly levelOf?: (namespace: string) => PolicyLevel;
}

/**
 * A Pod above its namespace's pod policy, refused here as the API server refuses one that
 * Pod Security admission denies (403 Forbidden, the reason in the body), so every caller
 * treats it as that: refused for good, the attempt failed with the message.
 */
export class PodPolicyRefusal extends Error {
  readonly code = 403;
  readonly body: string;

  constructor(message: string) {
    super(message);
    this.name = 'PodPolicyRefusal';
    this.body = JSON.stringify({ kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403, message });
  }
}

export class PodWriter {
  private readonly deps: PodWriterDeps;
  /** Pods deleted here whose deletion the cache may not show yet, by key, with the time. */
  private readonly deleted = new Map<string, number>();

  constructor(deps: PodWriterDeps) {
    this.deps = deps;
  }

  async create(namespace: string, body: V1Pod): Promise<void> {
    // The DAG's own settings were checked when its run started (loaded-definitions.ts); this is
    // the last word on what is actually sent, whoever built it (step, container, prepare,
    // notify, telemetry Pods) and whatever the operator's step defaults.
    const level = this.deps.levelOf?.(namespace);
    const violations =
      level === undefined || body.spec === undefined
        ? []
        : podViolations(
            {
              spec: body.spec,
              ...(body.metadata?.annotations === undefined ? {} : { annotations: body.metadata.annotations }),
            },
            level,
          );
    if (level !== undefined && violations.length > 0) {
      throw new PodPolicyRefusal(
        `pods "${body.metadata?.name ?? ''}" is forbidden by Kubedag's pod policy "${level}" of namespace "${namespace}": ${describeViolations(violations, level).join('; ')}`,
      );
    }
    if ((await ignoreAlreadyExists(this.deps.core.createNamespacedPod({ namespace, body }))) !== undefined)
      this.deps.countWrite('create');
  }

  /** A run's workspace claim; a second create (after a crash) finds the first. */
  async createClaim(namespace: string, body: V1PersistentVolumeClaim): Promise<void> {
    if (
      (await ignoreAlreadyExists(this.deps.core.createNamespacedPersistentVolumeClaim({ namespace, body }))) !==
      undefined
    )
      this.deps.countWrite('create');
  }

  /** An immutable Secret; a second create (after a crash) finds the first. */
  async createSecret(namespace: string, body: V1Secret): Promise<void> {
    if ((await ignoreAlreadyExists(this.deps.core.createNamespacedSecret({ namespace, body }))) !== undefined)
      this.deps.countWrite('create');
  }

  /** A run's exec ServiceAccount; a second create (after a crash) finds the first. */
  async createServiceAccount(namespace: string, body: V1ServiceAccount): Promise<void> {
    if ((await ignoreAlreadyExists(this.deps.core.createNamespacedServiceAccount({ namespace, body }))) !== undefined)
      this.deps.countWrite('create');
  }

  /** The binding of a run's exec ServiceAccount to the exec role; a second create finds the first. */
  async createRoleBinding(namespace: string, body: V1RoleBinding): Promise<void> {
    if ((await ignoreAlreadyExists(this.deps.rbac.createNamespacedRoleBinding({ namespace, body }))) !== undefined)
      this.deps.countWrite('create');
  }

  /**
   * Stops a step Pod without deleting it: an `activeDeadlineSeconds` that has passed makes the
   * kubelet stop its containers gracefully (the grace period is the run's maxCleanUpTimeSec)
   * while the Pod and its log stay for archiving. A Pod that never started is just deleted.
   */
  async stop(namespace: string, name: string): Promise<void> {
    const pod = this.deps.pods.get(namespace, name);
    const started = pod?.status?.startTime;
    if (started === undefined) {
      await this.delete(namespace, name);
      return;
    }
    const elapsed = Math.max(1, Math.floor((this.deps.clock.now().getTime() - new Date(started).getTime()) / 1000));
    if (pod?.spec?.activeDeadlineSeconds !== undefined && pod.spec.activeDeadlineSeconds <= elapsed) return;
    await ignoreNotFound(
      this.deps.core.patchNamespacedPod({
        name,
        namespace,
        body: [{ op: 'add', path: '/spec/activeDeadlineSeconds', value: elapsed }],
      }),
    );
    this.deps.countWrite('patch');
  }

  /** A Pod as the cache shows it. */
  cached(namespace: string, name: string): V1Pod | undefined {
    return this.deps.pods.get(namespace, name);
  }

  /** Deletes a Pod once: a second call before the cache shows the deletion writes nothing. */
  async delete(namespace: string, name: string): Promise<void> {
    const key = `${namespace}/${name}`;
    const now = this.deps.clock.now().getTime();
    const at = this.deleted.get(key);
    if (at !== undefined && now - at < DELETED_MEMORY_MS) return;
    for (const [k, t] of this.deleted) if (now - t >= DELETED_MEMORY_MS) this.deleted.delete(k);
    if ((await ignoreNotFound(this.deps.core.deleteNamespacedPod({ name, namespace }))) !== undefined)
      this.deps.countWrite('delete');
    this.deleted.set(key, now);
  }
}

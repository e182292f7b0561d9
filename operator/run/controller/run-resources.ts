/**
 * The objects a run needs before its first step Pod: its workspace claim, its image pull
 * Secret, the ServiceAccount (bound to the exec role) of steps that exec into containers, and
 * the run's container Pod (DAG-level `container`). Created once per run and remembered by run
 * uid; after an operator restart a second create finds the first (AlreadyExists), so nothing
 * is made twice. All are owned by the run: they last through its retries and go with it
 * (garbage collection), by retention too; the container Pod goes when the run finishes
 * (container-cleanup.ts).
 */
import type { V1RoleBinding, V1Secret, V1ServiceAccount } from '@kubernetes/client-node';
import type { Dag } from '../../../core/dag/index.ts';
import { LABELS } from '../../../core/resources/constants.ts';
import {
  execServiceAccountName,
  labelValue,
  registrySecretName,
  sharedContainerPodName,
} from '../../../core/resources/names.ts';
import type { StepDefaults } from '../../config.ts';
import type { RunDefinition } from '../decide/run-definition.ts';
import type { PodWriter } from '../shared/pod-writer.ts';
import { ownerReference, type RunRef } from '../ref.ts';
import { execsIntoContainer } from '../pods/executor-spec.ts';
import { sharedContainerPod, type SharedContainer } from '../pods/shared-container.ts';
import { dockerConfigJson } from '../pods/registry-auths.ts';
import { variables } from '../decide/variables.ts';
import { runWorkspace, workspaceClaim, type Workspace } from '../pods/workspace.ts';

export interface RunObjectsOf {
  readonly workspace: Workspace | undefined;
  readonly registrySecret: string | undefined;
  /** Why `registryAuths` gave no Secret, for a warning Event: told once, when first made. */
  readonly registryError?: string;
}

export class RunObjects {
  private readonly pods: PodWriter;
  private readonly defaults: StepDefaults;
  /** What a run's Pods refer to, by run uid, once its objects exist: fixed for the run's life. */
  private readonly made = new Map<string, RunObjectsOf>();

  constructor(pods: PodWriter, defaults: StepDefaults) {
    this.pods = pods;
    this.defaults = defaults;
  }

  /** What a run's Pods refer to; created first when this operator has not made them yet. */
  async ensure(ref: RunRef, definition: RunDefinition): Promise<RunObjectsOf> {
    const known = this.made.get(ref.uid);
    if (known !== undefined) return known;
    const { dag } = definition;
    const workspace = runWorkspace(dag, this.defaults.workspace, ref.name);
    const config =
      dag.registryAuths === undefined ? undefined : dockerConfigJson(dag.registryAuths, variables(definition, {}));
    const registrySecret = config?.ok === true ? registrySecretName(ref.name) : undefined;
    if (workspace !== undefined)
      await this.pods.createClaim(ref.namespace, workspaceClaim(ref, workspace, ownerReference(ref)));
    if (config?.ok === true) await this.pods.createSecret(ref.namespace, pullSecret(ref, config.json));
    if (needsExecAccount(dag)) {
      await this.pods.createServiceAccount(ref.namespace, execAccount(ref));
      await this.pods.createRoleBinding(ref.namespace, execBinding(ref, this.defaults.execRole));
    }
    if (definition.container !== undefined)
      await this.createContainer(ref, definition, definition.container, { workspace, registrySecret });
    this.made.set(ref.uid, { workspace, registrySecret });
    return { workspace, registrySecret, ...(config?.ok === false ? { registryError: config.error } : {}) };
  }

  /** The run's container Pod, before any step execs into it. */
  private async createContainer(
    ref: RunRef,
    definition: RunDefinition,
    container: SharedContainer,
    made: Pick<RunObjectsOf, 'workspace' | 'registrySecret'>,
  ): Promise<void> {
    // The definition allowed workspace sources unless the DAG turned its workspace off; the
    // operator may have turned it off for every DAG.
    if (made.workspace === undefined && container.mounts.some((m) => m.kind === 'workspace'))
      throw new Error(
        "container.volumes: a relative source needs the run's workspace, which the operator turns off (--workspace=false)",
      );
    const name = sharedContainerPodName(ref.name);
    // A retry in place right after the run ended: the earlier execution's Pod must go first.
    if (this.pods.cached(ref.namespace, name)?.metadata?.deletionTimestamp !== undefined)
      throw new Error(`the run's container Pod ${name} of its earlier execution is still being removed`);
    await this.pods.create(
      ref.namespace,
      sharedContainerPod(ref, definition.dag, container, { ...made, defaults: this.defaults }),
    );
  }

  /** A finished or deleted run's objects need no more creating. */
  forget(uid: string): void {
    this.made.delete(uid);
  }
}

function pullSecret(ref: RunRef, json: string): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: registrySecretName(ref.name),
      namespace: ref.namespace,
      labels: { [LABELS.run]: labelValue(ref.name) },
      ownerReferences: [ownerReference(ref)],
    },
    type: 'kubernetes.io/dockerconfigjson',
    immutable: true,
    data: { '.dockerconfigjson': Buffer.from(json).toString('base64') },
  };
}

/** Some step execs into a container and its DAG names no ServiceAccount of its own (which brings its own RBAC). */
export function needsExecAccount(dag: Dag): boolean {
  return [...dag.steps, ...Object.values(dag.handlerOn)].some(
    (step) => execsIntoContainer(step) && step.kubernetes?.serviceAccountName === undefined,
  );
}

function execAccount(ref: RunRef): V1ServiceAccount {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: {
      name: execServiceAccountName(ref.name),
      namespace: ref.namespace,
      labels: { [LABELS.run]: labelValue(ref.name) },
      ownerReferences: [ownerReference(ref)],
    },
  };
}

/** Binds the run's exec ServiceAccount to the exec ClusterRole in the run's namespace only. */
function execBinding(ref: RunRef, role: string): V1RoleBinding {
  const name = execServiceAccountName(ref.name);
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: {
      name,
      namespace: ref.namespace,
      labels: { [LABELS.run]: labelValue(ref.name) },
      ownerReferences: [ownerReference(ref)],
    },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'ServiceAccount', name, namespace: ref.namespace }],
  };
}

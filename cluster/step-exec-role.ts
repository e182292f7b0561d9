/**
 * The ClusterRole that steps exec into containers with (docker `containerName`, a DAG-level
 * `container`): the operator binds it per run to the run's own ServiceAccount, by the name its
 * `--step-exec-role` setting gives, and never creates it. The chart creates it; the local
 * cluster takes it from the same place: manifests/kubedag.yaml, the chart rendered with its
 * default values (the chart's integration test fails when that file is stale). The role's
 * name comes from the operator Deployment's own flag there, so the name `make dev` passes
 * its operator and the role the cluster has cannot drift apart, nor the rules from the chart's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RbacAuthorizationV1Api, type KubeConfig, type V1ClusterRole } from '@kubernetes/client-node';
import { loadAll } from 'js-yaml';
import { isAlreadyExists } from '../core/kube/errors.ts';

export const RENDERED_CHART = join(import.meta.dirname, '../manifests/kubedag.yaml');

const FLAG = '--step-exec-role=';

interface Manifest {
  readonly kind?: string;
  readonly metadata?: { readonly name?: string };
  readonly rules?: V1ClusterRole['rules'];
  readonly spec?: {
    readonly template?: { readonly spec?: { readonly containers?: readonly { readonly args?: readonly string[] }[] } };
  };
}

/** The chart's step exec role, found through the operator's flag in the rendered chart. Pure. */
export function stepExecRoleOf(documents: readonly unknown[]): V1ClusterRole {
  const manifests = documents.filter((d): d is Manifest => typeof d === 'object' && d !== null);
  const args = manifests
    .filter((m) => m.kind === 'Deployment')
    .flatMap((m) => m.spec?.template?.spec?.containers?.flatMap((c) => c.args ?? []) ?? []);
  const name = args.find((a) => a.startsWith(FLAG))?.slice(FLAG.length);
  if (name === undefined) throw new Error(`the rendered chart has no operator flag ${FLAG}<role>`);
  const role = manifests.find((m) => m.kind === 'ClusterRole' && m.metadata?.name === name);
  if (role === undefined) throw new Error(`the rendered chart names step exec role ${name} but does not create it`);
  // Only the name and rules: the chart's labels would claim Helm manages this copy.
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: {
      name,
      labels: { 'app.kubernetes.io/name': 'kubedag', 'app.kubernetes.io/managed-by': 'kubedag-local-cluster' },
    },
    rules: role.rules ?? [],
  };
}

/** The step exec role as the chart at this checkout makes it. */
export function chartStepExecRole(): V1ClusterRole {
  return stepExecRoleOf(loadAll(readFileSync(RENDERED_CHART, 'utf8')));
}

/** Creates the chart's step exec role, or brings an existing one to the chart's rules; returns its name. */
export async function installStepExecRole(kc: KubeConfig): Promise<string> {
  const api = kc.makeApiClient(RbacAuthorizationV1Api);
  const role = chartStepExecRole();
  const name = role.metadata?.name ?? '';
  try {
    await api.createClusterRole({ body: role });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    const existing = await api.readClusterRole({ name });
    await api.replaceClusterRole({
      name,
      body: { ...role, metadata: { ...role.metadata, resourceVersion: existing.metadata?.resourceVersion } },
    });
  }
  return name;
}

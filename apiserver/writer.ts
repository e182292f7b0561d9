/**
 * Every write the API makes to Kubernetes, each followed by a wait until the informer cache
 * has seen it (read-your-writes for the client that made it). Kubernetes errors keep their
 * status code; routes turn 404/409 into the contract's codes.
 */
import { PatchStrategy, setHeaderOptions, type CustomObjectsApi, type KubernetesObject } from '@kubernetes/client-node';
import type { Informer } from '../core/kube/informer.ts';
import { ANNOTATIONS, GROUP, VERSION } from '../core/resources/constants.ts';
import { dagManifest } from '../core/resources/dag.ts';
import type { DagRunStatus } from '../core/resources/schemas.ts';
import type { DagResource, DagRunResource } from '../core/resources/types.ts';
import type { Cache } from './cache.ts';
import { specDigest } from './views/dags.ts';

/** Annotations may hold 256 KiB in all; a larger file is rendered from the resource instead. */
const MAX_VERBATIM_BYTES = 200 * 1024;

/** Request options that send a body as a JSON merge patch (the client defaults to JSON patch). */
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

function verbatimAnnotations(yaml: string, spec: Record<string, unknown>): Record<string, string> {
  if (Buffer.byteLength(yaml) > MAX_VERBATIM_BYTES) return {};
  return { [ANNOTATIONS.specYaml]: yaml, [ANNOTATIONS.specDigest]: specDigest(spec) };
}

export class Writer {
  private readonly custom: CustomObjectsApi;
  private readonly cache: Cache;

  constructor(custom: CustomObjectsApi, cache: Cache) {
    this.custom = custom;
    this.cache = cache;
  }

  private get namespace(): string {
    return this.cache.namespace;
  }

  private async settle(informer: Informer<DagResource> | Informer<DagRunResource>, written: unknown, gone = false): Promise<void> {
    const meta = (written as KubernetesObject | undefined)?.metadata;
    await this.cache.settled(informer as unknown as Informer<KubernetesObject>, meta?.name ?? '', meta?.resourceVersion, gone);
  }

  async createDag(fileName: string, yaml: string, documents: readonly Record<string, unknown>[]): Promise<void> {
    const manifest = dagManifest(fileName, documents, this.namespace);
    const body = { ...manifest, metadata: { ...manifest.metadata, annotations: { ...manifest.metadata.annotations, ...verbatimAnnotations(yaml, manifest.spec) } } };
    const created: unknown = await this.custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: this.namespace, plural: 'dags', body });
    await this.settle(this.cache.dags, created);
  }

  /** A new spec and its text; the resource version makes a concurrent edit a 409, not a loss. */
  async replaceDagSpec(dag: DagResource, yaml: string, documents: readonly Record<string, unknown>[]): Promise<void> {
    const spec = dagManifest('x', documents).spec;
    const kept = Object.entries(dag.metadata?.annotations ?? {}).filter(([key]) => key !== ANNOTATIONS.specYaml && key !== ANNOTATIONS.specDigest);
    const annotations = Object.fromEntries(kept);
    const body = { ...dag, metadata: { ...dag.metadata, annotations: { ...annotations, ...verbatimAnnotations(yaml, spec) } }, spec };
    const written: unknown = await this.custom.replaceNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: this.namespace, plural: 'dags', name: dag.metadata?.name ?? '', body });
    await this.settle(this.cache.dags, written);
  }

  async deleteDag(name: string): Promise<void> {
    await this.custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: this.namespace, plural: 'dags', name });
    await this.cache.settled(this.cache.dags as unknown as Informer<KubernetesObject>, name, undefined, true);
  }

  async setSuspended(dag: DagResource, suspended: boolean): Promise<void> {
    const body = { metadata: { annotations: { [ANNOTATIONS.suspended]: suspended ? 'true' : null } } };
    const written: unknown = await this.custom.patchNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: this.namespace, plural: 'dags', name: dag.metadata?.name ?? '', body }, mergePatch);
    await this.settle(this.cache.dags, written);
  }

  async createRun(body: DagRunResource): Promise<void> {
    const created: unknown = await this.custom.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: this.namespace, plural: 'dagruns', body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'DAGRun', ...body } });
    await this.settle(this.cache.runs, created);
  }

  async deleteRun(run: DagRunResource): Promise<void> {
    const name = run.metadata?.name ?? '';
    // Guarded by uid: a run recreated under the same name meanwhile is not ours to delete.
    await this.custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: this.namespace, plural: 'dagruns', name, body: { preconditions: { uid: run.metadata?.uid ?? '' } } });
    await this.cache.settled(this.cache.runs as unknown as Informer<KubernetesObject>, name, undefined, true);
  }

  async stopRun(run: DagRunResource): Promise<void> {
    await this.patchRun(run, { spec: { stop: true } });
  }

  async retryRun(run: DagRunResource, token: string, stepName: string | undefined): Promise<void> {
    await this.patchRun(run, { metadata: { annotations: { [ANNOTATIONS.retry]: token, [ANNOTATIONS.retryStep]: stepName ?? null } } });
  }

  /** Lists a run under another DAG name (its DAG was renamed; spec.dagName cannot change). */
  async relistRun(run: DagRunResource, dagName: string): Promise<void> {
    await this.patchRun(run, { metadata: { annotations: { [ANNOTATIONS.dagName]: dagName } } });
  }

  /** A status edit, guarded by the resource version the edit was computed from. */
  async replaceRunStatus(run: DagRunResource, status: DagRunStatus): Promise<void> {
    const written: unknown = await this.custom.replaceNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, namespace: this.namespace, plural: 'dagruns', name: run.metadata?.name ?? '', body: { ...run, status } });
    await this.settle(this.cache.runs, written);
  }

  private async patchRun(run: DagRunResource, body: Record<string, unknown>): Promise<void> {
    const written: unknown = await this.custom.patchNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: this.namespace, plural: 'dagruns', name: run.metadata?.name ?? '', body }, mergePatch);
    await this.settle(this.cache.runs, written);
  }
}

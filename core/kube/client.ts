/**
 * Typed access to Kubedag's own resources. The generic CustomObjectsApi takes group, version
 * and plural at every call and answers `any`; here each kind is addressed by its names
 * (`KINDS`, from core/resources/kinds.ts, which the CRDs are built on too) and a
 * `ResourceClient<T>` reads and writes objects of type T. Used by the operator, the API server,
 * the scheduler and the tests alike, so a write looks the same wherever it is made.
 */
import {
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { API_VERSION, GROUP, VERSION } from '../resources/constants.ts';
import { retryAfterMs } from './errors.ts';
import { KIND_NAMES } from '../resources/kinds.ts';
import type { DagQueueResource, DagResource, DagRunResource, DagRunSegmentResource } from '../resources/types.ts';

/** One kind of Kubedag resource: where it lives in the API. */
export interface ResourceKind {
  readonly kind: string;
  readonly plural: string;
}

export const KINDS = KIND_NAMES satisfies Record<string, ResourceKind>;

/** One JSON patch operation (RFC 6902). */
export interface JsonPatchOperation {
  readonly op: 'add' | 'remove' | 'replace' | 'test';
  readonly path: string;
  readonly value?: unknown;
}

export interface DeleteOptions {
  /** Delete only the object with this uid (a recreated namesake is not ours to delete). */
  readonly uid?: string;
  /** Delete only this version of the object. */
  readonly resourceVersion?: string;
  readonly propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
}

export interface ListOptions {
  readonly labelSelector?: string;
}

/** Request options that send a body as a JSON merge patch (the client defaults to JSON patch). */
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** Reads asked again this many times at most when the API server says "too many requests". */
const READ_ATTEMPTS = 5;

/**
 * A read, asked again after the wait the API server names when it answers 429 (retryAfterMs):
 * a read changes nothing, so asking again is always safe. Writes are not retried here; their
 * callers are level-triggered and come back to them.
 */
async function patiently<R>(read: () => Promise<R>): Promise<R> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await read();
    } catch (error) {
      const wait = retryAfterMs(error);
      if (wait === undefined || attempt >= READ_ATTEMPTS) throw error;
      await sleep(wait);
    }
  }
}

export class ResourceClient<T extends KubernetesObject> {
  readonly resource: ResourceKind;
  private readonly api: CustomObjectsApi;

  constructor(api: CustomObjectsApi, resource: ResourceKind) {
    this.api = api;
    this.resource = resource;
  }

  private at(
    namespace: string,
    name: string,
  ): { group: string; version: string; plural: string; namespace: string; name: string } {
    return { group: GROUP, version: VERSION, plural: this.resource.plural, namespace, name };
  }

  /** The watch path of this kind in one namespace, or in all of them. */
  path(namespace?: string): string {
    return namespace === undefined
      ? `/apis/${GROUP}/${VERSION}/${this.resource.plural}`
      : `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${this.resource.plural}`;
  }

  async get(namespace: string, name: string): Promise<T> {
    return (await patiently(() => this.api.getNamespacedCustomObject(this.at(namespace, name)))) as T;
  }

  /** Objects of one namespace, or of all namespaces. */
  async list(namespace?: string, options: ListOptions = {}): Promise<KubernetesListObject<T>> {
    const base = { group: GROUP, version: VERSION, plural: this.resource.plural, ...options };
    const listed: unknown = await patiently(() =>
      namespace === undefined
        ? this.api.listClusterCustomObject(base)
        : this.api.listNamespacedCustomObject({ ...base, namespace }),
    );
    return listed as KubernetesListObject<T>;
  }

  /** Creates the object; apiVersion and kind are filled in. */
  async create(namespace: string, body: T): Promise<T> {
    return (await this.api.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      plural: this.resource.plural,
      namespace,
      body: { apiVersion: API_VERSION, kind: this.resource.kind, ...body },
    })) as T;
  }

  /** Replaces the object; its resourceVersion makes a concurrent change a conflict. */
  async replace(object: T): Promise<T> {
    const { namespace = '', name = '' } = object.metadata ?? {};
    return (await this.api.replaceNamespacedCustomObject({ ...this.at(namespace, name), body: object })) as T;
  }

  async mergePatch(namespace: string, name: string, patch: Record<string, unknown>): Promise<T> {
    return (await this.api.patchNamespacedCustomObject({ ...this.at(namespace, name), body: patch }, mergePatch)) as T;
  }

  /** A JSON patch; a leading `test` of /metadata/resourceVersion makes it apply to one version only. */
  async jsonPatch(namespace: string, name: string, operations: readonly JsonPatchOperation[]): Promise<T> {
    return (await this.api.patchNamespacedCustomObject({ ...this.at(namespace, name), body: operations })) as T;
  }

  /** Replaces the status subresource; the object's resourceVersion guards it. */
  async replaceStatus(object: T): Promise<T> {
    const { namespace = '', name = '' } = object.metadata ?? {};
    return (await this.api.replaceNamespacedCustomObjectStatus({ ...this.at(namespace, name), body: object })) as T;
  }

  async mergePatchStatus(namespace: string, name: string, patch: Record<string, unknown>): Promise<T> {
    return (await this.api.patchNamespacedCustomObjectStatus(
      { ...this.at(namespace, name), body: patch },
      mergePatch,
    )) as T;
  }

  async delete(namespace: string, name: string, options: DeleteOptions = {}): Promise<void> {
    const preconditions =
      options.uid === undefined && options.resourceVersion === undefined
        ? undefined
        : {
            ...(options.uid === undefined ? {} : { uid: options.uid }),
            ...(options.resourceVersion === undefined ? {} : { resourceVersion: options.resourceVersion }),
          };
    await this.api.deleteNamespacedCustomObject({
      ...this.at(namespace, name),
      ...(options.propagationPolicy === undefined ? {} : { propagationPolicy: options.propagationPolicy }),
      ...(preconditions === undefined ? {} : { body: { preconditions } }),
    });
  }
}

/** One client per Kubedag kind. */
export interface KubedagClients {
  readonly dags: ResourceClient<DagResource>;
  readonly runs: ResourceClient<DagRunResource>;
  readonly queues: ResourceClient<DagQueueResource>;
  readonly segments: ResourceClient<DagRunSegmentResource>;
}

export function kubedagClients(source: KubeConfig | CustomObjectsApi): KubedagClients {
  const api = source instanceof CustomObjectsApi ? source : source.makeApiClient(CustomObjectsApi);
  return {
    dags: new ResourceClient<DagResource>(api, KINDS.dag),
    runs: new ResourceClient<DagRunResource>(api, KINDS.dagRun),
    queues: new ResourceClient<DagQueueResource>(api, KINDS.dagQueue),
    segments: new ResourceClient<DagRunSegmentResource>(api, KINDS.dagRunSegment),
  };
}

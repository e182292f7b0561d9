/**
 * Every write the API makes to Kubernetes, each followed by a wait until the informer cache
 * has seen it (read-your-writes for the client that made it). Kubernetes errors are thrown
 * as they come; routes tell them apart (core/kube/errors.ts) and answer the contract's codes.
 *
 * Every write that can carry metadata names who asked for it (`kubedag.io/requested-by`,
 * core/resources/requested-by.ts), here and nowhere else, so that no route can forget it. A
 * status edit carries it in a patch just after (the status subresource ignores metadata); a
 * delete cannot.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubedagClients } from '../core/kube/client.ts';
import { createFrozenRun } from '../core/kube/frozen-definitions.ts';
import type { Informer } from '../core/kube/informer.ts';
import { replacingMergePatch } from '../core/kube/merge-patch.ts';
import { ANNOTATIONS } from '../core/resources/constants.ts';
import { dagManifest } from '../core/resources/dag.ts';
import type { DagRunSpec, DagRunStatus } from '../core/resources/schemas.ts';

type ApprovalAnswer = NonNullable<DagRunSpec['approvals']>[string];
import type { DagResource, DagRunResource } from '../core/resources/types.ts';
import type { Cache } from './cache.ts';
import { requestedByValue, type Requester } from '../core/resources/requested-by.ts';
import { restoreRun } from './restore.ts';
import { specDigest } from './views/dags.ts';

/** Annotations may hold 256 KiB in all; a larger file is rendered from the resource instead. */
const MAX_VERBATIM_BYTES = 200 * 1024;

function verbatimAnnotations(yaml: string, spec: Record<string, unknown>): Record<string, string> {
  if (Buffer.byteLength(yaml) > MAX_VERBATIM_BYTES) return {};
  return { [ANNOTATIONS.specYaml]: yaml, [ANNOTATIONS.specDigest]: specDigest(spec) };
}

/** The annotations that say who asked for a write. */
export function requestedBy(by: Requester): Record<string, string> {
  return { [ANNOTATIONS.requestedBy]: requestedByValue(by) };
}

/** On a new run: who asked for the write, and who started the run, which later requests do not change. */
export function startedBy(by: Requester): Record<string, string> {
  return { ...requestedBy(by), [ANNOTATIONS.startedBy]: requestedByValue(by) };
}

export class Writer {
  private readonly clients: KubedagClients;
  private readonly cache: Cache;

  constructor(clients: KubedagClients, cache: Cache) {
    this.clients = clients;
    this.cache = cache;
  }

  private get namespace(): string {
    return this.cache.namespace;
  }

  private async settle<T extends KubernetesObject>(informer: Informer<T>, written: T): Promise<void> {
    await this.cache.settled(informer, written.metadata?.name ?? '', written.metadata?.resourceVersion);
  }

  async createDag(
    fileName: string,
    yaml: string,
    documents: readonly Record<string, unknown>[],
    by: Requester,
  ): Promise<void> {
    const manifest = dagManifest(fileName, documents, this.namespace);
    const body = {
      ...manifest,
      metadata: {
        ...manifest.metadata,
        annotations: {
          ...manifest.metadata.annotations,
          ...verbatimAnnotations(yaml, manifest.spec),
          ...requestedBy(by),
        },
      },
    };
    await this.settle(this.cache.dags, await this.clients.dags.create(this.namespace, body));
  }

  /** A new spec and its text; the resource version makes a concurrent edit a 409, not a loss. */
  async replaceDagSpec(
    dag: DagResource,
    yaml: string,
    documents: readonly Record<string, unknown>[],
    by: Requester,
  ): Promise<void> {
    const spec = dagManifest('x', documents).spec;
    const kept = Object.entries(dag.metadata?.annotations ?? {}).filter(
      ([key]) => key !== ANNOTATIONS.specYaml && key !== ANNOTATIONS.specDigest,
    );
    const annotations = Object.fromEntries(kept);
    const body = {
      ...dag,
      metadata: {
        ...dag.metadata,
        namespace: this.namespace,
        annotations: { ...annotations, ...verbatimAnnotations(yaml, spec), ...requestedBy(by) },
      },
      spec,
    };
    await this.settle(this.cache.dags, await this.clients.dags.replace(body));
  }

  async deleteDag(name: string): Promise<void> {
    await this.clients.dags.delete(this.namespace, name);
    await this.cache.settled(this.cache.dags, name, undefined, true);
  }

  async setSuspended(dag: DagResource, suspended: boolean, by: Requester): Promise<void> {
    const patch = {
      metadata: { annotations: { [ANNOTATIONS.suspended]: suspended ? 'true' : null, ...requestedBy(by) } },
    };
    await this.settle(
      this.cache.dags,
      await this.clients.dags.mergePatch(this.namespace, dag.metadata?.name ?? '', patch),
    );
  }

  /** A run; with the definition its spec's frozenDefinition names, written into that segment right after (core/kube/frozen-definitions.ts). */
  async createRun(run: DagRunResource, by: Requester, frozen?: Record<string, unknown>): Promise<void> {
    const body = {
      ...run,
      metadata: { ...run.metadata, annotations: { ...run.metadata?.annotations, ...startedBy(by) } },
    };
    const created =
      frozen === undefined
        ? await this.clients.runs.create(this.namespace, body)
        : await createFrozenRun(this.clients, this.namespace, body, frozen);
    await this.settle(this.cache.runs, created);
  }

  /** An archived run put back as a DAGRun, a sub run under its live parent (restore.ts): the cached run, once the cache has it. */
  async restoreRun(archived: DagRunResource, by: Requester, parent?: DagRunResource): Promise<DagRunResource> {
    // started-by stays the archived run's: putting a run back does not start it.
    const marked = {
      ...archived,
      metadata: { ...archived.metadata, annotations: { ...archived.metadata?.annotations, ...requestedBy(by) } },
    };
    return restoreRun({ clients: this.clients, cache: this.cache }, marked, parent);
  }

  async deleteRun(run: DagRunResource): Promise<void> {
    const name = run.metadata?.name ?? '';
    // Guarded by uid: a run recreated under the same name meanwhile is not ours to delete.
    await this.clients.runs.delete(this.namespace, name, { uid: run.metadata?.uid ?? '' });
    await this.cache.settled(this.cache.runs, name, undefined, true);
  }

  async stopRun(run: DagRunResource, by: Requester): Promise<void> {
    await this.patchRun(run, { metadata: { annotations: requestedBy(by) }, spec: { stop: true } });
  }

  async retryRun(run: DagRunResource, token: string, stepName: string | undefined, by: Requester): Promise<void> {
    await this.patchRun(run, {
      metadata: {
        annotations: { [ANNOTATIONS.retry]: token, [ANNOTATIONS.retryStep]: stepName ?? null, ...requestedBy(by) },
      },
    });
  }

  /**
   * A person's answer to a waiting step, into spec.approvals, guarded by the resource version the
   * answer was decided from (a merge patch that names one is refused with a conflict when the run
   * changed since): one write, so a killed process either wrote it or did not. It replaces the
   * step's earlier answer whole: a push-back's inputs must not become a later approval's.
   */
  async answerApproval(run: DagRunResource, step: string, answer: ApprovalAnswer, by: Requester): Promise<void> {
    await this.patchRun(run, {
      metadata: { resourceVersion: run.metadata?.resourceVersion, annotations: requestedBy(by) },
      spec: { approvals: { [step]: replacingMergePatch(run.spec.approvals?.[step], answer) } },
    });
  }

  /** Lists a run under another DAG name (its DAG was renamed; spec.dagName cannot change). */
  async relistRun(run: DagRunResource, dagName: string, by: Requester): Promise<void> {
    await this.patchRun(run, { metadata: { annotations: { [ANNOTATIONS.dagName]: dagName, ...requestedBy(by) } } });
  }

  /**
   * A status edit, guarded by the resource version the edit was computed from, then who asked
   * for it: the status subresource ignores metadata, so the annotation is a patch of its own,
   * made after the edit (a process killed between the two leaves the previous requester named;
   * the audit record of the request names this one).
   */
  async replaceRunStatus(run: DagRunResource, status: DagRunStatus, by: Requester): Promise<void> {
    await this.settle(
      this.cache.runs,
      await this.clients.runs.replaceStatus({
        ...run,
        metadata: { ...run.metadata, namespace: this.namespace },
        status,
      }),
    );
    await this.patchRun(run, { metadata: { annotations: requestedBy(by) } });
  }

  private async patchRun(run: DagRunResource, patch: Record<string, unknown>): Promise<void> {
    await this.settle(
      this.cache.runs,
      await this.clients.runs.mergePatch(this.namespace, run.metadata?.name ?? '', patch),
    );
  }
}

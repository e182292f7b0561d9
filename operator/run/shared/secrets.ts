/**
 * A run's resolved secrets (DAG `secrets`): kept in an immutable Secret owned by the run, so
 * step Pods read them by reference and they go when the run goes; read back for masking, so
 * archived logs (the archiver) and live ones (the log endpoint) mask with the same values.
 */
import type { CoreV1Api } from '@kubernetes/client-node';
import { ignoreNotFound } from '../../../core/kube/errors.ts';
import { LABELS } from '../../../core/resources/constants.ts';
import { labelValue, runSecretName } from '../../../core/resources/names.ts';
import type { PodWriter } from './pod-writer.ts';
import { ownerReference, type RunRef } from '../ref.ts';

/** The run's secret values; none while the Secret does not exist (nothing resolved yet). */
export async function runSecretValues(core: CoreV1Api, namespace: string, runName: string): Promise<string[]> {
  const secret = await ignoreNotFound(core.readNamespacedSecret({ name: runSecretName(runName), namespace }));
  return Object.values(secret?.data ?? {}).map((v) => Buffer.from(v, 'base64').toString('utf8'));
}

export class RunSecrets {
  private readonly core: CoreV1Api;
  private readonly pods: PodWriter;
  /** Secret values of running runs, by run uid, for masking their logs. */
  private readonly values = new Map<string, readonly string[]>();

  constructor(core: CoreV1Api, pods: PodWriter) {
    this.core = core;
    this.pods = pods;
  }

  /** The values to mask in a run's logs (read once from its Secret, then remembered). */
  async of(ref: RunRef): Promise<readonly string[]> {
    const known = this.values.get(ref.uid);
    if (known !== undefined) return known;
    const values = await runSecretValues(this.core, ref.namespace, ref.name);
    // No Secret yet means the prepare step has not finished: nothing to remember.
    if (values.length > 0) this.values.set(ref.uid, values);
    return values;
  }

  /** Keeps what the prepare step resolved, in the run's Secret; created once. */
  async keep(ref: RunRef, values: Readonly<Record<string, string>>): Promise<void> {
    await this.pods.createSecret(ref.namespace, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: runSecretName(ref.name),
        namespace: ref.namespace,
        labels: { [LABELS.run]: labelValue(ref.name) },
        ownerReferences: [ownerReference(ref)],
      },
      type: 'Opaque',
      immutable: true,
      stringData: { ...values },
    });
    this.values.set(ref.uid, Object.values(values));
  }

  /** A finished or deleted run's values are not needed any more. */
  forget(uid: string): void {
    this.values.delete(uid);
  }
}

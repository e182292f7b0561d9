/**
 * Reading a run's resolved secrets back from its Secret, for masking: archived logs (the
 * reconciler) and live ones (the log endpoint) mask with the same values.
 */
import type { CoreV1Api } from '@kubernetes/client-node';
import { statusCode } from '../../core/kube/errors.ts';
import { runSecretName } from '../../core/resources/names.ts';

/** The run's secret values; none while the Secret does not exist (nothing resolved yet). */
export async function runSecretValues(core: CoreV1Api, namespace: string, runName: string): Promise<string[]> {
  try {
    const secret = await core.readNamespacedSecret({ name: runSecretName(runName), namespace });
    return Object.values(secret.data ?? {}).map((v) => Buffer.from(v, 'base64').toString('utf8'));
  } catch (error) {
    if (statusCode(error) === 404) return [];
    throw error;
  }
}

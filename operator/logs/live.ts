/**
 * The log of an attempt that is still running (or not archived yet), read from its Pod through
 * the Kubernetes API the way `kubectl logs` does, split into stdout and stderr and masked with
 * the run's secrets. The archive is the source once it exists; this covers the time before.
 */
import { Observable, type ConfigurationOptions, type CoreV1Api, type ResponseContext } from '@kubernetes/client-node';
import { maskSecrets } from '../../core/logs/mask.ts';
import { isNotFound, statusCode } from '../../core/kube/errors.ts';
import { LABELS } from '../../core/resources/constants.ts';
import { labelValue } from '../../core/resources/names.ts';
import { demux } from '../run/pods/step-pod.ts';
import { runSecretValues } from '../run/shared/secrets.ts';
import type { LogRef, Stream } from './keys.ts';

/**
 * The Kubernetes API answers a log that is still empty without a Content-Type, which the
 * generated client refuses to parse ("Cannot parse content. No Content-Type defined."): such an
 * answer is read as the (empty) text it is. Found by the API fuzz run (a step's log asked for
 * just after it started).
 */
const UNTYPED_LOG_IS_TEXT: ConfigurationOptions = {
  middleware: [
    {
      // The object-parameter API takes the client's own Observable middleware.
      pre: (request) => new Observable(Promise.resolve(request)),
      post: (response: ResponseContext) => {
        if (response.headers['content-type'] === undefined) response.headers['content-type'] = 'text/plain';
        return new Observable(Promise.resolve(response));
      },
    },
  ],
  middlewareMergeStrategy: 'append',
};

export async function liveLog(core: CoreV1Api, ref: LogRef, stream: Stream): Promise<string | undefined> {
  const selector = [
    `${LABELS.runId}=${labelValue(ref.dagRunId)}`,
    `${LABELS.step}=${labelValue(ref.step)}`,
    `${LABELS.attempt}=${String(ref.attempt)}`,
  ].join(',');
  const pods = await core.listNamespacedPod({ namespace: ref.namespace, labelSelector: selector });
  const pod = pods.items.find((p) => p.metadata?.labels?.[LABELS.dag] === labelValue(ref.dagName));
  const name = pod?.metadata?.name;
  if (pod === undefined || name === undefined) return undefined;
  let log: string;
  try {
    log = await core.readNamespacedPodLog({ name, namespace: ref.namespace, container: 'step' }, UNTYPED_LOG_IS_TEXT);
  } catch (error) {
    // Not started yet, or gone between the list and the read: nothing to show.
    if (statusCode(error) === 400 || isNotFound(error)) return undefined;
    throw error;
  }
  const runName = pod.metadata?.ownerReferences?.find((o) => o.kind === 'DAGRun')?.name;
  return maskSecrets(
    demux(log)[stream],
    runName === undefined ? [] : await runSecretValues(core, ref.namespace, runName),
  );
}

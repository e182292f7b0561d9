/**
 * The local cluster's volume provisioner, like rancher's local-path: it declares its
 * StorageClass (the cluster's default), makes a directory and a PersistentVolume for each
 * claim of that class once the scheduler has chosen the claim's node, and removes both when
 * the claim is gone. Started by the local control plane after kube-controller-manager:
 *
 *   node cluster/provisioner/main.ts --kubeconfig=... --dir=<cluster>/volumes \
 *     [--name=kubedag.io/local] [--storage-class=kubedag-local] [--log-level=info] [--log-format=json|pretty]
 */
import { mkdirSync } from 'node:fs';
import {
  CoreV1Api,
  KubeConfig,
  StorageV1Api,
  type KubernetesListObject,
  type KubernetesObject,
  type V1PersistentVolume,
  type V1PersistentVolumeClaim,
  type V1StorageClass,
} from '@kubernetes/client-node';
import { reuseConnections } from '../../core/kube/connections.ts';
import { ignoreAlreadyExists } from '../../core/kube/errors.ts';
import { Informer, informerLog } from '../../core/kube/informer.ts';
import { WorkQueue } from '../../core/kube/queue.ts';
import { systemClock } from '../../core/kube/time.ts';
import { createLogger, errorMessage, type Logger } from '../../core/log.ts';
import { parseConfig, type ProvisionerConfig } from './config.ts';
import { claimKey, Reconciler, volumeKey } from './provisioner.ts';
import { storageClass } from './volume.ts';

function informer<T extends KubernetesObject>(
  kc: KubeConfig,
  path: string,
  list: () => Promise<KubernetesListObject<T>>,
  logger: Logger,
): Informer<T> {
  return new Informer<T>({
    kc,
    path,
    list,
    log: informerLog(logger),
  });
}

async function run(config: ProvisionerConfig, logger: Logger): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromFile(config.kubeconfig);
  reuseConnections(kc);
  const core = kc.makeApiClient(CoreV1Api);
  const storage = kc.makeApiClient(StorageV1Api);
  mkdirSync(config.dir, { recursive: true });
  await ignoreAlreadyExists(storage.createStorageClass({ body: storageClass(config.storageClass, config.name) }));
  const claims = informer<V1PersistentVolumeClaim>(
    kc,
    '/api/v1/persistentvolumeclaims',
    () => core.listPersistentVolumeClaimForAllNamespaces(),
    logger,
  );
  const volumes = informer<V1PersistentVolume>(
    kc,
    '/api/v1/persistentvolumes',
    () => core.listPersistentVolume(),
    logger,
  );
  const classes = informer<V1StorageClass>(
    kc,
    '/apis/storage.k8s.io/v1/storageclasses',
    () => storage.listStorageClass(),
    logger,
  );
  const reconciler = new Reconciler({
    self: { name: config.name, root: config.dir },
    api: core,
    caches: {
      claim: (namespace, name) => claims.get(namespace, name),
      volume: (name) => volumes.get(undefined, name),
      storageClass: (name) => classes.get(undefined, name),
    },
    clock: systemClock,
    logger,
  });
  const queue = new WorkQueue({
    concurrency: 4,
    worker: async (key) => {
      await reconciler.reconcile(key);
      return undefined;
    },
    onError: (key, error) => {
      logger.error({ key, error: errorMessage(error) }, 'reconcile failed; retrying');
    },
  });
  // Deletes need no work of their own: a deleted claim releases its volume, which is an update.
  claims.on((event, claim) => {
    if (event !== 'delete') queue.add(claimKey(claim));
  });
  volumes.on((event, pv) => {
    if (event !== 'delete') queue.add(volumeKey(pv));
  });
  await classes.start();
  await Promise.all([volumes.start(), claims.start()]);
  // Level-triggered: everything is looked at again now and then, events or not.
  const resync = setInterval(() => {
    for (const claim of claims.list()) queue.add(claimKey(claim));
    for (const pv of volumes.list()) queue.add(volumeKey(pv));
  }, 30_000);
  logger.info({ dir: config.dir, storageClass: config.storageClass, provisioner: config.name }, 'provisioner running');
  const stop = async (signal: string): Promise<void> => {
    logger.info({ signal }, 'stopping');
    clearInterval(resync);
    await Promise.all([claims.stop(), volumes.stop(), classes.stop()]);
    void queue.shutdown();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

let config: ProvisionerConfig;
try {
  config = parseConfig(process.argv.slice(2), process.env);
} catch (error) {
  process.stderr.write(`provisioner: ${errorMessage(error)}\n`);
  process.exit(1);
}
const logger = createLogger('provisioner', config.log);
run(config, logger).catch((error: unknown) => {
  logger.fatal({ err: error }, 'provisioner failed');
  process.exit(1);
});

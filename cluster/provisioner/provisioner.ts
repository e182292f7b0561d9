/**
 * The provisioner's reconcilers, keyed by claim (`claim/<namespace>/<name>`) and by volume
 * (`volume/<name>`): gather from the caches, decide (decide.ts), act. Acting is idempotent:
 * a directory that exists is kept, a volume that exists is "already exists", a volume that is
 * gone is "not found", so a repeated key does no harm.
 */
import { chmod, mkdir, rm } from 'node:fs/promises';
import type { CoreV1Api, V1PersistentVolume, V1PersistentVolumeClaim, V1StorageClass } from '@kubernetes/client-node';
import { ignoreAlreadyExists, ignoreNotFound } from '../../core/kube/errors.ts';
import type { Clock } from '../../core/kube/time.ts';
import { errorMessage, type Logger } from '../../core/log.ts';
import { recordEvent } from '../events.ts';
import { decideClaim, decideVolume, type Provisioner } from './decide.ts';
import { FINALIZER, volumeName } from './volume.ts';

export interface Caches {
  readonly claim: (namespace: string, name: string) => V1PersistentVolumeClaim | undefined;
  readonly volume: (name: string) => V1PersistentVolume | undefined;
  readonly storageClass: (name: string) => V1StorageClass | undefined;
}

export interface ReconcilerOptions {
  readonly self: Provisioner;
  readonly api: CoreV1Api;
  readonly caches: Caches;
  readonly clock: Clock;
  readonly logger: Logger;
}

export const claimKey = (claim: V1PersistentVolumeClaim): string =>
  `claim/${claim.metadata?.namespace ?? ''}/${claim.metadata?.name ?? ''}`;
export const volumeKey = (pv: V1PersistentVolume): string => `volume/${pv.metadata?.name ?? ''}`;

export class Reconciler {
  private readonly options: ReconcilerOptions;

  constructor(options: ReconcilerOptions) {
    this.options = options;
  }

  async reconcile(key: string): Promise<void> {
    const [kind, ...rest] = key.split('/');
    if (kind === 'claim') await this.claim(rest[0] ?? '', rest[1] ?? '');
    else await this.volume(rest[0] ?? '');
  }

  private async claim(namespace: string, name: string): Promise<void> {
    const { caches, self, api } = this.options;
    const claim = caches.claim(namespace, name);
    if (claim === undefined) return;
    const decision = decideClaim(
      claim,
      caches.storageClass(claim.spec?.storageClassName ?? ''),
      caches.volume(volumeName(claim)),
      self,
    );
    if (decision.action === 'wait') return;
    const log = this.options.logger.child({ claim: `${namespace}/${name}`, volume: decision.volume.metadata?.name });
    // The directory first: a volume must never point at nothing. Open to every user, as local-path's.
    await mkdir(decision.path, { recursive: true });
    await chmod(decision.path, 0o777);
    await ignoreAlreadyExists(api.createPersistentVolume({ body: decision.volume }));
    log.info({ path: decision.path }, 'provisioned');
    const event = {
      type: 'Normal' as const,
      reason: 'ProvisioningSucceeded',
      message: `Successfully provisioned volume ${decision.volume.metadata?.name ?? ''}`,
    };
    await recordEvent(
      api,
      { apiVersion: 'v1', kind: 'PersistentVolumeClaim', ...claim },
      event,
      { component: self.name },
      this.options.clock,
    ).catch((error: unknown) => {
      log.warn({ error: errorMessage(error) }, 'could not record an event');
    });
  }

  private async volume(name: string): Promise<void> {
    const { caches, self, api } = this.options;
    const pv = caches.volume(name);
    if (pv === undefined) return;
    const decision = decideVolume(pv, self);
    if (decision.action === 'none') return;
    const log = this.options.logger.child({ volume: name });
    if (decision.path !== undefined) await rm(decision.path, { recursive: true, force: true });
    if (decision.action === 'delete') {
      await ignoreNotFound(api.deletePersistentVolume({ name }));
      log.info({ path: decision.path }, 'released volume deleted');
      return;
    }
    const index = (pv.metadata?.finalizers ?? []).indexOf(FINALIZER);
    // The test guards the index against a concurrent change of the list.
    await ignoreNotFound(
      api.patchPersistentVolume({
        name,
        body: [
          { op: 'test', path: `/metadata/finalizers/${String(index)}`, value: FINALIZER },
          { op: 'remove', path: `/metadata/finalizers/${String(index)}` },
        ],
      }),
    );
    log.info({ path: decision.path }, 'volume finalized');
  }
}

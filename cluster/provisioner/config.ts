/**
 * The provisioner's configuration, read once at start from its flags (and, for the log, from
 * `KUBEDAG_LOG_LEVEL`/`KUBEDAG_LOG_FORMAT` when the flag is not given), then passed down.
 */
import { isAbsolute } from 'node:path';
import { parseArgs } from 'node:util';
import { LOG_FLAGS, logSettingsFrom, type LogSettings } from '../../core/log.ts';

export interface ProvisionerConfig {
  readonly kubeconfig: string;
  /** Where volumes are made, one directory per PersistentVolume. */
  readonly dir: string;
  /** The provisioner's name, as StorageClasses and PersistentVolumes name it. */
  readonly name: string;
  /** The StorageClass it creates at start, marked the cluster's default. */
  readonly storageClass: string;
  readonly log: LogSettings;
}

export const DEFAULT_PROVISIONER = 'kubedag.io/local';
export const DEFAULT_STORAGE_CLASS = 'kubedag-local';

const OPTIONS = {
  kubeconfig: { type: 'string' },
  dir: { type: 'string' },
  name: { type: 'string', default: DEFAULT_PROVISIONER },
  'storage-class': { type: 'string', default: DEFAULT_STORAGE_CLASS },
  ...LOG_FLAGS,
} as const;

export function parseConfig(args: readonly string[], env: NodeJS.ProcessEnv): ProvisionerConfig {
  const { values } = parseArgs({ args: [...args], options: OPTIONS });
  const { kubeconfig, dir } = values;
  if (kubeconfig === undefined || kubeconfig === '') throw new Error('--kubeconfig is required');
  if (dir === undefined || !isAbsolute(dir)) throw new Error('--dir is required and must be absolute');
  return {
    kubeconfig,
    dir,
    name: values.name,
    storageClass: values['storage-class'],
    log: logSettingsFrom(values, env),
  };
}

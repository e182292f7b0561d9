/**
 * Where the machine's build cache lives: the binaries built from pinned Go modules (cluster/), the
 * Debian packages and the step runner's bundle of the image (image/). One module both import, so
 * that neither folder imports the other.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { resolveSettings, setting } from '../core/settings.ts';

/** Declared as a setting (core/settings.ts) so that `node cluster/cli.ts --help` lists it. */
export const CACHE_SETTINGS = {
  cacheDir: setting<string | undefined>({
    variables: ['KUBEDAG_CACHE_DIR'],
    value: 'DIR',
    default: undefined,
    defaultText: '$XDG_CACHE_HOME/kubedag, else ~/.cache/kubedag',
    description:
      'Where the binaries built from pinned Go modules (etcd, Kubernetes, helm, MinIO, the collector) are kept.',
    read: (text) => text,
  }),
};

/** `KUBEDAG_CACHE_DIR`, else `$XDG_CACHE_HOME/kubedag`, else `~/.cache/kubedag`. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return (
    resolveSettings(CACHE_SETTINGS, {}, env).cacheDir ??
    join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kubedag')
  );
}

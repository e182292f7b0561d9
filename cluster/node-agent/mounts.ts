/**
 * A container's volume mounts as host sources and mount paths. A subPath (or subPathExpr)
 * that does not exist yet is created inside its volume with the volume's mode, as the kubelet
 * does; one that leads out of its volume is refused.
 */
import { chmodSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Container } from '@kubernetes/client-node';
import { ConfigError, expandVariables } from './environment.ts';
import { within } from './paths.ts';
import type { VolumeMount } from './sandbox.ts';
import type { PreparedVolume } from './volumes.ts';

type VolumeMountSpec = NonNullable<V1Container['volumeMounts']>[number];

/** The subPath of a mount, subPathExpr expanded with the container's variables. */
export function subPathOf(mount: VolumeMountSpec, env: Readonly<Record<string, string>>): string | undefined {
  const path = mount.subPathExpr === undefined ? mount.subPath : expandVariables(mount.subPathExpr, env);
  return path === undefined || path === '' ? undefined : path;
}

/** The kubelet's SafeMakeDir: each missing directory below the volume, with the volume root's mode. */
function makeSubPath(volume: string, subPath: string): string {
  const root = realpathSync(volume);
  const target = join(root, subPath);
  if (!within(target, root)) throw new ConfigError(`subPath "${subPath}" leads out of its volume`);
  const mode = statSync(root).mode & 0o7777;
  let path = root;
  for (const part of subPath.split('/').filter((p) => p !== '' && p !== '.')) {
    path = join(path, part);
    try {
      mkdirSync(path);
      // The umask must not take from the volume's mode what the volume gives.
      chmodSync(path, mode);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (!within(realpathSync(path), root)) throw new ConfigError(`subPath "${subPath}" leads out of its volume`);
  }
  return path;
}

export function containerMounts(
  container: V1Container,
  volumes: ReadonlyMap<string, PreparedVolume>,
  env: Readonly<Record<string, string>>,
): VolumeMount[] {
  return (container.volumeMounts ?? []).map((mount) => {
    const volume = volumes.get(mount.name);
    if (volume === undefined) throw new ConfigError(`volume "${mount.name}" is not defined`);
    const subPath = subPathOf(mount, env);
    const source = subPath === undefined ? volume.path : makeSubPath(volume.path, subPath);
    const file = statSync(source, { throwIfNoEntry: false })?.isFile() === true;
    return { source, target: mount.mountPath, readOnly: mount.readOnly === true || volume.readOnly, file };
  });
}

/**
 * Where the agent keeps each Pod on disk, `<state>/pods/<uid>/`, and when it lets go of it.
 *
 *   started, pids.json          what an agent restart needs to know
 *   <container>-<n>.log         container logs: kept while the Pod object exists
 *   volumes/<name>/             emptyDir, Secret, ConfigMap, ... copies
 *   scratch/                    the working directory of containers without workingDir
 *   containers/<container>-<n>/ each container attempt's own root (upper directory, /tmp, ...)
 *
 * Like the kubelet, which tears down the volumes of terminated Pods and removes everything of
 * deleted ones: a finished Pod keeps only its logs and markers; a Pod that is gone, nothing.
 */
import { existsSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

export class PodDirs {
  readonly root: string;

  constructor(stateDir: string) {
    this.root = join(stateDir, 'pods');
  }

  of(uid: string, ...parts: string[]): string {
    return join(this.root, uid, ...parts);
  }

  log(uid: string, container: string, attempt: number): string {
    return this.of(uid, `${container}-${String(attempt)}.log`);
  }

  layer(uid: string, container: string, attempt: number): string {
    return this.of(uid, 'containers', `${container}-${String(attempt)}`);
  }

  volume(uid: string, name: string): string {
    return this.of(uid, 'volumes', name);
  }

  scratch(uid: string): string {
    return this.of(uid, 'scratch');
  }

  /** Pod UIDs with a directory here. */
  list(): string[] {
    return existsSync(this.root) ? readdirSync(this.root) : [];
  }

  /** The log attempts a container left, newest last. */
  attempts(uid: string, container: string): number[] {
    const dir = this.of(uid);
    if (!existsSync(dir)) return [];
    const prefix = `${container}-`;
    return readdirSync(dir)
      .filter((name) => name.startsWith(prefix) && name.endsWith('.log') && /^\d+$/.test(name.slice(prefix.length, -4)))
      .map((name) => Number(name.slice(prefix.length, -4)))
      .sort((a, b) => a - b);
  }

  /** Everything but the logs and the markers: volumes, scratch, container roots. */
  async trim(uid: string): Promise<void> {
    for (const part of ['volumes', 'scratch', 'containers'])
      await rm(this.of(uid, part), { recursive: true, force: true });
  }

  async remove(uid: string): Promise<void> {
    await rm(this.of(uid), { recursive: true, force: true });
  }
}

export interface PodOnNode {
  readonly uid: string;
  /** Succeeded or Failed: its containers will not run again. */
  readonly terminal: boolean;
}

export interface Housekeeping {
  /** Pods that are gone: remove everything. */
  readonly remove: readonly string[];
  /** Pods that have finished: remove all but logs and markers. */
  readonly trim: readonly string[];
}

/**
 * What to clean, from the directories found and the Pods bound to this node now. The
 * directories must be listed before the Pods are: a Pod started in between is then in the
 * second list or not in the first, never removed while it starts.
 */
export function housekeeping(
  dirs: readonly string[],
  pods: readonly PodOnNode[],
  active: ReadonlySet<string>,
): Housekeeping {
  const known = new Map(pods.map((p) => [p.uid, p]));
  const idle = dirs.filter((uid) => !active.has(uid));
  return {
    remove: idle.filter((uid) => !known.has(uid)),
    trim: idle.filter((uid) => known.get(uid)?.terminal === true),
  };
}

/**
 * The kubelet's volume ownership management for a Pod's fsGroup (pkg/volume/volume_linux.go):
 * every file and directory of the volume is given the group, group read (and write, unless
 * the volume is read-only) permission, and directories get the setgid bit so that what is
 * created later inherits the group. With fsGroupChangePolicy OnRootMismatch the walk is
 * skipped when the volume's root already looks right.
 */
import { chmodSync, lchownSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const RW_MASK = 0o660;
const RO_MASK = 0o440;
const EXEC_MASK = 0o110;
const SETGID = 0o2000;

/** The mode the kubelet gives an entry: its own bits plus the group's. */
export function ownedMode(mode: number, isDir: boolean, readOnly: boolean): number {
  const mask = (readOnly ? RO_MASK : RW_MASK) | (isDir ? EXEC_MASK | SETGID : 0);
  return (mode & 0o7777) | mask;
}

export interface RootState {
  readonly gid: number;
  readonly mode: number;
  readonly isDir: boolean;
}

/** The kubelet's requiresPermissionChange: does the volume's root not show the group already? */
export function rootNeedsChange(root: RootState, fsGroup: number, readOnly: boolean): boolean {
  if (root.gid !== fsGroup || !root.isDir) return true;
  const wanted = (readOnly ? RO_MASK : RW_MASK) | EXEC_MASK;
  return (root.mode & wanted) !== wanted || (root.mode & SETGID) === 0;
}

export type ChangePolicy = 'Always' | 'OnRootMismatch';

function walk(path: string, fsGroup: number, readOnly: boolean): void {
  const stat = lstatSync(path);
  lchownSync(path, -1, fsGroup);
  // A link's own mode means nothing; its target is walked where it lies inside the volume.
  if (stat.isSymbolicLink()) return;
  chmodSync(path, ownedMode(stat.mode, stat.isDirectory(), readOnly));
  if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name), fsGroup, readOnly);
}

/** Applies fsGroup to a volume's directory as the kubelet does before the containers start. */
export function applyOwnership(dir: string, fsGroup: number, readOnly: boolean, policy: ChangePolicy): void {
  if (policy === 'OnRootMismatch') {
    const stat = lstatSync(dir);
    if (!rootNeedsChange({ gid: stat.gid, mode: stat.mode, isDir: stat.isDirectory() }, fsGroup, readOnly)) return;
  }
  walk(dir, fsGroup, readOnly);
}

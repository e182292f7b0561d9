/**
 * The effects behind a sandbox plan: looking at the host, creating a container attempt's
 * layer (upper directory, mount points, its /tmp, the termination-log file, the fstab), and
 * finding out once at agent start which kind of sandbox this machine allows.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { cleanPath, within, type Entry } from './paths.ts';
import { fstab, layerPaths, type Create, type SandboxMode, type SandboxPlan } from './sandbox.ts';

/** The host as the agent sees it, symlinks not followed. */
export function hostView(path: string): Entry {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return { kind: 'symlink', target: readlinkSync(path) };
    return { kind: stat.isDirectory() ? 'dir' : 'file' };
  } catch {
    return { kind: 'missing' };
  }
}

/** Mount points of this mount namespace other than `/` (mountinfo's fifth field, unescaped). */
export function hostSubmounts(mountinfo = '/proc/self/mountinfo'): string[] {
  let text: string;
  try {
    text = readFileSync(mountinfo, 'utf8');
  } catch {
    return [];
  }
  const points = text.split('\n').flatMap((line) => {
    const point = line.split(' ')[4];
    return point === undefined
      ? []
      : [point.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)))];
  });
  return [...new Set(points)].filter((p) => p !== '/');
}

/**
 * Creates `path` below `upper` and the directories above it. A directory the host's root
 * also has is created with the host's mode and owner, as an overlay copies it up, so that
 * the container sees /home/x as the image has it and not as root's 0755.
 */
function ensureUpperDirs(upper: string, path: string, submounts: readonly string[]): void {
  let prefix = '';
  for (const part of cleanPath(path)
    .split('/')
    .filter((p) => p !== '')) {
    prefix = `${prefix}/${part}`;
    const target = join(upper, prefix);
    if (existsSync(target)) continue;
    const inSubmount = submounts.some((m) => within(prefix, m) && prefix !== cleanPath(m));
    const lower = inSubmount ? undefined : statSync(prefix, { throwIfNoEntry: false });
    mkdirSync(target);
    if (lower?.isDirectory() === true) {
      chmodSync(target, lower.mode & 0o7777);
      chownSync(target, lower.uid, lower.gid);
    } else {
      chmodSync(target, 0o755);
    }
  }
}

function create(item: Create, upper: string, submounts: readonly string[]): void {
  const path = item.where === 'upper' ? join(upper, item.path) : item.path;
  if (item.where === 'upper') ensureUpperDirs(upper, dirname(item.path), submounts);
  else mkdirSync(dirname(path), { recursive: true });
  if (existsSync(path) || hostView(path).kind === 'symlink') return;
  if (item.kind === 'symlink') symlinkSync(item.target ?? '', path);
  else if (item.kind === 'file') writeFileSync(path, '', { mode: item.mode ?? 0o644 });
  else if (item.where === 'upper') ensureUpperDirs(upper, item.path, submounts);
  // Like runc creating a missing cwd or mount point: root's, 0755.
  else mkdirSync(path, { recursive: true, mode: item.mode ?? 0o755 });
}

/** Creates the layer of one container attempt as the plan describes it; writes its fstab. */
export function prepareSandbox(layer: string, plan: SandboxPlan, submounts: readonly string[]): void {
  const paths = layerPaths(layer);
  for (const dir of [paths.upper, paths.work, paths.root, paths.memory]) mkdirSync(dir, { recursive: true });
  mkdirSync(paths.tmp, { recursive: true });
  // Any user may write its own /tmp, as an image's.
  chmodSync(paths.tmp, 0o1777);
  // Written by the container's user, whoever it is: the kubelet makes it 0666 as well.
  writeFileSync(paths.terminationLog, '');
  chmodSync(paths.terminationLog, 0o666);
  for (const item of plan.create) create(item, paths.upper, submounts);
  writeFileSync(paths.fstab, fstab(plan.entries, paths.root));
}

/** Removes a layer; nothing is mounted on the host side, so this is a plain removal. */
export function removeLayer(layer: string): void {
  rmSync(layer, { recursive: true, force: true });
}

const probeScript = (dir: string, memory: boolean): string => {
  const upper = memory ? `${dir}/memory/upper` : `${dir}/upper`;
  const work = memory ? `${dir}/memory/work` : `${dir}/work`;
  const prepare = memory ? `mount -t tmpfs tmpfs ${dir}/memory && mkdir ${upper} ${work} && ` : '';
  return `${prepare}mount -t overlay overlay -o lowerdir=/,upperdir=${upper},workdir=${work} ${dir}/root && unshare --root=${dir}/root --wd=/ setpriv --inh-caps=-all -- true`;
};

/**
 * Which sandbox this machine allows: an overlay root needs root, mount namespaces, overlayfs
 * and util-linux's unshare --root and setpriv; its upper directory needs a disk that overlayfs
 * takes as upper (not overlayfs itself), else it goes to memory. Tried once, at agent start.
 */
export function probeSandbox(stateDir: string): SandboxMode {
  if (process.getuid?.() !== 0) return 'none';
  const dir = join(stateDir, 'probe');
  const attempt = (memory: boolean): boolean => {
    rmSync(dir, { recursive: true, force: true });
    for (const sub of ['upper', 'work', 'root', 'memory']) mkdirSync(join(dir, sub), { recursive: true });
    return (
      spawnSync('unshare', ['--mount', '--propagation', 'private', '--', '/bin/sh', '-c', probeScript(dir, memory)], {
        stdio: 'ignore',
      }).status === 0
    );
  };
  try {
    if (/[,:\s]/.test(stateDir)) return 'none';
    if (attempt(false)) return 'overlay';
    return attempt(true) ? 'overlay-tmpfs' : 'none';
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

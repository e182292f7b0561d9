/**
 * The plan of a container's own root, as plain data: the mounts to make (one fstab, mounted by
 * one `mount -a` in the container's private mount namespace), what to create beforehand so
 * that every mount point exists inside the root and never on the host, and the working
 * directory. Pure: the file system is looked at through the views it is given.
 *
 * The root is an overlay of the host's `/` (the host is the image) with an upper directory of
 * this container attempt's own, so a write anywhere lands in the container's tree. /proc, /sys,
 * a /dev of its own, /tmp of its own, the volumes and the termination-log file are mounted on
 * top; the agent's state is hidden under an empty tmpfs.
 */
import { join } from 'node:path';
import { cleanPath, depth, findExecutable, resolveInRoot, within, type Entry, type View } from './paths.ts';

/** Overlay with its upper directory on disk; or in memory where the disk cannot hold one; or none. */
export type SandboxMode = 'overlay' | 'overlay-tmpfs' | 'none';

/** Where a container without workingDir starts: its Pod's scratch directory. */
export const SCRATCH_PATH = '/kubedag/scratch';

export const DEFAULT_TERMINATION_PATH = '/dev/termination-log';

/** Host devices a container gets, as runc creates them. */
export const DEVICES = ['null', 'zero', 'full', 'random', 'urandom', 'tty'] as const;

/** Links every container's /dev has (bash's process substitution needs /dev/fd). */
export const DEV_LINKS: Readonly<Record<string, string>> = {
  ptmx: 'pts/ptmx',
  fd: '/proc/self/fd',
  stdin: '/proc/self/fd/0',
  stdout: '/proc/self/fd/1',
  stderr: '/proc/self/fd/2',
};

export interface VolumeMount {
  /** The volume's directory (or file, with subPath) on the host. */
  readonly source: string;
  /** The mount path in the container. */
  readonly target: string;
  readonly readOnly: boolean;
  readonly file: boolean;
}

export interface SandboxInput {
  /** This container attempt's directory on the host (upper, work, root, tmp, ...). */
  readonly layer: string;
  /** The Pod's scratch directory on the host. */
  readonly scratch: string;
  readonly mounts: readonly VolumeMount[];
  readonly workingDir: string | undefined;
  readonly terminationMessagePath: string | undefined;
  readonly readOnlyRoot: boolean;
  /** Host directories the container must not see (the cluster's and the agent's state). */
  readonly hide: readonly string[];
  /** Mount points of the host besides `/`: an overlay of `/` shows what lies under them. */
  readonly submounts: readonly string[];
  /** The upper directory lives in a tmpfs (the disk under the layer cannot hold one). */
  readonly upperOnTmpfs: boolean;
  /** The container's argv[0] and PATH, to fail the start as a runtime does when it is missing. */
  readonly command: { readonly name: string; readonly searchPath: string };
}

/** Something to create before the start: in the root's upper directory, or on the host. */
export interface Create {
  readonly where: 'upper' | 'host';
  readonly path: string;
  readonly kind: 'dir' | 'file' | 'symlink';
  readonly target?: string;
  readonly mode?: number;
}

export interface FstabEntry {
  readonly source: string;
  /** Container path (mounted below the root). */
  readonly target: string;
  readonly type: string;
  readonly options: string;
}

export interface SandboxPlan {
  readonly root: string;
  readonly upper: string;
  readonly cwd: string;
  readonly entries: readonly FstabEntry[];
  readonly create: readonly Create[];
  /** The host file that becomes the container's termination-message file. */
  readonly terminationLog: string;
  /** The command's path inside the root; undefined when it cannot be found there. */
  readonly executable: string | undefined;
}

export interface LayerPaths {
  readonly upper: string;
  readonly work: string;
  /** The tmpfs the upper and work directories are copied into, when the disk cannot hold them. */
  readonly memory: string;
  readonly root: string;
  readonly tmp: string;
  readonly terminationLog: string;
  readonly fstab: string;
  readonly setupError: string;
}

export const layerPaths = (layer: string): LayerPaths => ({
  upper: join(layer, 'upper'),
  work: join(layer, 'work'),
  memory: join(layer, 'memory'),
  root: join(layer, 'root'),
  tmp: join(layer, 'tmp'),
  terminationLog: join(layer, 'termination-log'),
  fstab: join(layer, 'fstab'),
  setupError: join(layer, 'setup-error'),
});

interface Bind {
  readonly source: string;
  readonly target: string;
  readonly readOnly: boolean;
  readonly file: boolean;
  readonly type?: string;
  readonly options?: string;
}

/**
 * How the root looks before it is mounted: the host's root file system without its submounts
 * (an overlay does not cross mount points), and the binds planned so far on top.
 */
function rootView(input: SandboxInput, binds: readonly Bind[], host: View): View {
  return (path) => {
    const owner = [...binds].reverse().find((b) => b.type === undefined && within(path, b.target));
    if (owner !== undefined) return host(join(owner.source, path.slice(cleanPath(owner.target).length)));
    if (input.submounts.some((m) => within(path, m) && path !== cleanPath(m))) return { kind: 'missing' };
    return host(path);
  };
}

/** Where a mount point is created: inside the bind that holds it, else in the upper directory. */
function createTarget(path: string, kind: 'dir' | 'file', binds: readonly Bind[], view: View): Create | undefined {
  const owner = [...binds].reverse().find((b) => within(path, b.target));
  if (owner !== undefined) {
    if (cleanPath(owner.target) === path || owner.type !== undefined) return undefined;
    return { where: 'host', path: join(owner.source, path.slice(cleanPath(owner.target).length)), kind };
  }
  return view(path).kind === 'missing' ? { where: 'upper', path, kind } : undefined;
}

const fixedBinds = (input: SandboxInput, tmp: string): Bind[] => [
  { source: tmp, target: '/tmp', readOnly: input.readOnlyRoot, file: false },
  ...DEVICES.map((name) => ({ source: `/dev/${name}`, target: `/dev/${name}`, readOnly: false, file: true })),
  {
    source: 'shm',
    target: '/dev/shm',
    readOnly: false,
    file: false,
    type: 'tmpfs',
    options: 'nosuid,nodev,noexec,mode=1777,size=65536k',
  },
  {
    source: 'devpts',
    target: '/dev/pts',
    readOnly: false,
    file: false,
    type: 'devpts',
    options: 'newinstance,ptmxmode=0666,mode=0620,nosuid,noexec',
  },
  ...(input.workingDir === undefined
    ? [{ source: input.scratch, target: SCRATCH_PATH, readOnly: false, file: false }]
    : []),
];

/** The plan for one container attempt; `host` looks at the host as the agent sees it. */
export function planSandbox(input: SandboxInput, host: View): SandboxPlan {
  const paths = layerPaths(input.layer);
  // Parents before children, as containerd orders mounts; fixed mounts first among equals.
  const wanted = [...fixedBinds(input, paths.tmp), ...input.mounts]
    .map((b, index) => ({ b, index }))
    .sort((x, y) => depth(x.b.target) - depth(y.b.target) || x.index - y.index)
    .map(({ b }) => b);
  const binds: Bind[] = [];
  const create: Create[] = [
    ...DEVICES.map((name): Create => ({ where: 'upper', path: `/dev/${name}`, kind: 'file' })),
    ...Object.entries(DEV_LINKS).map(([name, target]): Create => ({
      where: 'upper',
      path: `/dev/${name}`,
      kind: 'symlink',
      target,
    })),
  ];
  const place = (bind: Bind): void => {
    const view = rootView(input, binds, host);
    const target = bind.type === undefined ? resolveInRoot(bind.target, view) : bind.target;
    const made = createTarget(target, bind.file ? 'file' : 'dir', binds, view);
    if (made !== undefined && !create.some((c) => c.where === made.where && c.path === made.path)) create.push(made);
    binds.push({ ...bind, target });
  };
  wanted.forEach(place);
  place({
    source: paths.terminationLog,
    target: input.terminationMessagePath ?? DEFAULT_TERMINATION_PATH,
    readOnly: false,
    file: true,
  });
  const view = rootView(input, binds, host);
  const cwd = input.workingDir === undefined ? SCRATCH_PATH : resolveInRoot(input.workingDir, view);
  const workDir = createTarget(cwd, 'dir', binds, view);
  const entries: FstabEntry[] = [
    { source: 'overlay', target: '/', type: 'overlay', options: overlayOptions(input, paths) },
    { source: 'proc', target: '/proc', type: 'proc', options: 'nosuid,nodev,noexec' },
    { source: 'sysfs', target: '/sys', type: 'sysfs', options: 'ro,nosuid,nodev,noexec' },
    ...hidden(input).map((path) => ({
      source: 'tmpfs',
      target: path,
      type: 'tmpfs',
      options: 'ro,nosuid,nodev,noexec,size=4k,mode=0755',
    })),
    ...binds.map((b) => ({
      source: b.source,
      target: b.target,
      type: b.type ?? 'none',
      options: b.options ?? (b.readOnly ? 'bind,ro' : 'bind'),
    })),
  ];
  const executable = findExecutable(input.command.name, input.command.searchPath, view, cwd);
  return {
    root: paths.root,
    upper: paths.upper,
    cwd,
    entries,
    create: workDir === undefined ? create : [...create, workDir],
    terminationLog: paths.terminationLog,
    executable,
  };
}

function overlayOptions(input: SandboxInput, paths: LayerPaths): string {
  const [upper, work] = input.upperOnTmpfs
    ? [join(paths.memory, 'upper'), join(paths.memory, 'work')]
    : [paths.upper, paths.work];
  return `${input.readOnlyRoot ? 'ro,' : ''}lowerdir=/,upperdir=${upper},workdir=${work}`;
}

/**
 * Hidden directories that nothing hides already: /tmp of the container's own, or another of
 * them (a mount point inside an empty tmpfs does not exist, so the mount would fail).
 */
function hidden(input: SandboxInput): string[] {
  const paths = [...new Set(input.hide.map(cleanPath))].filter((path) => path !== '/' && !within(path, '/tmp'));
  return paths.filter((path) => !paths.some((other) => other !== path && within(path, other)));
}

/** fstab's escapes for a field: space, tab, newline and backslash as octal. */
function field(text: string): string {
  return text.replace(/[\s\\]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
}

/** The fstab `mount -a -T` reads; targets are placed below `root`. */
export function fstab(entries: readonly FstabEntry[], root: string): string {
  return entries
    .map(
      (e) => `${field(e.source)} ${field(e.target === '/' ? root : join(root, e.target))} ${e.type} ${e.options} 0 0\n`,
    )
    .join('');
}

export type { Entry, View };

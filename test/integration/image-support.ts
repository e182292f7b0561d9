/**
 * Kubedag's image run the way a container runtime runs it, without one: the archive read by
 * skopeo and unpacked by umoci (both Debian's), and a container started as a process chrooted
 * into the unpacked root, in a mount namespace of its own, with Kubernetes' rules for command,
 * environment, working directory, user and read-only root applied to a container spec from the
 * chart. The process keeps the host's network, so it reaches the local control plane on loopback.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { V1Container, V1PodSpec } from '@kubernetes/client-node';

const exec = promisify(execFile);

/** The parts of an OCI image config a runtime uses to start a container. */
export interface ImageConfig {
  readonly User?: string;
  readonly Env?: readonly string[];
  readonly Entrypoint?: readonly string[];
  readonly Cmd?: readonly string[];
  readonly WorkingDir?: string;
  readonly ExposedPorts?: Readonly<Record<string, object>>;
  readonly Labels?: Readonly<Record<string, string>>;
}

export interface Unpacked {
  readonly rootfs: string;
  readonly config: ImageConfig;
}

/** The archive as a runtime gets it: copied by skopeo into an OCI layout, unpacked by umoci. */
export async function unpackImage(archive: string, tag: string, dir: string): Promise<Unpacked> {
  await mkdir(dir, { recursive: true });
  await exec('skopeo', ['copy', '--quiet', `oci-archive:${archive}`, `oci:${join(dir, 'layout')}:${tag}`]);
  await exec('umoci', ['unpack', '--image', `${join(dir, 'layout')}:${tag}`, join(dir, 'bundle')]);
  const { stdout } = await exec('skopeo', ['inspect', '--config', `oci-archive:${archive}`]);
  return { rootfs: join(dir, 'bundle/rootfs'), config: (JSON.parse(stdout) as { config: ImageConfig }).config };
}

export interface Mount {
  /** A file or directory on the host. */
  readonly source: string;
  /** Its path in the container. */
  readonly target: string;
  readonly readOnly?: boolean;
}

export interface ContainerProcess {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly workingDir: string;
  readonly uid: number;
  readonly gid: number;
  readonly groups: readonly number[];
  readonly readOnlyRoot: boolean;
}

/**
 * What a kubelet starts for `container` of `pod` from `image`: `command` replaces the image's
 * Entrypoint and `args` its Cmd; the container's env goes over the image's; the securityContext
 * (container over Pod) over the image's User; fsGroup joins the supplementary groups.
 */
export function containerProcess(
  image: ImageConfig,
  pod: V1PodSpec,
  container: V1Container,
  injected: Readonly<Record<string, string>>,
): ContainerProcess {
  return {
    argv:
      container.command !== undefined
        ? [...container.command, ...(container.args ?? [])]
        : [...(image.Entrypoint ?? []), ...(container.args ?? image.Cmd ?? [])],
    env: { ...injected, ...environment(image, container) },
    workingDir: container.workingDir ?? image.WorkingDir ?? '/',
    ...identity(image, pod, container),
    readOnlyRoot: container.securityContext?.readOnlyRootFilesystem === true,
  };
}

function environment(image: ImageConfig, container: V1Container): Record<string, string> {
  const env: Record<string, string> = Object.fromEntries(
    (image.Env ?? []).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  for (const variable of container.env ?? []) {
    if (variable.value === undefined)
      throw new Error(`env ${variable.name} comes from a reference, which this runner does not resolve`);
    env[variable.name] = variable.value;
  }
  return env;
}

function identity(
  image: ImageConfig,
  pod: V1PodSpec,
  container: V1Container,
): Pick<ContainerProcess, 'uid' | 'gid' | 'groups'> {
  const [imageUid = 0, imageGid] = (image.User ?? '0').split(':').map(Number);
  const context = { ...pod.securityContext, ...container.securityContext };
  const uid = context.runAsUser ?? imageUid;
  const gid = context.runAsGroup ?? imageGid ?? uid;
  const fsGroup = pod.securityContext?.fsGroup;
  return {
    uid,
    gid,
    groups: [
      ...new Set([
        gid,
        ...(fsGroup === undefined ? [] : [fsGroup]),
        ...(pod.securityContext?.supplementalGroups ?? []),
      ]),
    ],
  };
}

/** Creates a mount point inside the root, refusing any path through a symbolic link (which could lead out of it). */
async function mountPoint(rootfs: string, target: string, kind: 'file' | 'directory'): Promise<void> {
  const parts = target.split('/').filter((p) => p !== '');
  for (let i = 1; i <= parts.length; i++) {
    const path = join(rootfs, ...parts.slice(0, i));
    const stat = await lstat(path).catch(() => undefined);
    if (stat?.isSymbolicLink() === true)
      throw new Error(`mount point ${target} passes through the symbolic link /${parts.slice(0, i).join('/')}`);
    if (stat !== undefined) continue;
    if (i === parts.length && kind === 'file') await writeFile(path, '');
    else await mkdir(path);
  }
}

/** Mounts in the container's namespace, then the root made read-only, then chroot as the user, then env: each execs the next, so the pid is the program's. */
const SETUP = [
  'set -e',
  'root=$1; shift',
  'mount --bind "$root" "$root"',
  'mount -t proc -o nosuid,nodev,noexec proc "$root/proc"',
  'mount -t tmpfs -o nosuid,mode=0755 tmpfs "$root/dev"',
  'for d in null zero full random urandom tty; do : > "$root/dev/$d"; mount --bind "/dev/$d" "$root/dev/$d"; done',
  'ln -s /proc/self/fd "$root/dev/fd"; ln -s fd/0 "$root/dev/stdin"; ln -s fd/1 "$root/dev/stdout"; ln -s fd/2 "$root/dev/stderr"',
  // A mount point under /dev lies in the tmpfs just made: created there as the kubelet does.
  'while [ "$1" != -- ]; do [ -e "$root$2" ] || : > "$root$2"; mount --bind "$1" "$root$2"; if [ "$3" = ro ]; then mount -o remount,bind,ro "$root$2"; fi; shift 3; done; shift',
  'if [ "$1" = ro ]; then mount -o remount,bind,ro "$root"; fi; shift',
  'user=$1; groups=$2; shift 2',
  'exec chroot --userspec="$user" --groups="$groups" "$root" "$@"',
].join('\n');

export interface RunningContainer {
  readonly process: ChildProcess;
  readonly output: () => string;
  /** SIGTERM, SIGKILL after 10 s; resolves with the exit code once it is gone. */
  stop(): Promise<number | null>;
  /** Resolves with the exit code when it ends by itself. */
  readonly exited: Promise<number | null>;
}

/** Starts the process in the unpacked root with the mounts (as root: mount namespaces and chroot need it). */
export async function startInImage(
  rootfs: string,
  container: ContainerProcess,
  mounts: readonly Mount[],
): Promise<RunningContainer> {
  for (const mount of mounts)
    await mountPoint(rootfs, mount.target, (await lstat(mount.source)).isDirectory() ? 'directory' : 'file');
  const passwd = await readFile(join(rootfs, 'etc/passwd'), 'utf8');
  const home =
    passwd
      .split('\n')
      .find((line) => line.split(':')[2] === String(container.uid))
      ?.split(':')[5] ?? '/';
  const env = { HOME: home, ...container.env };
  const args = [
    '--mount',
    '--propagation',
    'private',
    '--',
    'sh',
    '-c',
    SETUP,
    'setup',
    rootfs,
    ...mounts.flatMap((m) => [m.source, m.target, m.readOnly === true ? 'ro' : 'rw']),
    '--',
    container.readOnlyRoot ? 'ro' : 'rw',
    `${String(container.uid)}:${String(container.gid)}`,
    container.groups.join(','),
    '/usr/bin/env',
    '-i',
    `--chdir=${container.workingDir}`,
    ...Object.entries(env).map(([name, value]) => `${name}=${value}`),
    ...container.argv,
  ];
  const child = spawn('unshare', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (code) => {
      resolve(code);
    }),
  );
  return {
    process: child,
    output: () => output,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        const code = await exited;
        clearTimeout(timer);
        return code;
      }
      return exited;
    },
  };
}

/** Runs a command in the image to its end: exit code and output. */
export async function runInImage(
  rootfs: string,
  container: ContainerProcess,
  mounts: readonly Mount[] = [],
): Promise<{ code: number | null; output: string }> {
  const running = await startInImage(rootfs, container, mounts);
  const code = await running.exited;
  return { code, output: running.output() };
}

/** A process's real user id and the options of the mount at its root, from /proc. */
export async function processFacts(pid: number): Promise<{ uid: number; rootMountOptions: string[] }> {
  const status = await readFile(`/proc/${String(pid)}/status`, 'utf8');
  const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
  const mountinfo = await readFile(`/proc/${String(pid)}/mountinfo`, 'utf8');
  // Fields: id parent major:minor root mount-point options ...; the process sees its root as /.
  const root = mountinfo
    .split('\n')
    .map((line) => line.split(' '))
    .find((fields) => fields[4] === '/');
  return { uid, rootMountOptions: (root?.[5] ?? '').split(',') };
}

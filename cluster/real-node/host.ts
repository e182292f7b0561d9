/**
 * What the real node leaves on the host outside its own folder, and how all of it is taken away
 * again: the kubelet's cgroups (under one root in every hierarchy), containerd's shims and their
 * fixed /run/containerd, the kubelet's fixed /var/lib/kubelet/device-plugins and
 * /var/log/containers, mounts, and the kernel settings the kubelet changes machine-wide. What
 * existed before the node started is recorded then, so that only what it made is removed.
 */
import { execFile } from 'node:child_process';
import { access, mkdir, readdir, readFile, rm, rmdir, writeFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { CGROUP_ROOT } from './config.ts';

const exec = promisify(execFile);

/** Fixed paths that the kubelet, containerd and the CNI plugins may create whatever they are told. */
export const HOST_PATHS: readonly string[] = [
  '/run/containerd',
  '/var/lib/kubelet',
  '/var/log/containers',
  '/var/log/pods',
  '/var/lib/cni',
  '/etc/cni',
  '/opt/containerd',
  '/var/lib/containerd',
  '/run/nri',
  '/etc/nri',
  '/etc/kubernetes',
  '/run/runc',
];

/** The machine-wide kernel settings the kubelet sets at start (setupKernelTunables). */
export const SYSCTLS: readonly string[] = [
  'vm/overcommit_memory',
  'vm/panic_on_oom',
  'kernel/panic',
  'kernel/panic_on_oops',
  'kernel/keys/root_maxkeys',
  'kernel/keys/root_maxbytes',
];

export interface HostRecord {
  /** HOST_PATHS that did not exist before the node started. */
  readonly absent: readonly string[];
  /** SYSCTLS as they were. */
  readonly sysctls: Readonly<Record<string, string>>;
}

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

export async function recordHost(): Promise<HostRecord> {
  const absent = [];
  for (const path of HOST_PATHS) if (!(await exists(path))) absent.push(path);
  const sysctls: Record<string, string> = {};
  for (const name of SYSCTLS) sysctls[name] = (await readFile(join('/proc/sys', name), 'utf8')).trim();
  return { absent, sysctls };
}

interface Mount {
  readonly point: string;
  readonly type: string;
}

/** Mount points as the kernel lists them (octal escapes decoded). */
export function parseMountinfo(text: string): Mount[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const fields = line.split(' ');
      const dash = fields.indexOf('-');
      const decode = (s: string): string =>
        s.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
      return { point: decode(fields[4] ?? ''), type: fields[dash + 1] ?? '' };
    });
}

async function mounts(): Promise<Mount[]> {
  return parseMountinfo(await readFile('/proc/self/mountinfo', 'utf8'));
}

/** The cgroup hierarchies mounted under /sys/fs/cgroup (one for cgroup v2). */
export async function cgroupHierarchies(): Promise<string[]> {
  return (await mounts())
    .filter((m) => (m.type === 'cgroup' || m.type === 'cgroup2') && m.point.startsWith('/sys/fs/cgroup'))
    .map((m) => m.point);
}

/** Makes the kubelet's cgroup root in every hierarchy (it must exist); cpuset's takes its parent's CPUs and memory nodes. */
export async function makeCgroupRoot(): Promise<void> {
  for (const hierarchy of await cgroupHierarchies()) {
    const dir = join(hierarchy, CGROUP_ROOT);
    await mkdir(dir, { recursive: true });
    for (const file of ['cpuset.cpus', 'cpuset.mems']) {
      if (await exists(join(dir, file)))
        await writeFile(join(dir, file), await readFile(join(hierarchy, file), 'utf8'));
    }
  }
}

/** Every cgroup under the root in one hierarchy, deepest first. */
async function cgroupsUnder(dir: string): Promise<string[]> {
  if (!(await exists(dir))) return [];
  const children = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory());
  const nested = await Promise.all(children.map((c) => cgroupsUnder(join(dir, c.name))));
  return [...nested.flat(), dir];
}

async function pidsIn(cgroups: readonly string[]): Promise<number[]> {
  const lists = await Promise.all(cgroups.map((c) => readFile(join(c, 'cgroup.procs'), 'utf8').catch(() => '')));
  return lists.flatMap((text) =>
    text
      .split('\n')
      .filter((line) => line !== '')
      .map(Number),
  );
}

const kill = (pid: number): void => {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
};

/** Kills every process left in the node's cgroups (the Pods' containers), then removes the cgroups. */
export async function removeCgroups(log: (line: string) => void): Promise<void> {
  for (const hierarchy of await cgroupHierarchies()) {
    const cgroups = await cgroupsUnder(join(hierarchy, CGROUP_ROOT));
    for (let attempt = 0; attempt < 100; attempt++) {
      const pids = await pidsIn(cgroups);
      if (pids.length === 0) break;
      pids.forEach(kill);
      await sleep(50);
    }
    for (const cgroup of cgroups)
      await rmdir(cgroup).catch((error: unknown) => {
        log(`could not remove cgroup ${cgroup}: ${(error as Error).message}`);
      });
  }
}

/** Kills the runc shims that the node's containerd started (they outlive containerd by design). */
export async function killShims(socket: string): Promise<number> {
  let killed = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const argv = (await readFile(join('/proc', entry, 'cmdline'), 'utf8').catch(() => '')).split('\0');
    if (!(argv[0] ?? '').endsWith('containerd-shim-runc-v2')) continue;
    if (argv.includes(socket)) {
      kill(Number(entry));
      killed++;
    }
  }
  return killed;
}

/** Unmounts everything mounted at or under the given folders, deepest first. */
export async function unmountUnder(roots: readonly string[], log: (line: string) => void): Promise<void> {
  const under = (point: string): boolean => roots.some((root) => point === root || point.startsWith(`${root}/`));
  const points = (await mounts())
    .map((m) => m.point)
    .filter(under)
    .reverse();
  for (const point of points) {
    await exec('umount', [point]).catch(() =>
      exec('umount', ['-l', point]).catch((error: unknown) => {
        log(`could not unmount ${point}: ${(error as Error).message}`);
      }),
    );
  }
}

/** Removes the fixed host paths the node made, its links in /var/log/containers, and restores the kernel settings. */
export async function restoreHost(record: HostRecord, podLogs: string, log: (line: string) => void): Promise<void> {
  for (const path of record.absent) await rm(path, { recursive: true, force: true });
  if (!record.absent.includes('/var/log/containers')) {
    for (const name of await readdir('/var/log/containers').catch(() => [])) {
      const target = await readlink(join('/var/log/containers', name)).catch(() => '');
      if (target.startsWith(`${podLogs}/`)) await rm(join('/var/log/containers', name), { force: true });
    }
  }
  for (const [name, value] of Object.entries(record.sysctls)) {
    const now = (await readFile(join('/proc/sys', name), 'utf8').catch(() => value)).trim();
    if (now !== value) {
      await writeFile(join('/proc/sys', name), value).catch((error: unknown) => {
        log(`could not restore ${name} to ${value}: ${(error as Error).message}`);
      });
    }
  }
}

/**
 * CPU and memory limits through cgroups, where this machine lets the agent write them (found
 * out at start, never assumed): each container with limits gets a cgroup below the agent's
 * own (`kubedag-<node>/<pod uid>-<container>-<attempt>`), so the node's own limits still hold
 * over its Pods. cgroup v1 (memory and cpu hierarchies) and v2 (when the agent's cgroup lets
 * it enable the controllers below it). After the container ends, an OOM kill is read from the
 * cgroup, so that the container is reported OOMKilled as the kubelet reports it.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CPU_PERIOD_US, type Limits } from './quantity.ts';

export interface Hierarchy {
  readonly version: 1 | 2;
  readonly controllers: readonly string[];
  readonly mountPoint: string;
  /** The part of the hierarchy this mount shows (mountinfo's fourth field). */
  readonly root: string;
}

/** cgroup mounts from mountinfo: v1 hierarchies with their controllers, and the v2 one. */
export function parseCgroupMounts(mountinfo: string): Hierarchy[] {
  return mountinfo.split('\n').flatMap((line): Hierarchy[] => {
    const [before = '', after = ''] = line.split(' - ');
    const [, , , root = '', mountPoint = ''] = before.split(' ');
    const [type = '', , options = ''] = after.split(' ');
    if (type === 'cgroup2') return [{ version: 2 as const, controllers: [], mountPoint, root }];
    if (type !== 'cgroup') return [];
    return [
      {
        version: 1 as const,
        controllers: options.split(',').filter((o) => o === 'memory' || o === 'cpu'),
        mountPoint,
        root,
      },
    ];
  });
}

/** /proc/self/cgroup: the path of this process in each hierarchy, by controller ('' for v2). */
export function parseProcCgroup(text: string): Map<string, string> {
  const paths = new Map<string, string>();
  for (const line of text.split('\n')) {
    const [, controllers = '', ...path] = line.split(':');
    if (path.length === 0) continue;
    for (const controller of controllers === '' ? [''] : controllers.split(',')) paths.set(controller, path.join(':'));
  }
  return paths;
}

/** The directory of this process's cgroup in a hierarchy, if the mount shows it. */
export function ownDirectory(hierarchy: Hierarchy, path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  if (hierarchy.root === '/') return join(hierarchy.mountPoint, path);
  return path === hierarchy.root || path.startsWith(`${hierarchy.root}/`)
    ? join(hierarchy.mountPoint, path.slice(hierarchy.root.length))
    : undefined;
}

/** The files a container's limits are written to, in order. */
export function limitWrites(
  version: 1 | 2,
  limits: Limits,
  memsw: boolean,
): { controller: 'memory' | 'cpu'; file: string; value: string }[] {
  const writes: { controller: 'memory' | 'cpu'; file: string; value: string }[] = [];
  const { memoryBytes: memory, cpuQuotaUs: quota } = limits;
  if (memory !== undefined && version === 1) {
    writes.push({ controller: 'memory', file: 'memory.limit_in_bytes', value: String(memory) });
    // No swap for containers, as the kubelet runs them: memory and swap together get the same limit.
    if (memsw) writes.push({ controller: 'memory', file: 'memory.memsw.limit_in_bytes', value: String(memory) });
  }
  if (memory !== undefined && version === 2)
    writes.push(
      { controller: 'memory', file: 'memory.max', value: String(memory) },
      { controller: 'memory', file: 'memory.swap.max', value: '0' },
    );
  if (quota !== undefined && version === 1)
    writes.push(
      { controller: 'cpu', file: 'cpu.cfs_period_us', value: String(CPU_PERIOD_US) },
      { controller: 'cpu', file: 'cpu.cfs_quota_us', value: String(quota) },
    );
  if (quota !== undefined && version === 2)
    writes.push({ controller: 'cpu', file: 'cpu.max', value: `${String(quota)} ${String(CPU_PERIOD_US)}` });
  return writes;
}

/** `oom_kill N` from memory.oom_control (v1) or memory.events (v2). */
export function oomKills(text: string): number {
  return Number(/^oom_kill (\d+)$/m.exec(text)?.[1] ?? 0);
}

export interface ContainerCgroup {
  /** cgroup.procs files the container's first process writes itself into. */
  readonly procs: readonly string[];
  readonly oomKilled: () => boolean;
  readonly remove: () => void;
}

/** Where container cgroups go for each controller, and which cgroup version that is. */
interface Bases {
  readonly version: 1 | 2;
  readonly memory?: string;
  readonly cpu?: string;
}

function v1Bases(hierarchies: readonly Hierarchy[], own: ReadonlyMap<string, string>, name: string): Bases {
  const base = (controller: string): string | undefined => {
    const hierarchy = hierarchies.find((h) => h.version === 1 && h.controllers.includes(controller));
    const dir = hierarchy === undefined ? undefined : ownDirectory(hierarchy, own.get(controller));
    return dir === undefined ? undefined : join(dir, name);
  };
  return { version: 1, memory: base('memory'), cpu: base('cpu') };
}

function v2Bases(hierarchies: readonly Hierarchy[], own: ReadonlyMap<string, string>, name: string): Bases {
  const hierarchy = hierarchies.find((h) => h.version === 2);
  const dir = hierarchy === undefined ? undefined : ownDirectory(hierarchy, own.get(''));
  if (dir === undefined) return { version: 2 };
  const base = join(dir, name);
  return { version: 2, memory: base, cpu: base };
}

/** Writes a file, saying whether it worked: a cgroup file refuses what the machine does not allow. */
function tryWrite(path: string, value: string): boolean {
  try {
    writeFileSync(path, value);
    return true;
  } catch {
    return false;
  }
}

export class Cgroups {
  readonly version: 1 | 2;
  readonly memory: boolean;
  readonly cpu: boolean;
  private readonly bases: Bases;

  private constructor(bases: Bases, memory: boolean, cpu: boolean) {
    this.bases = bases;
    this.version = bases.version;
    this.memory = memory;
    this.cpu = cpu;
  }

  /**
   * What this machine allows, tried with a probe cgroup; undefined when neither controller
   * can be written. Left-over container cgroups of an earlier agent are removed.
   */
  static detect(
    node: string,
    mountinfo = '/proc/self/mountinfo',
    procCgroup = '/proc/self/cgroup',
  ): Cgroups | undefined {
    let hierarchies: Hierarchy[];
    let own: Map<string, string>;
    try {
      hierarchies = parseCgroupMounts(readFileSync(mountinfo, 'utf8'));
      own = parseProcCgroup(readFileSync(procCgroup, 'utf8'));
    } catch {
      return undefined;
    }
    const name = `kubedag-${node}`;
    const v1 = v1Bases(hierarchies, own, name);
    const bases = v1.memory !== undefined || v1.cpu !== undefined ? v1 : v2Bases(hierarchies, own, name);
    const probe = new Cgroups(bases, true, true);
    probe.sweep();
    const works = (limits: Limits): boolean => {
      const cgroup = probe.tryCreate('probe', limits);
      cgroup?.remove();
      return cgroup !== undefined;
    };
    const memory = works({ memoryBytes: 64 * 2 ** 20 });
    const cpu = works({ cpuQuotaUs: CPU_PERIOD_US });
    return memory || cpu ? new Cgroups(bases, memory, cpu) : undefined;
  }

  /** A cgroup with these limits for one container attempt; undefined when it cannot be made. */
  create(id: string, limits: Limits): ContainerCgroup | undefined {
    const allowed = {
      ...(this.memory ? { memoryBytes: limits.memoryBytes } : {}),
      ...(this.cpu ? { cpuQuotaUs: limits.cpuQuotaUs } : {}),
    };
    if (allowed.memoryBytes === undefined && allowed.cpuQuotaUs === undefined) return undefined;
    return this.tryCreate(id, allowed);
  }

  private tryCreate(id: string, limits: Limits): ContainerCgroup | undefined {
    const writes = limitWrites(
      this.version,
      limits,
      this.bases.memory !== undefined && existsSync(join(this.bases.memory, '..', 'memory.memsw.limit_in_bytes')),
    );
    const dirs = [...new Set(writes.map((w) => this.bases[w.controller]))].flatMap((base) =>
      base === undefined ? [] : [join(base, id)],
    );
    const remove = (): void => {
      for (const dir of dirs) {
        try {
          rmdirSync(dir);
        } catch {
          // Still busy or gone: the next sweep takes it.
        }
      }
    };
    const made = dirs.length > 0 && dirs.every((dir) => this.ensure(dir));
    const written = made && writes.every((w) => tryWrite(join(this.bases[w.controller] ?? '', id, w.file), w.value));
    if (!written) {
      remove();
      return undefined;
    }
    const memoryDir = this.bases.memory === undefined ? undefined : join(this.bases.memory, id);
    const events = this.version === 1 ? 'memory.oom_control' : 'memory.events';
    return {
      procs: dirs.map((dir) => join(dir, 'cgroup.procs')),
      oomKilled: () =>
        memoryDir !== undefined &&
        limits.memoryBytes !== undefined &&
        oomKills(readFileSync(join(memoryDir, events), 'utf8')) > 0,
      remove,
    };
  }

  /** Makes a cgroup directory (and, on v2, lets its parent hand the controllers down). */
  private ensure(dir: string): boolean {
    try {
      mkdirSync(join(dir, '..'), { recursive: true });
      if (this.version === 2) tryWrite(join(dir, '..', 'cgroup.subtree_control'), '+memory +cpu');
      mkdirSync(dir, { recursive: true });
      return true;
    } catch {
      return false;
    }
  }

  /** At agent shutdown: its container cgroups, then its own base cgroups, where empty. */
  close(): void {
    this.sweep();
    for (const base of new Set([this.bases.memory, this.bases.cpu])) {
      try {
        if (base !== undefined) rmdirSync(base);
      } catch {
        // Not empty or gone.
      }
    }
  }

  /** Removes the empty container cgroups an earlier agent left. */
  private sweep(): void {
    for (const base of new Set([this.bases.memory, this.bases.cpu])) {
      if (base === undefined || !existsSync(base)) continue;
      for (const entry of readdirSync(base, { withFileTypes: true })) {
        if (!entry.isDirectory()) continue;
        try {
          rmdirSync(join(base, entry.name));
        } catch {
          // Processes still in it.
        }
      }
    }
  }
}

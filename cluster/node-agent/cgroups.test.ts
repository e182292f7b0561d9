import { describe, expect, it } from 'vitest';
import { limitWrites, oomKills, ownDirectory, parseCgroupMounts, parseProcCgroup } from './cgroups.ts';

const mountinfo = [
  '22 1 0:20 / /sys rw,relatime - sysfs sysfs rw',
  '30 29 0:26 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
  '31 29 0:27 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct',
  '32 29 0:28 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids',
  '33 29 0:29 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
].join('\n');

describe('cgroup discovery', () => {
  it('finds v1 hierarchies with the controllers that matter and the v2 mount', () => {
    expect(parseCgroupMounts(mountinfo).map((h) => [h.version, h.mountPoint, h.controllers])).toEqual([
      [1, '/sys/fs/cgroup/memory', ['memory']],
      [1, '/sys/fs/cgroup/cpu,cpuacct', ['cpu']],
      [1, '/sys/fs/cgroup/pids', []],
      [2, '/sys/fs/cgroup/unified', []],
    ]);
  });

  it("reads this process's path per controller, v2 under the empty name", () => {
    const own = parseProcCgroup('4:memory:/jobs/a\n2:cpu,cpuacct:/\n0::/user.slice/x\n');
    expect([own.get('memory'), own.get('cpu'), own.get('cpuacct'), own.get('')]).toEqual([
      '/jobs/a',
      '/',
      '/',
      '/user.slice/x',
    ]);
  });

  const hierarchy = { version: 1 as const, controllers: ['memory'], mountPoint: '/sys/fs/cgroup/memory' };
  const cases: { name: string; root: string; path: string | undefined; want: string | undefined }[] = [
    {
      name: 'places its own cgroup below a mount of the whole hierarchy',
      root: '/',
      path: '/jobs/a',
      want: '/sys/fs/cgroup/memory/jobs/a',
    },
    {
      name: 'places it below a mount of part of the hierarchy that holds it',
      root: '/jobs',
      path: '/jobs/a',
      want: '/sys/fs/cgroup/memory/a',
    },
    { name: 'gives up when the mount does not show its cgroup', root: '/other', path: '/jobs/a', want: undefined },
    { name: 'gives up when it is in no cgroup of the hierarchy', root: '/', path: undefined, want: undefined },
  ];
  it.each(cases)('$name', ({ root, path, want }) => {
    expect(ownDirectory({ ...hierarchy, root }, path)).toBe(want);
  });
});

describe('limitWrites', () => {
  const limits = { memoryBytes: 1024, cpuQuotaUs: 50000 };
  it('writes v1 memory, memory and swap together, and the CFS quota', () => {
    expect(limitWrites(1, limits, true).map((w) => `${w.file}=${w.value}`)).toEqual([
      'memory.limit_in_bytes=1024',
      'memory.memsw.limit_in_bytes=1024',
      'cpu.cfs_period_us=100000',
      'cpu.cfs_quota_us=50000',
    ]);
  });

  it('writes v2 memory.max with no swap and cpu.max', () => {
    expect(limitWrites(2, limits, false).map((w) => `${w.file}=${w.value}`)).toEqual([
      'memory.max=1024',
      'memory.swap.max=0',
      'cpu.max=50000 100000',
    ]);
  });

  it('writes nothing without limits', () => {
    expect(limitWrites(1, {}, true)).toEqual([]);
  });
});

describe('oomKills', () => {
  it('reads the kill count of memory.oom_control or memory.events', () => {
    expect([
      oomKills('oom_kill_disable 0\nunder_oom 0\noom_kill 2\n'),
      oomKills('low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n'),
      oomKills('under_oom 0\n'),
    ]).toEqual([2, 1, 0]);
  });
});

import { describe, expect, it } from 'vitest';
import type { Entry, View } from './paths.ts';
import { fstab, planSandbox, SCRATCH_PATH, type Create, type SandboxInput } from './sandbox.ts';

/** The host: a Debian-like root with /var/run linking to /run, and a few directories. */
const hostEntries: Record<string, string> = {
  '/var': 'dir',
  '/var/run': '/run',
  '/run': 'dir',
  '/tmp': 'dir',
  '/dev': 'dir',
  '/proc': 'dir',
  '/sys': 'dir',
  '/etc': 'dir',
  '/srv': 'dir',
  '/bin': 'usr/bin',
  '/usr': 'dir',
  '/usr/bin': 'dir',
  '/usr/bin/sh': 'file',
  '/state/pods/u1/volumes/data': 'dir',
  '/state/pods/u1/volumes/data/sub': 'dir',
};
const host: View = (path): Entry => {
  const entry = hostEntries[path];
  if (entry === undefined) return { kind: 'missing' };
  return entry === 'dir' || entry === 'file' ? { kind: entry } : { kind: 'symlink', target: entry };
};

const layer = '/state/pods/u1/containers/main-0';
const base: SandboxInput = {
  layer,
  scratch: '/state/pods/u1/scratch',
  mounts: [],
  workingDir: undefined,
  terminationMessagePath: undefined,
  readOnlyRoot: false,
  hide: ['/state'],
  submounts: ['/proc', '/sys', '/dev', '/dev/pts'],
  upperOnTmpfs: false,
  command: { name: 'sh', searchPath: '/usr/local/bin:/bin' },
};
const plan = (input: Partial<SandboxInput>): ReturnType<typeof planSandbox> => planSandbox({ ...base, ...input }, host);
const targets = (input: Partial<SandboxInput>): string[] =>
  plan(input).entries.map((e) => `${e.target} ${e.type} ${e.options}`);
const created = (input: Partial<SandboxInput>): string[] =>
  plan(input)
    .create.filter((c: Create) => !c.path.startsWith('/dev/'))
    .map((c) => `${c.where}:${c.path}:${c.kind}`);
const data = { source: '/state/pods/u1/volumes/data', readOnly: false, file: false };

describe('planSandbox, the root a container gets', () => {
  it('mounts an overlay of the host, /proc, /sys, hides the agent state, then /tmp, /dev and the scratch directory, parents first', () => {
    expect(targets({})).toEqual([
      `/ overlay lowerdir=/,upperdir=${layer}/upper,workdir=${layer}/work`,
      '/proc proc nosuid,nodev,noexec',
      '/sys sysfs ro,nosuid,nodev,noexec',
      '/state tmpfs ro,nosuid,nodev,noexec,size=4k,mode=0755',
      '/tmp none bind',
      '/dev/null none bind',
      '/dev/zero none bind',
      '/dev/full none bind',
      '/dev/random none bind',
      '/dev/urandom none bind',
      '/dev/tty none bind',
      '/dev/shm tmpfs nosuid,nodev,noexec,mode=1777,size=65536k',
      '/dev/pts devpts newinstance,ptmxmode=0666,mode=0620,nosuid,noexec',
      `${SCRATCH_PATH} none bind`,
      '/dev/termination-log none bind',
    ]);
  });

  it("starts a container without workingDir in its Pod's scratch directory, created in the root and not on the host", () => {
    expect([plan({}).cwd, created({})]).toEqual([SCRATCH_PATH, [`upper:${SCRATCH_PATH}:dir`]]);
  });

  it('creates the /dev of the container in its upper directory, the termination log among its files', () => {
    const dev = plan({})
      .create.filter((c) => c.path.startsWith('/dev/'))
      .map((c) => `${c.where}:${c.path}:${c.kind}`);
    expect(dev).toEqual(
      expect.arrayContaining([
        'upper:/dev/null:file',
        'upper:/dev/ptmx:symlink',
        'upper:/dev/fd:symlink',
        'upper:/dev/termination-log:file',
      ]),
    );
    expect(dev.every((d) => d.startsWith('upper:'))).toBe(true);
  });

  it('places a mount below a link where the link points inside the root, creating its mount point in the upper directory', () => {
    const mounts = [{ ...data, target: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true }];
    expect(targets({ mounts })).toContain('/run/secrets/kubernetes.io/serviceaccount none bind,ro');
    expect(created({ mounts })).toContain('upper:/run/secrets/kubernetes.io/serviceaccount:dir');
  });

  it("creates the mount point of a volume below /tmp in the container's own /tmp", () => {
    expect(created({ mounts: [{ ...data, target: '/tmp/cache' }] })).toContain(`host:${layer}/tmp/cache:dir`);
  });

  it('creates the mount point of a volume inside another volume in that volume, after it is mounted', () => {
    const mounts = [
      { ...data, source: '/elsewhere', target: '/work/inner' },
      { ...data, target: '/work' },
    ];
    expect(created({ mounts })).toEqual([
      'upper:/work:dir',
      `upper:${SCRATCH_PATH}:dir`,
      'host:/state/pods/u1/volumes/data/inner:dir',
    ]);
    expect(targets({ mounts }).filter((t) => t.startsWith('/work'))).toEqual([
      '/work none bind',
      '/work/inner none bind',
    ]);
  });

  it('creates a missing working directory inside the root, like a runtime', () => {
    expect([plan({ workingDir: '/srv/app' }).cwd, created({ workingDir: '/srv/app' })]).toEqual([
      '/srv/app',
      ['upper:/srv/app:dir'],
    ]);
  });

  it("creates nothing for a working directory that is a volume's mount path", () => {
    expect(created({ workingDir: '/work', mounts: [{ ...data, target: '/work' }] })).toEqual(['upper:/work:dir']);
  });

  it('makes the root and its /tmp read-only for readOnlyRootFilesystem, not /dev or the termination log', () => {
    const entries = targets({ readOnlyRoot: true });
    expect(entries[0]).toMatch(/^\/ overlay ro,lowerdir=\//);
    expect(entries).toEqual(
      expect.arrayContaining([
        '/tmp none bind,ro',
        '/dev/termination-log none bind',
        '/dev/shm tmpfs nosuid,nodev,noexec,mode=1777,size=65536k',
      ]),
    );
  });

  it("does not hide a state directory below /tmp twice: the container's own /tmp hides it", () => {
    expect(targets({ hide: ['/tmp/kubedag-it-1'] }).some((t) => t.includes('tmpfs ro'))).toBe(false);
  });

  it('hides a directory inside another hidden one once, by hiding the outer one', () => {
    expect(
      targets({ hide: ['/work/.dev/cluster/nodes/n1', '/work/.dev/cluster'] }).filter((t) => t.includes(' tmpfs ro')),
    ).toEqual(['/work/.dev/cluster tmpfs ro,nosuid,nodev,noexec,size=4k,mode=0755']);
  });

  it('takes a path below a host submount as missing, since an overlay of / does not show it', () => {
    expect(created({ submounts: [...base.submounts, '/run'], mounts: [{ ...data, target: '/run/x' }] })).toContain(
      'upper:/run/x:dir',
    );
  });

  it('binds a custom terminationMessagePath as a file', () => {
    expect(targets({ terminationMessagePath: '/srv/msg' })).toContain('/srv/msg none bind');
    expect(created({ terminationMessagePath: '/srv/msg' })).toContain('upper:/srv/msg:file');
  });

  it('keeps the upper directory in memory when the disk cannot hold one', () => {
    expect(targets({ upperOnTmpfs: true })[0]).toBe(
      `/ overlay lowerdir=/,upperdir=${layer}/memory/upper,workdir=${layer}/memory/work`,
    );
  });

  it('finds the command through PATH and links, or reports it missing', () => {
    expect([plan({}).executable, plan({ command: { name: 'nope', searchPath: '/bin' } }).executable]).toEqual([
      '/bin/sh',
      undefined,
    ]);
  });
});

describe('fstab', () => {
  it('places targets below the root and escapes white space in paths', () => {
    expect(
      fstab(
        [
          { source: '/a dir', target: '/my data', type: 'none', options: 'bind' },
          { source: 'overlay', target: '/', type: 'overlay', options: 'lowerdir=/' },
        ],
        '/r',
      ),
    ).toBe('/a\\040dir /r/my\\040data none bind 0 0\noverlay /r overlay lowerdir=/ 0 0\n');
  });
});

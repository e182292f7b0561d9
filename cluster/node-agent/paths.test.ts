import { describe, expect, it } from 'vitest';
import { cleanPath, depth, findExecutable, resolveInRoot, within, type Entry, type View } from './paths.ts';

/** A file system of a few entries: `dir`, `file`, or a link target. */
function fs(entries: Record<string, string>): View {
  return (path): Entry => {
    const entry = entries[path];
    if (entry === undefined) return { kind: 'missing' };
    if (entry === 'dir' || entry === 'file') return { kind: entry };
    return { kind: 'symlink', target: entry };
  };
}

const debian = fs({
  '/var': 'dir',
  '/var/run': '/run',
  '/run': 'dir',
  '/bin': 'usr/bin',
  '/usr': 'dir',
  '/usr/bin': 'dir',
  '/usr/bin/sh': 'dash',
  '/usr/bin/dash': 'file',
  '/etc': 'dir',
  '/etc/up': '../..',
  '/loop': '/loop',
});

describe('resolveInRoot', () => {
  const cases: { name: string; path: string; want: string }[] = [
    {
      name: 'follows an absolute link inside the root, never to the host',
      path: '/var/run/secrets/token',
      want: '/run/secrets/token',
    },
    { name: "follows a relative link from the link's directory", path: '/bin/sh', want: '/usr/bin/dash' },
    { name: 'cannot climb above the root with dot-dots in a link', path: '/etc/up/etc', want: '/etc' },
    { name: 'keeps components that do not exist yet as written', path: '/work/out/../data', want: '/work/data' },
    { name: 'cleans a relative path as if it started at the root', path: 'srv//app/', want: '/srv/app' },
  ];
  it.each(cases)('$name', ({ path, want }) => {
    expect(resolveInRoot(path, debian)).toBe(want);
  });

  it('gives up on a link that points to itself', () => {
    expect(() => resolveInRoot('/loop/x', debian)).toThrow('too many levels of symbolic links');
  });
});

describe('findExecutable', () => {
  const cases: { name: string; command: string; search: string; want: string | undefined }[] = [
    { name: 'finds a bare name on PATH through links', command: 'sh', search: '/nowhere:/bin', want: '/bin/sh' },
    { name: 'takes a path with a slash as it is', command: '/usr/bin/dash', search: '', want: '/usr/bin/dash' },
    {
      name: 'finds nothing for a name on no PATH directory',
      command: 'nope',
      search: '/bin:/usr/bin',
      want: undefined,
    },
    { name: 'does not take a directory for a command', command: '/usr/bin', search: '', want: undefined },
  ];
  it.each(cases)('$name', ({ command, search, want }) => {
    expect(findExecutable(command, search, debian, '/')).toBe(want);
  });
});

describe('path helpers', () => {
  it('counts the depth of a path, the root being 0', () => {
    expect([depth('/'), depth('/tmp'), depth('/a/b/')]).toEqual([0, 1, 2]);
  });

  it('tells a path below another from one that only shares its prefix', () => {
    expect([within('/tmp/x', '/tmp'), within('/tmp', '/tmp'), within('/tmpx', '/tmp'), within('/a', '/')]).toEqual([
      true,
      true,
      false,
      true,
    ]);
  });

  it('cleans dot segments and trailing slashes', () => {
    expect(cleanPath('/a/./b/../c/')).toBe('/a/c');
  });
});

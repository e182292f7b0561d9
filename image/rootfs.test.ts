import { describe, expect, it } from 'vitest';
import { caBundle, debianEntries, keep, statusStanza } from './rootfs.ts';
import { directory, file } from './tar.ts';

describe('keep', () => {
  const cases = [
    { name: 'keeps programs and libraries', path: 'usr/lib/x86_64-linux-gnu/libc.so.6', want: true },
    { name: "keeps a package's copyright file", path: 'usr/share/doc/dash/copyright', want: true },
    { name: 'drops the rest of the documentation', path: 'usr/share/doc/dash/changelog.Debian.gz', want: false },
    { name: 'drops manuals', path: 'usr/share/man/man1/dash.1.gz', want: false },
    { name: 'drops translations', path: 'usr/share/locale/de/LC_MESSAGES/coreutils.mo', want: false },
    { name: 'drops info manuals and lintian overrides', path: 'usr/share/lintian/overrides/dash', want: false },
    { name: 'keeps a directory merely named like one that is dropped', path: 'usr/share/manifests', want: true },
  ];
  it.each(cases)('$name', ({ path, want }) => {
    expect(keep(path)).toBe(want);
  });
});

describe('statusStanza', () => {
  it('marks the package installed after its name, continuation lines indented, as dpkg keeps its status', () => {
    expect(statusStanza({ Package: 'dash', Version: '0.5', Description: 'shell\nlong' })).toBe(
      'Package: dash\nStatus: install ok installed\nVersion: 0.5\nDescription: shell\n long\n',
    );
  });
});

describe('caBundle', () => {
  it('concatenates the certificates in path order, each ending in a newline', () => {
    const bundle = caBundle([
      file('usr/share/ca-certificates/mozilla/B.crt', 'b\n'),
      file('usr/share/ca-certificates/mozilla/A.crt', 'a'),
      file('usr/share/doc/x', 'no'),
    ]);
    expect(bundle.toString()).toBe('a\nb\n');
  });
  it('refuses a set without certificates', () => {
    expect(() => caBundle([])).toThrow('no certificates');
  });
});

describe('debianEntries', () => {
  const control = (name: string): Record<string, string> => ({ Package: name, Version: '1' });
  const certs = {
    name: 'ca-certificates',
    control: control('ca-certificates'),
    entries: [file('usr/share/ca-certificates/mozilla/A.crt', 'a\n')],
  };
  it('merges directories several packages hold and adds accounts, the CA bundle and the status files', () => {
    const entries = debianEntries([
      certs,
      {
        name: 'dash',
        control: control('dash'),
        entries: [directory('usr'), file('bin/dash', 'elf', 0o755), file('usr/share/man/man1/dash.1.gz', 'man')],
      },
    ]);
    const paths = entries.map((e) => e.path);
    expect(paths).toContain('bin/dash');
    expect(paths).not.toContain('usr/share/man/man1/dash.1.gz');
    expect(paths).toEqual(
      expect.arrayContaining([
        'etc/passwd',
        'etc/group',
        'etc/nsswitch.conf',
        'etc/ssl/certs/ca-certificates.crt',
        'home/kubedag',
        'var/lib/dpkg/status.d/dash',
        'var/lib/dpkg/status.d/ca-certificates',
      ]),
    );
    expect(entries.find((e) => e.path === 'home/kubedag')).toMatchObject({ type: 'directory', uid: 1000, gid: 1000 });
  });
  it('refuses a file two packages both hold', () => {
    expect(() =>
      debianEntries([
        certs,
        { name: 'a', control: control('a'), entries: [file('bin/x', '1')] },
        { name: 'b', control: control('b'), entries: [file('bin/x', '2')] },
      ]),
    ).toThrow('bin/x is in both a and b');
  });
});

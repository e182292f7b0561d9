import { describe, expect, it } from 'vitest';
import { dependencyGroups, parseControl, resolve, unmetDependencies, type Control } from './debian-set.ts';

const pkg = (name: string, fields: Record<string, string> = {}): Control => ({
  Package: name,
  Version: '1',
  ...fields,
});
const index = (...controls: Control[]): Map<string, Control> => new Map(controls.map((c) => [c.Package ?? '', c]));

describe('parseControl', () => {
  it('reads stanzas separated by blank lines, continuation lines joined to their field', () => {
    expect(parseControl('Package: a\nDescription: short\n long one\n .\n\nPackage: b\nVersion: 2\n')).toEqual([
      { Package: 'a', Description: 'short\nlong one\n.' },
      { Package: 'b', Version: '2' },
    ]);
  });
  it('refuses a line that is no field', () => {
    expect(() => parseControl('Package a')).toThrow('not a control field');
  });
});

describe('dependencyGroups', () => {
  const cases = [
    { name: 'gives nothing for a package without dependencies', control: pkg('a'), want: [] },
    {
      name: 'puts Pre-Depends before Depends',
      control: pkg('a', { 'Pre-Depends': 'libc6 (>= 2.34)', Depends: 'libgcc-s1' }),
      want: [['libc6'], ['libgcc-s1']],
    },
    {
      name: 'keeps alternatives together and drops versions and architecture qualifiers',
      control: pkg('a', { Depends: 'debconf (>= 0.5) | debconf-2.0, python3:any' }),
      want: [['debconf', 'debconf-2.0'], ['python3']],
    },
  ];
  it.each(cases)('$name', ({ control, want }) => {
    expect(dependencyGroups(control)).toEqual(want);
  });
});

describe('resolve', () => {
  const cases: {
    name: string;
    roots: string[];
    index: Map<string, Control>;
    excluded: Record<string, string>;
    want: { packages: string[]; missing: string[] };
  }[] = [
    {
      name: 'follows dependencies to their closure, sorted',
      roots: ['app'],
      index: index(pkg('app', { Depends: 'liba' }), pkg('liba', { Depends: 'libc' }), pkg('libc')),
      excluded: {},
      want: { packages: ['app', 'liba', 'libc'], missing: [] },
    },
    {
      name: 'leaves out excluded names and the groups they are part of',
      roots: ['app'],
      index: index(pkg('app', { Depends: 'dpkg | install-info, libc' }), pkg('libc')),
      excluded: { dpkg: 'no package manager' },
      want: { packages: ['app', 'libc'], missing: [] },
    },
    {
      name: 'counts a group met by a package that provides the name',
      roots: ['app', 'mawk'],
      index: index(pkg('app', { 'Pre-Depends': 'awk' }), pkg('mawk', { Provides: 'awk' })),
      excluded: {},
      want: { packages: ['app', 'mawk'], missing: [] },
    },
    {
      name: 'takes the first alternative when none is chosen yet',
      roots: ['app'],
      index: index(pkg('app', { Depends: 'a | b' }), pkg('a'), pkg('b')),
      excluded: {},
      want: { packages: ['a', 'app'], missing: [] },
    },
    {
      name: 'names what the index lacks so it can be looked up',
      roots: ['app'],
      index: index(pkg('app', { Depends: 'liba' })),
      excluded: {},
      want: { packages: ['app'], missing: ['liba'] },
    },
  ];
  it.each(cases)('$name', ({ roots, index: packages, excluded, want }) => {
    expect(resolve(roots, packages, excluded)).toEqual(want);
  });
});

describe('unmetDependencies', () => {
  it('names each dependency group nothing in the set or the exclusions meets', () => {
    const set = [pkg('app', { Depends: 'liba, libb | libc, dpkg' }), pkg('libc')];
    expect(unmetDependencies(set, { dpkg: 'none' })).toEqual(['app: liba']);
  });
});

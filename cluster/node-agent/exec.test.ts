import { describe, expect, it } from 'vitest';
import { execLaunch, exitCodeOf, type ExecTarget } from './exec.ts';

const target = (over: Partial<ExecTarget>): ExecTarget => ({
  pid: 42,
  env: {},
  cwd: '/work',
  sandboxed: true,
  setpriv: [],
  cgroups: [],
  processes: new Set(),
  ...over,
});

describe('execLaunch, the argv of an exec', () => {
  const cases: { name: string; target: ExecTarget; want: { argv: string[]; cwd: string | undefined } }[] = [
    {
      name: "enters the container's mount namespace and root, then changes to its working directory inside it",
      target: target({}),
      want: {
        argv: ['nsenter', '--target=42', '--mount', '--root', '--', 'unshare', '--wd=/work', '--', 'id', '-u'],
        cwd: undefined,
      },
    },
    {
      name: "takes the container's identity with setpriv inside the root",
      target: target({ setpriv: ['--reuid=1000', '--regid=1000', '--clear-groups', '--'] }),
      want: {
        argv: [
          'nsenter',
          '--target=42',
          '--mount',
          '--root',
          '--',
          'unshare',
          '--wd=/work',
          '--',
          'setpriv',
          '--reuid=1000',
          '--regid=1000',
          '--clear-groups',
          '--',
          'id',
          '-u',
        ],
        cwd: undefined,
      },
    },
    {
      name: "joins the container's cgroups first, so its limits count the exec too",
      target: target({ cgroups: ['/sys/fs/cgroup/a b/cgroup.procs'] }),
      want: {
        argv: [
          '/bin/sh',
          '-c',
          `echo $$ > '/sys/fs/cgroup/a b/cgroup.procs' && exec "$@"`,
          'kubedag-exec',
          'nsenter',
          '--target=42',
          '--mount',
          '--root',
          '--',
          'unshare',
          '--wd=/work',
          '--',
          'id',
          '-u',
        ],
        cwd: undefined,
      },
    },
    {
      name: "runs in the host's file system in the container's directory without a sandbox",
      target: target({ sandboxed: false, cwd: '/var/scratch' }),
      want: { argv: ['id', '-u'], cwd: '/var/scratch' },
    },
  ];
  it.each(cases)('$name', ({ target: t, want }) => {
    expect(execLaunch(t, ['id', '-u'])).toEqual(want);
  });
});

describe('exitCodeOf', () => {
  it.each([
    { name: 'keeps an exit code', code: 3, signal: null, want: 3 },
    { name: 'is 128 + 15 for SIGTERM', code: null, signal: 'SIGTERM' as const, want: 143 },
    { name: 'is 128 + 9 for SIGKILL', code: null, signal: 'SIGKILL' as const, want: 137 },
  ])('$name', ({ code, signal, want }) => {
    expect(exitCodeOf(code, signal)).toBe(want);
  });
});

import { describe, expect, it } from 'vitest';
import { containerArgv, shellQuote, wrapperScript, type Wrapper } from './runtime.ts';

const wrapper: Wrapper = {
  mode: 'overlay',
  layer: '/state/pods/u1/containers/main-0',
  cwd: '/work dir',
  setpriv: ['--reuid=1000', '--'],
  cgroups: [],
};

describe("wrapperScript, what runs in the container's new mount namespace", () => {
  it('mounts the whole root from its fstab in one call, then enters it as the container user', () => {
    expect(wrapperScript(wrapper).split('\n')).toEqual([
      "mount -a -T '/state/pods/u1/containers/main-0/fstab' 2>'/state/pods/u1/containers/main-0/setup-error' || exit 128",
      "exec unshare --root='/state/pods/u1/containers/main-0/root' --wd='/work dir' setpriv \"$@\"",
    ]);
  });

  it('copies the upper directory into memory first when the disk cannot hold it', () => {
    expect(wrapperScript({ ...wrapper, mode: 'overlay-tmpfs' }).split('\n')[0]).toBe(
      "{ mount -t tmpfs -o mode=0755 tmpfs '/state/pods/u1/containers/main-0/memory' && cp -a '/state/pods/u1/containers/main-0/upper' '/state/pods/u1/containers/main-0/work' '/state/pods/u1/containers/main-0/memory'/; } 2>'/state/pods/u1/containers/main-0/setup-error' || exit 128",
    );
  });

  it("joins the container's cgroups before anything else runs", () => {
    expect(wrapperScript({ ...wrapper, cgroups: ['/cg/memory/p/cgroup.procs'] }).split('\n')[0]).toBe(
      "echo $$ > '/cg/memory/p/cgroup.procs' 2>'/state/pods/u1/containers/main-0/setup-error' || exit 128",
    );
  });

  it('execs the command itself when the agent cannot change users', () => {
    expect(
      wrapperScript({ ...wrapper, setpriv: [] })
        .split('\n')
        .at(-1),
    ).toBe("exec unshare --root='/state/pods/u1/containers/main-0/root' --wd='/work dir' \"$@\"");
  });
});

describe('containerArgv', () => {
  const argv = ['/bin/sh', '-c', 'echo hi'];
  const cases: { name: string; wrapper: Wrapper; want: string[] }[] = [
    {
      name: 'runs the command under setpriv alone without a sandbox',
      wrapper: { ...wrapper, mode: 'none' },
      want: ['setpriv', '--reuid=1000', '--', ...argv],
    },
    {
      name: 'runs the command as it is without a sandbox or root',
      wrapper: { ...wrapper, mode: 'none', setpriv: [] },
      want: argv,
    },
    {
      name: "starts the wrapper in a private mount namespace, the argv after setpriv's",
      wrapper,
      want: [
        'unshare',
        '--mount',
        '--propagation',
        'private',
        '--',
        '/bin/sh',
        '-c',
        wrapperScript(wrapper),
        'kubedag-sandbox',
        '--reuid=1000',
        '--',
        ...argv,
      ],
    },
  ];
  it.each(cases)('$name', ({ wrapper: w, want }) => {
    expect(containerArgv(w, argv)).toEqual(want);
  });
});

describe('shellQuote', () => {
  it('quotes every word, so that nothing in a path is expanded', () => {
    expect([shellQuote('/a b'), shellQuote("it's"), shellQuote('$HOME')]).toEqual(["'/a b'", "'it'\\''s'", "'$HOME'"]);
  });
});

import { describe, expect, it } from 'vitest';
import { choosePort, parseDevSettings, type DevFlags, type DevSettings } from './dev-settings.ts';

const root = '/repo';
const cwd = '/home/me/work';

describe('the settings of a dev stack', () => {
  const cases: { name: string; flags?: DevFlags; env?: Record<string, string>; want: DevSettings | string }[] = [
    {
      name: 'nothing given: .dev in the repository, 8080 and 8081 preferred, logs on the console',
      want: { dir: '/repo/.dev', apiPort: { preferred: 8080 }, operatorPort: { preferred: 8081 }, quiet: false },
    },
    {
      name: 'variables choose the directory and ports',
      env: {
        KUBEDAG_DEV_DIR: '/tmp/b',
        KUBEDAG_API_PORT: '9080',
        KUBEDAG_OPERATOR_PORT: '9081',
        KUBEDAG_DEV_QUIET: '1',
      },
      want: { dir: '/tmp/b', apiPort: { given: 9080 }, operatorPort: { given: 9081 }, quiet: true },
    },
    {
      name: 'flags win over variables',
      flags: { dir: '/tmp/c', 'api-port': '7080', quiet: false },
      env: { KUBEDAG_DEV_DIR: '/tmp/b', KUBEDAG_API_PORT: '9080', KUBEDAG_DEV_QUIET: 'true' },
      want: { dir: '/tmp/c', apiPort: { given: 7080 }, operatorPort: { preferred: 8081 }, quiet: false },
    },
    {
      name: 'a relative directory is taken from where make was run',
      flags: { dir: 'stack-b' },
      want: {
        dir: '/home/me/work/stack-b',
        apiPort: { preferred: 8080 },
        operatorPort: { preferred: 8081 },
        quiet: false,
      },
    },
    {
      name: 'an empty variable counts as unset',
      env: { KUBEDAG_DEV_DIR: '', KUBEDAG_API_PORT: '' },
      want: { dir: '/repo/.dev', apiPort: { preferred: 8080 }, operatorPort: { preferred: 8081 }, quiet: false },
    },
    {
      name: 'a port that is not a number is refused with its name',
      env: { KUBEDAG_API_PORT: 'eighty' },
      want: '--api-port (KUBEDAG_API_PORT) must be a port number from 1 to 65535, not "eighty"',
    },
    {
      name: 'a port out of range is refused',
      flags: { 'operator-port': '70000' },
      want: '--operator-port (KUBEDAG_OPERATOR_PORT) must be a port number from 1 to 65535, not "70000"',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const parse = (): DevSettings => parseDevSettings(c.flags ?? {}, c.env ?? {}, root, cwd);
      if (typeof c.want === 'string') expect(parse).toThrow(c.want);
      else expect(parse()).toEqual(c.want);
    });
  }
});

describe('the port a dev stack takes', () => {
  const cases: { name: string; got: number; want: number }[] = [
    {
      name: 'a given port is used even when it looks taken (its owner gets a clear error)',
      got: choosePort({ given: 9080 }, false, 40_001),
      want: 9080,
    },
    { name: 'the preferred port while it is free', got: choosePort({ preferred: 8080 }, true, 40_001), want: 8080 },
    {
      name: 'a free port when the preferred one is taken by another stack',
      got: choosePort({ preferred: 8080 }, false, 40_001),
      want: 40_001,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(c.got).toBe(c.want);
    });
  }
});

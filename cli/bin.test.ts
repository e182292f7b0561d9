import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

describe('bin/kubedag, the installed command', () => {
  it('runs the compiled CLI with a new enough Node, whatever node is first on PATH', () => {
    expect(existsSync(join(root, 'dist/cli/main.js')), 'dist/ is missing: run `make build` first').toBe(true);
    // /usr/bin first: on these machines that node is 20, which the launcher must not use.
    const env = { ...process.env, PATH: `/usr/bin:/bin:${process.env.PATH ?? ''}` };
    const got = spawnSync(
      join(root, 'bin/kubedag'),
      ['validate', '--json', join(root, 'test/fixtures/cli/hello.yaml')],
      { env, encoding: 'utf8' },
    );
    expect(got.stderr).toBe('');
    expect(got.status).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject([{ valid: true, dag: { name: 'hello' } }]);
  });
});

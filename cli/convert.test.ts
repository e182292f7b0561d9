import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readBounded, type CliIo } from './io.ts';
import { runCli } from './run.ts';

async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), readFile: readBounded };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

let dir = '';
const file = (name: string): string => join(dir, name);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kubedag-convert-'));
  await writeFile(
    file('old.yaml'),
    '# nightly\ntype: graph\ntimeoutSec: 5\nsteps:\n  - name: a\n    command: echo a\n',
  );
  await writeFile(file('new.yaml'), 'timeout_sec: 5\nsteps:\n  - name: a\n    run: echo a\n    log_output: merged\n');
  await writeFile(file('broken.yaml'), 'steps:\n  - {name: a, command: echo, depends: ghost}\n');
});

describe('kubedag convert', () => {
  it('prints a 1.x file in 2.x keys, comments kept, and exits 0', async () => {
    expect(await cli('convert', file('old.yaml'))).toEqual({
      code: 0,
      stdout: '# nightly\ntype: graph\ntimeout_sec: 5\nsteps:\n  - name: a\n    run: echo a\n',
      stderr: '',
    });
  });

  it('says on stderr what cannot be carried over, prints nothing and exits 1', async () => {
    expect(await cli('convert', '--to', '1.x', file('new.yaml'))).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `${file('new.yaml')}: cannot be carried over to Dagu 1.x: steps[0].log_output: Dagu 2.x feature log_output: merged is not supported: Kubedag keeps a step's stdout and stderr apart in its log store; merge them in the command (2>&1) instead\n` +
        `${file('new.yaml')}: not converted; --lossy writes the rest without what is listed above\n`,
    });
  });

  it('with --lossy writes the rest, lists what it left out, and exits 0', async () => {
    expect(await cli('convert', '--lossy', file('new.yaml'))).toEqual({
      code: 0,
      stdout: 'type: graph\ntimeoutSec: 5\nsteps:\n  - name: a\n    command: echo a\n',
      stderr: `${file('new.yaml')}: left out to Dagu 1.x: steps[0].log_output: Dagu 2.x feature log_output: merged is not supported: Kubedag keeps a step's stdout and stderr apart in its log store; merge them in the command (2>&1) instead\n`,
    });
  });

  it('prints the errors of an invalid file as validate does and exits 1', async () => {
    expect(await cli('convert', file('broken.yaml'))).toEqual({
      code: 1,
      stdout: '',
      stderr: `${file('broken.yaml')}: steps[0].depends: unknown step "ghost"\n`,
    });
  });

  it('refuses usage errors with exit 2: no file, two files, a bad dialect, an option of another command', async () => {
    for (const argv of [
      ['convert'],
      ['convert', file('old.yaml'), file('new.yaml')],
      ['convert', '--to', '3.x', file('old.yaml')],
      ['convert', '--json', file('old.yaml')],
      ['validate', '--to', '2.x', file('old.yaml')],
      ['convert', file('missing.yaml')],
    ])
      expect((await cli(...argv)).code, argv.join(' ')).toBe(2);
  });
});

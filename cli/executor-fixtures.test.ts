import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBounded, type CliIo } from './io.ts';
import { runCli } from './run.ts';

const dir = join(import.meta.dirname, '..', 'test', 'fixtures', 'dags', 'executors');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();

async function validate(file: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), readFile: readBounded };
  const code = await runCli(['validate', file], io);
  return { code, stdout, stderr };
}

describe('kubedag validate and the executor forms Dagu 1.24.11 accepts', () => {
  it('has a fixture for every executor that runs', () => {
    expect(files).toEqual([
      'dag.yaml',
      'docker.yaml',
      'http.yaml',
      'jq.yaml',
      'mail.yaml',
      'parallel.yaml',
      'shell.yaml',
      'ssh-dag-level.yaml',
      'ssh.yaml',
    ]);
  });

  it.each(files)('accepts every form in %s without an error or a warning', async (name) => {
    const file = join(dir, name);
    expect(await validate(file)).toEqual({ code: 0, stdout: `${file}: valid\n`, stderr: '' });
  });
});

import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import { captureIO, temporaryDir } from '../../test/step-io.ts';
import { runTemplate } from './template.ts';

let dir: { path: string; remove: () => Promise<void> };

beforeAll(async () => {
  dir = await temporaryDir('template');
});

afterAll(async () => {
  await dir.remove();
});

const spec = (script: string, config: Record<string, unknown>): ExecutorSpec => ({ type: 'template', script, config });

describe('template.render in the step runner', () => {
  it("renders to stdout over data whose strings get ${VAR} expanded, leaving the template's own $ alone", async () => {
    const io = captureIO({ cwd: dir.path, env: { REGION: 'eu' } });
    const template = '{{ range $i, $h := .hosts }}{{ $i }}:{{ $h }}@{{ $.region }} {{ end }}';
    expect(await runTemplate(spec(template, { data: { hosts: ['a', 'b'], region: '${REGION}' } }), io)).toBe(0);
    expect(io.out()).toBe('0:a@eu 1:b@eu ');
  });

  it('writes to output, a path in the working directory, creating its folder, readable by the step only', async () => {
    const io = captureIO({ cwd: dir.path });
    await runTemplate(spec('name={{ .name | upper }}\n', { data: { name: 'etl' }, output: 'conf/app.ini' }), io);
    expect([io.out(), await readFile(join(dir.path, 'conf/app.ini'), 'utf8')]).toEqual(['', 'name=ETL\n']);
    expect((await stat(join(dir.path, 'conf/app.ini'))).mode & 0o777).toBe(0o600);
  });

  it('fails with the missing key named, as Dagu renders with missingkey=error', async () => {
    await expect(runTemplate(spec('{{ .nope }}', { data: {} }), captureIO())).rejects.toThrow(
      'template: execution error: map has no entry for key "nope"',
    );
  });
});

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

  it.each([
    ['a variable of the step', { template_ref: '${TPL}' }, { TPL: 'v={{ .v }}' }, 'v=1'],
    ["a step's output the operator put in", { template_ref: 'out={{ .v }}' }, {}, 'out=1'],
  ])('renders the template with.template_ref names: %s', async (_name, config, env, want) => {
    const io = captureIO({ cwd: dir.path, env });
    const ref: ExecutorSpec = { type: 'template', config: { ...config, data: { v: 1 } } };
    expect([await runTemplate(ref, io), io.out()]).toEqual([0, want]);
  });

  it.each([
    [
      'a variable that is not set',
      { template_ref: '${TPL}' },
      {},
      'template: with.template_ref: variable TPL is not set',
    ],
    [
      'an output no step published',
      { template_ref: '${steps.make.outputs.tpl}' },
      {},
      'template: with.template_ref: ${steps.make.outputs.tpl} has no value (no step published it)',
    ],
    [
      'a template Kubedag does not render, known only now',
      { template_ref: '${TPL}' },
      { TPL: '{{ define "x" }}{{ end }}' },
      "template: parse error: {{define}} is not supported by Kubedag's template.render",
    ],
    [
      'a reference that is not a string',
      { template_ref: 3 },
      {},
      'template: with.template_ref must resolve to a string',
    ],
  ])('fails the step with a clear error for %s', async (_name, config, env, message) => {
    const ref: ExecutorSpec = { type: 'template', config };
    await expect(runTemplate(ref, captureIO({ cwd: dir.path, env }))).rejects.toThrow(message);
  });
});

import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expand, loadDag, type DeclaredOutput, type Step } from '../../../core/dag/index.ts';
import { judgeAttempt } from './attempt-verdict.ts';
import { declaresOutputs, readDeclaredOutputs } from './declared-outputs.ts';
import { StepStatus } from '../../../core/resources/status.ts';
import { demux, runnerScript, stepPod, type PodRequest } from '../pods/step-pod.ts';
import { conditionWithStepOutputs, declaredOutputRefs, stepRefs, withStepOutputsResolved } from './variables.ts';

const declared: DeclaredOutput[] = [
  { name: 'version', type: 'string' },
  { name: 'meta', type: 'json' },
];

describe('the records of DAGU_OUTPUT_FILE', () => {
  it('reads name=value and name<<DELIM records, the value verbatim after the first =', () => {
    expect(readDeclaredOutputs('version=1.2=3 \r\nmeta<<EOF\n{"a":\n1}\nEOF\n', declared, 1024)).toEqual({
      values: { version: '1.2=3 ', meta: '{"a":\n1}' },
    });
  });

  it('takes << before = as a multiline record', () => {
    expect(readDeclaredOutputs('version<<END\na=b\nEND\nmeta=[]', declared, 1024)).toEqual({
      values: { version: 'a=b', meta: '[]' },
    });
  });

  const broken: [string, string, string][] = [
    ['an empty file', '', 'declared step output "version" was not emitted'],
    ['a missing output', 'version=1\n', 'declared step output "meta" was not emitted'],
    ['an empty line', 'version=1\n\nmeta=1\n', 'empty line at line 2 is not a valid step output record'],
    ['a line without =', 'version\n', 'invalid step output record at line 1'],
    ['a record without a name', '=1\n', 'missing output name at line 1'],
    ['a bad delimiter', 'version<<a-b\n', 'invalid multiline delimiter at line 1'],
    ['an unclosed value', 'version<<EOF\n1\n', 'unclosed multiline output "version"'],
    ['an undeclared name', 'other=1\n', 'undeclared step output "other"'],
    ['a name written twice', 'version=1\nversion=2\n', 'duplicate step output "version"'],
    ['a json output that is not JSON', 'version=1\nmeta={a}\n', 'step output "meta" is not valid JSON'],
  ];
  it.each(broken)('fails the step on %s', (_name, records, why) => {
    expect(readDeclaredOutputs(records, declared, 1024)).toEqual({ error: `failed to parse DAGU_OUTPUT_FILE: ${why}` });
  });

  it('fails the step when the values exceed maxOutputSize, and past what a status keeps', () => {
    expect(readDeclaredOutputs('version=123456\nmeta=1\n', declared, 20)).toEqual({
      error: 'step outputs exceeded maximum size limit of 20 bytes',
    });
    expect(readDeclaredOutputs(`version=${'x'.repeat(17 * 1024)}\nmeta=1\n`, declared, 1 << 20)).toEqual({
      error: "step outputs of 17433 bytes exceed the 16 KiB Kubedag keeps in a run's status",
    });
  });
});

describe('a step that declares outputs', () => {
  const load = loadDag(
    'steps:\n  - id: build\n    run: |\n      echo "version=1.4.2" >> "$DAGU_OUTPUT_FILE"\n      printf \'meta<<X\\n{}\\nX\\n\' >> "$DAGU_OUTPUT_FILE"\n      echo done\n    outputs: [{name: version}, {name: meta, type: json}]\n  - {id: use, run: "echo ${steps.build.outputs.version}", depends: [build]}',
    { fileName: 'o' },
  );
  const step = load.dag.steps[0] as Step;

  it('is known by name to the log archiver', () => {
    expect(load.errors).toEqual([]);
    expect(declaresOutputs(load.dag, step.name)).toBe(true);
    expect(declaresOutputs(load.dag, 'use')).toBe(false);
  });

  it('gets DAGU_OUTPUT_FILE, and its records reach the log tagged V, apart from stdout', () => {
    const request: PodRequest = {
      run: { name: 'o-r1', namespace: 'team', uid: 'u', dagName: 'o', dagRunId: 'r1' },
      dag: load.dag,
      step,
      attempt: 0,
      pod: 'o-0',
      env: [],
      positional: [],
      defaultImage: 'busybox',
      podPreconditions: [],
      logDir: join(mkdtempSync(join(tmpdir(), 'kd-logs-')), 'logs'),
    };
    const env = Object.fromEntries(
      (stepPod(request).spec?.containers[0]?.env ?? []).map((e) => [e.name, e.value ?? '']),
    );
    const run = spawnSync('/bin/sh', ['-c', runnerScript(request)], {
      env: { PATH: process.env.PATH, ...env, KUBEDAG_REPORT_FILE: '/dev/null' },
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(run.status).toBe(0);
    expect(demux(run.stdout)).toEqual({ stdout: 'done\n', stderr: '', outputs: 'version=1.4.2\nmeta<<X\n{}\nX\n' });
  });

  it('succeeds with the values it wrote, or fails when they break a rule; a failed attempt is not read', () => {
    const context = { retryCount: 0, doneCount: 0, maxOutputSize: 1024, resolveCount: () => 0 };
    expect(
      judgeAttempt(step, { exitCode: 0, preconditionUnmet: false, outputRecords: 'version=1\nmeta=2\n' }, context),
    ).toEqual({
      kind: 'done',
      status: StepStatus.Succeeded,
      continued: false,
      stepOutputs: { version: '1', meta: '2' },
    });
    expect(
      judgeAttempt(step, { exitCode: 0, preconditionUnmet: false, outputRecords: 'version=1\n' }, context),
    ).toMatchObject({
      kind: 'done',
      status: StepStatus.Failed,
      error: 'failed to parse DAGU_OUTPUT_FILE: declared step output "meta" was not emitted',
    });
    expect(judgeAttempt(step, { exitCode: 1, preconditionUnmet: false }, context)).toEqual({
      kind: 'done',
      status: StepStatus.Failed,
      continued: false,
      error: 'exit code 1',
    });
  });

  it('is read by later steps as ${steps.<id>.outputs.<name>}', () => {
    const refs = stepRefs(
      load.dag,
      {
        nodes: [
          {
            name: step.name,
            status: StepStatus.Succeeded,
            statusLabel: 'succeeded',
            stepOutputs: { version: '1.4.2' },
          },
        ],
      },
      '/logs',
    );
    expect(
      expand('echo ${steps.build.outputs.version} ${steps.build.outputs.other} ${steps.use.outputs.version}', {
        scopes: [],
        steps: refs,
      }).value,
    ).toBe('echo 1.4.2 ${steps.build.outputs.other} ${steps.use.outputs.version}');
    expect(expand('printf "%s" "${steps.build.outputs.version}"', { scopes: [], steps: refs }).value).toBe(
      'printf "%s" "1.4.2"',
    );
    // Without a step that declared it, `steps` is a variable as before.
    expect(expand('${steps.x.outputs.y}', { scopes: [{ steps: '{"x":{"outputs":{"y":"v"}}}' }] }).value).toBe('v');
  });

  it('is resolved in env values and preconditions, which reach the Pod as written', () => {
    const status = {
      nodes: [
        { name: step.name, status: StepStatus.Succeeded, statusLabel: 'succeeded', stepOutputs: { version: '1.4.2' } },
      ],
    };
    const refs = declaredOutputRefs(load.dag, status);
    expect(refs).toEqual({ build: { outputs: { version: '1.4.2' } } });
    const reader = {
      ...step,
      env: [{ name: 'V', value: 'v${steps.build.outputs.version}' }],
      preconditions: [{ condition: '${steps.build.outputs.version}', expected: '1.4.2' }],
    };
    expect(withStepOutputsResolved(reader, refs)).toMatchObject({
      env: [{ name: 'V', value: 'v1.4.2' }],
      preconditions: [{ condition: '1.4.2', expected: '1.4.2' }],
    });
    expect(conditionWithStepOutputs({ condition: '${steps.other.outputs.x}' }, refs)).toEqual({
      condition: '${steps.other.outputs.x}',
    });
  });
});

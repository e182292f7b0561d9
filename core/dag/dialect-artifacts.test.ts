import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';

const load = (text: string) => loadDag(text, { fileName: 'example' });
const errorsOf = (text: string): string[] => load(text).errors.map(formatIssue);

describe("Dagu 2.x's artifact outputs (stdout/stderr: {artifact})", () => {
  it.each([
    [
      'stdout',
      'steps:\n  - {run: echo a, stdout: {artifact: out/a.log}}',
      '${DAG_RUN_ARTIFACTS_DIR}/out/a.log',
      undefined,
    ],
    [
      'stderr',
      'steps:\n  - {run: echo a, stderr: {artifact: " ./err//b.log "}}',
      undefined,
      '${DAG_RUN_ARTIFACTS_DIR}/err/b.log',
    ],
    [
      'both, backslashes read as slashes',
      'steps:\n  - {run: echo a, stdout: {artifact: "o\\\\x.txt"}, stderr: {artifact: e.txt}}',
      '${DAG_RUN_ARTIFACTS_DIR}/o/x.txt',
      '${DAG_RUN_ARTIFACTS_DIR}/e.txt',
    ],
  ])('keeps %s as a file of the artifacts directory and turns artifacts on', (_name, yaml, stdout, stderr) => {
    const loaded = load(yaml);
    expect(loaded.errors.map(formatIssue)).toEqual([]);
    expect(loaded.dag.steps[0]?.stdout).toBe(stdout);
    expect(loaded.dag.steps[0]?.stderr).toBe(stderr);
    expect(loaded.dag.artifacts).toEqual({ enabled: true });
  });

  it('keeps stdout as an artifact and picks outputs out of it', () => {
    const loaded = load('steps:\n  - {id: a, run: "echo {}", stdout: {artifact: a.json, outputs: {decode: json}}}');
    expect(loaded.errors.map(formatIssue)).toEqual([]);
    expect(loaded.dag.steps[0]?.stdout).toBe('${DAG_RUN_ARTIFACTS_DIR}/a.json');
    expect(loaded.dag.steps[0]?.pickedOutputs).toBeDefined();
  });

  it.each([
    ['an absolute path', 'stdout: {artifact: /tmp/a}', 'steps[0].stdout.artifact: artifact path must be relative'],
    ['a home path', 'stderr: {artifact: ~/a}', 'steps[0].stderr.artifact: artifact path must be relative'],
    [
      'a parent segment',
      'stdout: {artifact: a/../../b}',
      'steps[0].stdout.artifact: artifact path must not contain parent directory segments',
    ],
    ['the directory itself', 'stdout: {artifact: ./}', 'steps[0].stdout.artifact: artifact path must name a file'],
    ['an empty path', 'stdout: {artifact: " "}', 'steps[0].stdout.artifact: path must not be empty'],
    ['a path that is no string', 'stderr: {artifact: [a]}', 'steps[0].stderr.artifact: must be a string'],
    ['an empty object', 'stderr: {}', 'steps[0].stderr: stderr object must not be empty'],
    ['stderr outputs', 'stderr: {outputs: {decode: json}}', 'steps[0].stderr.outputs: stderr.outputs is not supported'],
    ['another stderr key', 'stderr: {file: a}', 'steps[0].stderr: stderr object supports only artifact'],
    ['another stdout key', 'stdout: {file: a}', 'steps[0].stdout: stdout object supports only artifact and outputs'],
    [
      'both streams to one file',
      'stdout: {artifact: a.log}, stderr: {artifact: ./a.log}',
      `steps[0]: stdout.artifact and stderr.artifact cannot point to the same file "a.log"; use 'log_output: merged' instead`,
    ],
  ])('refuses %s', (_name, fields, want) => {
    expect(errorsOf(`steps:\n  - {run: echo a, ${fields}}`)).toEqual([want]);
  });

  it.each(['stdout', 'stderr'])('refuses %s.artifact on a sub-DAG step, deliberately, saying why', (stream) => {
    expect(errorsOf(`steps:\n  - {action: dag.run, with: {dag: child}, ${stream}: {artifact: a.log}}`)).toEqual([
      `steps[0].${stream}.artifact: Dagu 2.x feature ${stream}.artifact on a sub-DAG step is not supported: a sub-DAG step has no stdout or stderr in Kubedag (its work is the child run); write the artifact from the child DAG's steps`,
    ]);
  });

  it("refuses an artifact output on a kubernetes step that runs its image's entrypoint", () => {
    expect(errorsOf('steps:\n  - {action: k8s.run, with: {image: busybox}, stdout: {artifact: a.log}}')).toEqual([
      "steps[0].stdout: a kubernetes step without a command runs its image's entrypoint, which writes no stdout file (give it a command)",
    ]);
    expect(
      errorsOf('steps:\n  - {action: k8s.run, with: {image: busybox, command: date}, stdout: {artifact: a.log}}'),
    ).toEqual([]);
  });

  it('refuses an artifact output when the file turns artifacts off', () => {
    expect(errorsOf('artifacts: {enabled: false}\nsteps:\n  - {run: echo a, stdout: {artifact: a.log}}')).toEqual([
      'artifacts.enabled: artifact outputs require artifacts.enabled to be true',
    ]);
  });
});

describe("Dagu 2.x's artifact actions", () => {
  it.each([
    ['artifact.list', '{}', 'list', {}],
    ['artifact.list', '{path: sub, recursive: true, include_dirs: true, pattern: "*.json"}', 'list', { path: 'sub' }],
    ['artifact.read', '{path: a.txt, format: json, max_bytes: 10}', 'read', { path: 'a.txt' }],
    ['artifact.write', '{path: a.txt, content: "", overwrite: true, mode: "0644"}', 'write', { content: '' }],
  ])('runs %s with %s in the step runner, artifacts on', (action, settings, command, config) => {
    const loaded = load(`steps:\n  - {name: s, action: ${action}, with: ${settings}}`);
    expect(loaded.errors.map(formatIssue)).toEqual([]);
    const step = loaded.dag.steps[0];
    expect(step?.executor.type).toBe('artifact');
    expect(step?.command).toBe(command);
    expect(step?.executor.config).toMatchObject(config);
    expect(loaded.dag.artifacts).toEqual({ enabled: true });
  });

  it.each([
    ['artifact.read', '{}', 'steps[0].with.path: is required for artifact.read'],
    ['artifact.write', '{path: a}', 'steps[0].with.content: is required for artifact.write'],
    [
      'artifact.list',
      '{dry_run: true}',
      'steps[0].with.dry_run: artifact.list does not take with.dry_run (it takes path, content, mode, format, pattern, overwrite, atomic, recursive, include_dirs, max_bytes)',
    ],
    [
      'artifact.stat',
      '{path: a}',
      'steps[0].action: unknown action "artifact.stat" (Kubedag runs: exec, docker.run, container.run, k8s.run, kubernetes.run, ssh.run, http.request, jq.filter, mail.send, dag.run, dag.enqueue, noop, outputs.write, log.write, wait.duration, wait.until, wait.file, wait.http, file.stat, file.read, file.write, file.copy, file.move, file.delete, file.mkdir, file.list, s3.upload, s3.download, s3.list, s3.delete, archive.create, archive.extract, archive.list, artifact.list, artifact.read, artifact.write, template.render; a custom action, declared under actions:, is not run by Kubedag)',
    ],
  ])('refuses %s with %s', (action, settings, want) => {
    expect(errorsOf(`steps:\n  - {name: s, action: ${action}, with: ${settings}}`)).toEqual([want]);
  });

  it('refuses an artifact action when the file turns artifacts off', () => {
    expect(
      errorsOf(
        'artifacts: {enabled: false}\nsteps:\n  - {name: s, action: artifact.write, with: {path: a, content: x}}',
      ),
    ).toEqual(['artifacts.enabled: artifact actions require artifacts.enabled to be true']);
  });
});

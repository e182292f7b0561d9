import { describe, expect, it } from 'vitest';
import { loadDag } from './load.ts';
import { formatIssue } from './issues.ts';
import { errorsIn } from '../../test/dag-errors.ts';

const errorsOf = (text: string, fileName = 'example'): string[] => errorsIn(fileName)(text);

describe('loadDag accepts every spelling the format allows', () => {
  const cases: { name: string; yaml: string }[] = [
    {
      name: 'keys in any letter case',
      yaml: 'Steps:\n  - Command: echo\n    ContinueOn: {Failure: true}\nMaxActiveRuns: 2',
    },
    { name: 'empty values as unset', yaml: 'description:\nsteps:\n  - command: echo\n    env:' },
    {
      name: 'a step id used in depends',
      yaml: 'type: graph\nsteps:\n  - {id: first, command: echo}\n  - {name: b, command: echo, depends: first}',
    },
    { name: 'map-form steps', yaml: 'steps:\n  build: {command: make}\n  test: {command: make test, depends: build}' },
    {
      name: 'executor aliases',
      yaml: 'steps:\n  - {command: echo, executor: command}\n  - {command: ls, executor: {type: container, config: {image: alpine}}}\n  - {command: uses/x@v1, executor: github-action}',
    },
    {
      name: 'retry counts as variables',
      yaml: 'steps:\n  - {command: echo, retryPolicy: {limit: "${RETRIES}", intervalSec: "5"}}',
    },
    { name: 'continueOn as a word', yaml: 'steps:\n  - {command: "false", continueOn: skipped}\n  - echo' },
    {
      name: 'an ssh step with a script',
      yaml: 'ssh: {host: app-01, user: deploy}\nsteps:\n  - {executor: ssh, script: "uptime\\ndf -h"}',
    },
    {
      name: 'the legacy precondition key',
      yaml: 'precondition: test -f /data\nsteps:\n  - {command: echo, precondition: [{condition: "$X", expected: "re:^a"}]}',
    },
  ];
  it.each(cases)('accepts $name', ({ yaml }) => {
    expect(errorsOf(yaml)).toEqual([]);
  });
});

describe('loadDag names and local DAGs', () => {
  it('uses the file name when the DAG has no name', () => {
    expect(loadDag('steps: [echo]', { fileName: 'nightly' }).dag.name).toBe('nightly');
  });

  it('prefers the DAG name written in the file over the file name', () => {
    expect(loadDag('name: report\nsteps: [echo]', { fileName: 'nightly' }).dag.name).toBe('report');
  });

  it('asks for a name when neither the file nor the caller gives one', () => {
    expect(loadDag('steps: [echo]').errors.map(formatIssue)).toEqual([
      'name: is required (set name, or load the file under a file name)',
    ]);
  });

  it('prefers an explicit name over both', () => {
    expect(loadDag('name: report\nsteps: [echo]', { fileName: 'nightly', name: 'inline' }).dag.name).toBe('inline');
  });

  it('loads later documents as local DAGs, skipping empty ones', () => {
    const load = loadDag('steps: [echo]\n---\n---\nname: child\nsteps: [echo child]\n', { fileName: 'main' });
    expect(load.errors).toEqual([]);
    expect(load.localDags.map((l) => l.name)).toEqual(['child']);
    expect(load.documents).toHaveLength(2);
  });

  it('keeps a local DAG error with the local DAG as well as in the file errors', () => {
    const load = loadDag('steps: [echo]\n---\nname: child\nsteps:\n  - comand: x\n', { fileName: 'main' });
    expect(load.localDags[0]?.errors.map(formatIssue)).toEqual([
      'steps[0].comand: unknown key; did you mean "command"?',
    ]);
    expect(load.errors.map(formatIssue)).toEqual([
      'documents[1].steps[0].comand: unknown key; did you mean "command"?',
    ]);
  });

  it('warns that run is deprecated and treats it as call', () => {
    const load = loadDag('timeoutSec: 5\nsteps:\n  - run: child\n', { fileName: 'main' });
    expect(load.errors).toEqual([]);
    expect(load.warnings.map(formatIssue)).toEqual(['steps[0].run: "run" is deprecated; use "call"']);
    expect(load.dag.steps[0]?.call).toBe('child');
  });

  it('still builds the valid parts of an invalid DAG', () => {
    const load = loadDag(
      'description: partly fine\nschedule: 5\nsteps:\n  - echo one\n  - comand: x\n  - echo three\n',
      { fileName: 'partial' },
    );
    expect(load.errors).toHaveLength(2);
    expect(load.dag.description).toBe('partly fine');
    expect(load.dag.steps.map((s) => s.name)).toEqual(['cmd_1', 'cmd_3']);
  });
});

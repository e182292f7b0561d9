import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';

const load = (steps: string) => loadDag(`steps:\n${steps}`, { fileName: 'publish' });

describe('a 2.x step that only publishes values (Dagu infers noop)', () => {
  it.each([
    ['literal values', '  - id: a\n    output: {X: {value: "1"}, Y: two}\n', ['X', 'Y']],
    ['a literal object', '  - id: a\n    output: {X: {nested: 1}}\n', ['X']],
  ])('runs true for %s', (_, steps, names) => {
    const got = load(steps);
    expect(got.errors.map(formatIssue)).toEqual([]);
    expect(got.dag.steps[0]?.command).toBe('true');
    const picked = got.dag.steps[0]?.pickedOutputs;
    expect(picked !== undefined && 'entries' in picked ? picked.entries.map((entry) => entry.name) : []).toEqual(names);
  });

  it.each([
    [
      'an output read from stdout',
      '  - id: a\n    output: {X: {from: stdout}}\n',
      'steps[0]: needs a command or a script',
    ],
    [
      'an output read from stderr',
      '  - id: a\n    output: {X: {from: stderr}}\n',
      'steps[0]: needs a command or a script',
    ],
    ['no output at all', '  - id: a\n    description: nothing\n', 'steps[0]: needs a command or a script'],
  ])('still needs something to run with %s', (_, steps, error) => {
    expect(load(steps).errors.map(formatIssue)).toEqual([error]);
  });

  it('leaves a step that names what it runs as it is', () => {
    const got = load('  - id: a\n    run: echo hi\n    output: {X: {value: "1"}}\n');
    expect(got.errors).toEqual([]);
    expect(got.dag.steps[0]?.cmdWithArgs).toBe('echo hi');
  });
});

describe('a 2.x step type Kubedag does not run', () => {
  it.each([
    ['chat', 'Dagu 2.x feature type: chat (LLM chat steps) is not supported: Kubedag runs no LLM steps'],
    ['agent', 'Dagu 2.x feature type: agent (agent steps) is not supported: Kubedag runs no LLM agents'],
    [
      'harness',
      'Dagu 2.x feature type: harness (coding-agent harness) is not supported: Kubedag runs no coding-agent harnesses',
    ],
    [
      'postgres',
      'Dagu 2.x feature postgres.* actions is not supported: Kubedag runs no database client in its step runner; run psql in a container step (type: docker with image postgres) and pass the password from a Secret',
    ],
  ])('refuses type: %s by name, and only that', (type, message) => {
    const got = load(`  - id: a\n    type: ${type}\n    with: {x: 1}\n    timeout_sec: 5\n`);
    expect(got.errors.map(formatIssue)).toEqual([`steps[0].type: ${message}`]);
  });
});

import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';
import { MAX_FILE_BYTES, parseYamlDocuments } from './yaml.ts';

const errors = (text: string): string[] => loadDag(text, { fileName: 'limits' }).errors.map(formatIssue);

describe('hostile input yields errors, never crashes or hangs', () => {
  it('refuses a file over 1 MiB before parsing it', () => {
    const text = `steps:\n${'  - echo padding\n'.repeat(MAX_FILE_BYTES / 16)}`;
    expect(errors(text)).toEqual([
      `file is ${Buffer.byteLength(text)} bytes; a DAG file may be at most ${MAX_FILE_BYTES} bytes (1 MiB)`,
    ]);
  });

  it('accepts a file of exactly 1 MiB', () => {
    const head = 'steps:\n  - echo x\n# ';
    expect(parseYamlDocuments(head + 'x'.repeat(MAX_FILE_BYTES - head.length)).errors).toEqual([]);
  });

  it('bounds alias expansion (billion laughs)', () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i += 1)
      levels.push(
        `l${i}: &l${i} [${Array(9)
          .fill(i === 1 ? '*a' : `*l${i - 1}`)
          .join(',')}]`,
      );
    expect(errors(levels.join('\n'))).toEqual(['YAML aliases expand to too much data']);
  });

  it('bounds the number of aliases', () => {
    const lines = ['a: &a x', ...Array.from({ length: 101 }, (_, i) => `k${i}: *a`)];
    expect(errors(lines.join('\n'))).toEqual(['YAML uses too many aliases (more than 100)']);
  });

  it('refuses deep flow nesting', () => {
    expect(errors(`steps: ${'['.repeat(5000)}${']'.repeat(5000)}`)[0]).toMatch(/nesting is too deep|invalid YAML/);
  });

  it('refuses deep block nesting', () => {
    const lines = Array.from({ length: 200 }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n');
    expect(errors(`${lines} x`)).toEqual(['YAML nesting is too deep (more than 64 levels)']);
  });

  it('reports binary garbage as invalid YAML', () => {
    expect(errors('\u0000\u0001\u0002: [')[0]).toMatch(/^invalid YAML at line 1/);
  });

  it('reports a syntax error in a later document with its line', () => {
    expect(errors('steps: [echo]\n---\nname: x\nsteps: [\n')).toEqual([
      'invalid YAML at line 5, column 1: deficient indentation',
    ]);
  });

  it('supports anchors and merge keys for shared step settings', () => {
    const load = loadDag(
      'steps:\n  - &base {name: a, command: echo a, retryPolicy: {limit: 2, intervalSec: 1}}\n  - {<<: *base, name: b, command: echo b}\n',
      { fileName: 'merge' },
    );
    expect(load.errors).toEqual([]);
    expect(load.dag.steps.map((s) => [s.name, s.args[0], s.retryPolicy?.limit])).toEqual([
      ['a', 'a', 2],
      ['b', 'b', 2],
    ]);
  });
});

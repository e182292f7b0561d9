import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { loadDag } from '../../../core/dag/index.ts';
import { parsePrepared, preparedParamProblems, prepareScript, prepareVariables } from './prepare.ts';

/** The prepare script of a DAG run by a real shell, and what it reported. */
function prepare(yaml: string): { status: number | null; stderr: string; params: string[] } {
  const load = loadDag(yaml, { fileName: 'p' });
  expect(load.errors).toEqual([]);
  const params = load.dag.params.entries;
  const env = Object.fromEntries(prepareVariables(load.dag, params).map((v) => [v.name, v.value]));
  const run = spawnSync('/bin/sh', ['-c', prepareScript(load.dag, params)], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
  });
  return { status: run.status, stderr: run.stderr, params: parsePrepared(run.stdout, load.dag, params).params };
}

describe("the prepare step's parameters", () => {
  it("evaluate a 2.x typed param's eval, with commands and earlier values", () => {
    const run = prepare(
      'params:\n  - {name: BASE, default: /data}\n  - {name: DIR, eval: "${BASE}/`echo in`", default: /tmp}\nsteps: [echo]',
    );
    expect([run.status, run.params]).toEqual([0, ['/data', '/data/in']]);
  });

  it('fall back to the default when the eval command fails, as Dagu does', () => {
    const run = prepare('params:\n  - {name: N, type: integer, eval: "`exit 3`", default: 7}\nsteps: [echo]');
    expect([run.status, run.params]).toEqual([0, ['7']]);
  });

  it('fail the prepare step, naming the parameter, when a command fails and there is no default', () => {
    for (const yaml of [
      'params:\n  - {name: N, eval: "`false`"}\nsteps: [echo]',
      'params: "WHEN=`exit 2`"\nsteps: [echo]',
    ]) {
      const run = prepare(yaml);
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(
        /^params: evaluating parameter (N|WHEN) failed: a command in its value exited non-zero/,
      );
    }
  });

  it('keep quote marks and backslashes of a value literal while commands run', () => {
    const run = prepare('params:\n  - {name: Q, eval: \'say "hi" \\\\ `echo x`\'}\nsteps: [echo]');
    expect([run.status, run.params]).toEqual([0, ['say "hi" \\\\ x']]);
  });
});

describe('preparedParamProblems', () => {
  const dag = loadDag('params:\n  - {name: N, type: integer, eval: "`date`"}\n  - {name: S}\nsteps: [echo]', {
    fileName: 'p',
  }).dag;

  it('checks evaluated values against their types', () => {
    expect(preparedParamProblems(dag, dag.params.entries, ['Sun Nov 29', 'x'])).toEqual(['params.N: must be integer']);
    expect(preparedParamProblems(dag, dag.params.entries, ['42', 'x'])).toEqual([]);
  });

  it('has nothing to check without an inline schema', () => {
    const plain = loadDag('params: "A=`date`"\nsteps: [echo]', { fileName: 'p' }).dag;
    expect(preparedParamProblems(plain, plain.params.entries, ['anything'])).toEqual([]);
  });
});

import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { loadDag } from '../../core/dag/index.ts';
import { parsePrepared, prepareScript, prepareVariables, runDefinition } from './definition.ts';

describe('the prepare step', () => {
  it('evaluates env then params in order in a shell, with command substitution, and reads them back', () => {
    const dag = loadDag('env:\n  - BASE=/data\n  - STAMP=`echo 2026`\n  - QUOTED: \'say "hi" \\\\ $BASE\'\nparams: "DIR=${BASE}/`echo in` pos"\nsteps: [echo]', { fileName: 'p' }).dag;
    const params = dag.params.entries;
    const env = Object.fromEntries(prepareVariables(dag, params).map((v) => [v.name, v.value]));
    const run = spawnSync('/bin/sh', ['-c', prepareScript(dag, params)], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(parsePrepared(run.stdout, dag, params)).toEqual({ env: ['/data', '2026', 'say "hi" \\\\ /data'], params: ['/data/in', 'pos'] });
  });

  it('is needed only while substituted values are not evaluated yet', () => {
    const spec = { env: ['A=`date`'], steps: ['echo'] };
    expect(runDefinition(spec, 'p', undefined).needsPrepare).toBe(true);
    const prepared = runDefinition(spec, 'p', undefined, { env: ['Mon'], params: [] });
    expect([prepared.needsPrepare, prepared.env]).toEqual([false, [{ name: 'A', value: 'Mon' }]]);
    expect(runDefinition({ env: ['A=1'], steps: ['echo'] }, 'p', undefined).needsPrepare).toBe(false);
  });
});

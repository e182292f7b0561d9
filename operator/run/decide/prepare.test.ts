import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDag } from '../../../core/dag/index.ts';
import { runDefinition } from './run-definition.ts';
import { needsPreparing, parsePrepared, prepareScript, prepareVariables, withoutSecrets } from './prepare.ts';

describe('the prepare step', () => {
  it('evaluates env then params in order in a shell, with command substitution, and reads them back', () => {
    const dag = loadDag(
      'env:\n  - BASE=/data\n  - STAMP=`echo 2026`\n  - QUOTED: \'say "hi" \\\\ $BASE\'\nparams: "DIR=${BASE}/`echo in` pos"\nsteps: [echo]',
      { fileName: 'p' },
    ).dag;
    const params = dag.params.entries;
    const env = Object.fromEntries(prepareVariables(dag, params).map((v) => [v.name, v.value]));
    const run = spawnSync('/bin/sh', ['-c', prepareScript(dag, params)], {
      env: { PATH: process.env.PATH, ...env },
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    expect(parsePrepared(run.stdout, dag, params)).toEqual({
      env: ['/data', '2026', 'say "hi" \\\\ /data'],
      params: ['/data/in', 'pos'],
      secrets: {},
    });
  });

  it('is needed only while substituted values are not evaluated yet', () => {
    const spec = { env: ['A=`date`'], steps: ['echo'] };
    expect(runDefinition(spec, 'p', undefined).needsPrepare).toBe(true);
    const prepared = runDefinition(spec, 'p', undefined, { env: ['Mon'], params: [] });
    expect([prepared.needsPrepare, prepared.env]).toEqual([false, [{ name: 'A', value: 'Mon' }]]);
    expect(runDefinition({ env: ['A=1'], steps: ['echo'] }, 'p', undefined).needsPrepare).toBe(false);
  });

  function runScript(
    yaml: string,
    cwd: string,
    extraEnv: Record<string, string> = {},
  ): { status: number | null; stdout: string; stderr: string; dag: ReturnType<typeof loadDag>['dag'] } {
    const load = loadDag(yaml, { fileName: 'p' });
    expect(load.errors).toEqual([]);
    const params = load.dag.params.entries;
    const env = Object.fromEntries(prepareVariables(load.dag, params).map((v) => [v.name, v.value]));
    const run = spawnSync('/bin/sh', ['-c', prepareScript(load.dag, params)], {
      cwd,
      env: { PATH: process.env.PATH, ...extraEnv, ...env },
      encoding: 'utf8',
    });
    return { status: run.status, stdout: run.stdout, stderr: run.stderr, dag: load.dag };
  }

  it('reads dotenv files relative to the working directory, later files winning, never over the image environment', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kd-prepare-'));
    writeFileSync(join(dir, 'a.env'), 'A=1\nB="two words"\nHOME=/nope\n');
    writeFileSync(join(dir, 'b.env'), '# later\nexport A=3\n');
    const run = runScript('dotenv: [a.env, missing.env, b.env]\nsteps: [echo]', dir, { HOME: '/root' });
    expect(run.status).toBe(0);
    expect(parsePrepared(run.stdout, run.dag, []).dotenv).toEqual([
      { name: 'A', value: '3' },
      { name: 'B', value: 'two words' },
    ]);
  });

  it('resolves env and file secrets and keeps them out of what the store may see', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kd-prepare-'));
    writeFileSync(join(dir, 'token'), 's3cr3t-file\n');
    const run = runScript(
      'secrets:\n  - {name: FROM_ENV, provider: env, key: API_KEY}\n  - {name: FROM_FILE, provider: file, key: token}\nsteps: [echo]',
      dir,
      { API_KEY: 'k-123' },
    );
    expect(run.status).toBe(0);
    expect(parsePrepared(run.stdout, run.dag, []).secrets).toEqual({ FROM_ENV: 'k-123', FROM_FILE: 's3cr3t-file' });
    const kept = withoutSecrets(run.stdout);
    expect(kept).not.toContain(Buffer.from('k-123').toString('base64'));
    expect(parsePrepared(kept, run.dag, []).secrets).toEqual({ FROM_ENV: '', FROM_FILE: '' });
  });

  it('decides every DAG precondition with env and params in scope: commands by exit status, values against expected', () => {
    const yaml =
      'env: [A=x]\nparams: P=7\npreconditions:\n  - test -e /definitely/absent\n  - {condition: "`echo 6`", expected: "re:[1-5]"}\n  - {condition: "$A", expected: x}\n  - {command: test "$P" = 7}\n  - {condition: "`printf \'a\\\\nb\'`", expected: b}\nsteps: [echo]';
    const run = runScript(yaml, tmpdir());
    expect([run.status, run.stderr]).toEqual([0, '']);
    expect(parsePrepared(run.stdout, run.dag, run.dag.params.entries).preconditions).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
  });

  it('inverts a negated DAG precondition (Dagu 2.x negate)', () => {
    const yaml =
      'preconditions:\n  - {condition: test -e /definitely/absent, negate: true}\n  - {eval: "`echo 6`", expected: "6", negate: true}\nsteps:\n  - run: echo';
    const run = runScript(yaml, tmpdir());
    expect(parsePrepared(run.stdout, run.dag, run.dag.params.entries).preconditions).toEqual([true, false]);
  });

  it.each([
    {
      name: 'an unset environment variable',
      secret: '{name: S, provider: env, key: NOT_SET_ANYWHERE}',
      message: 'secret S: cannot read environment variable NOT_SET_ANYWHERE',
    },
    {
      name: 'an environment key that is not a variable name',
      secret: '{name: S, provider: env, key: "A;rm -rf /"}',
      message: 'secret S: cannot read environment variable A;rm -rf /',
    },
    {
      name: 'a missing file',
      secret: '{name: S, provider: file, key: /no/such/file}',
      message: 'secret S: cannot read file /no/such/file',
    },
  ])('fails the prepare step on $name', ({ secret, message }) => {
    const run = runScript(`secrets:\n  - ${secret}\nsteps: [echo]`, tmpdir());
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(message);
  });

  it.each([
    {
      name: 'a DAG with plain env and params needs no prepare step',
      yaml: 'env: [A=1]\nparams: B=2\nsteps: [echo]',
      want: false,
    },
    { name: 'the implicit .env default needs no prepare step', yaml: 'steps: [echo]', want: false },
    { name: 'dotenv written as an empty list needs no prepare step', yaml: 'dotenv: []\nsteps: [echo]', want: false },
    { name: 'a written dotenv file needs the prepare step', yaml: 'dotenv: .env\nsteps: [echo]', want: true },
    {
      name: 'secrets need the prepare step',
      yaml: 'secrets: [{name: S, provider: env, key: K}]\nsteps: [echo]',
      want: true,
    },
    { name: 'backticks in a param need the prepare step', yaml: 'params: "A=`date`"\nsteps: [echo]', want: true },
    {
      name: 'a DAG precondition that is a command needs the prepare step',
      yaml: 'preconditions: ["test -f /x"]\nsteps: [echo]',
      want: true,
    },
    {
      name: 'a DAG precondition with backticks needs the prepare step',
      yaml: 'preconditions: [{condition: "`date +%u`", expected: "re:[1-5]"}]\nsteps: [echo]',
      want: true,
    },
    {
      name: 'a literal DAG precondition needs no prepare step',
      yaml: 'preconditions: [{condition: "$HOME", expected: "/root"}]\nsteps: [echo]',
      want: false,
    },
  ])('$name', ({ yaml, want }) => {
    const dag = loadDag(yaml, { fileName: 'p' }).dag;
    expect(needsPreparing(dag, dag.params.entries)).toBe(want);
  });
});

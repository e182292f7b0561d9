/**
 * What a run's prepare Pod reads before its first step, on the local control plane: dotenv
 * files from the working directory, and secrets from files and the Pod's environment, handed to
 * steps through a Secret the run owns and masked in logs and outputs.
 */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clients } from './support.ts';
import {
  finishedRun,
  givenDag,
  stepLog,
  stepStates,
  whenRun,
  type RunningOperator,
  withOperatorNamespace,
} from './operator-support.ts';

const { core } = clients();

let ns = '';
let operator: RunningOperator;
withOperatorNamespace('op-prepare', (made) => ({ ns, operator } = made));

/**
 * Files a step finds in its image: here the host is the image, so a directory the test writes,
 * readable by the step's uid. Not under /tmp, which each container has for itself; such DAGs
 * turn the workspace off, which would otherwise be mounted over their working directory.
 */
function imageDir(prefix: string): string {
  const dir = mkdtempSync(join('/var/tmp', prefix));
  chmodSync(dir, 0o755);
  return dir;
}

describe('preparing a run on the local control plane', () => {
  it('loads dotenv files once per run from the working directory: later files win, params win over them', async () => {
    const dir = imageDir('kd-dotenv-');
    writeFileSync(join(dir, 'base.env'), 'REGION=us\nTIER=gold\nWHO=dotenv\n');
    writeFileSync(join(dir, 'local.env'), 'REGION=eu\n');
    await givenDag(
      ns,
      'dotenv',
      `kubernetes: {workspace: false}\nworkingDir: ${dir}\ndotenv: [base.env, local.env]\nenv: [TIER=silver]\nparams: WHO=param\nsteps:\n  - echo "$REGION $TIER $WHO"`,
    );
    await whenRun(ns, 'dotenv-run', 'dotenv');
    const done = await finishedRun(ns, 'dotenv-run');
    expect(stepStates(done)).toEqual({ cmd_1: 'succeeded' });
    expect(await stepLog(operator, done, 'cmd_1')).toBe('eu gold param\n');
  });

  it('resolves secrets once, hands them to steps through a Secret owned by the run, and masks them', async () => {
    const dir = imageDir('kd-secret-');
    writeFileSync(join(dir, 'token'), 'file-s3cret-value\n');
    const dag = [
      `workingDir: ${dir}`,
      // Where an env-provider secret comes from on Kubernetes: the DAG's Pod settings.
      'kubernetes: {workspace: false, env: [{name: API_KEY, value: env-s3cret-value}]}',
      'secrets:',
      '  - {name: FROM_FILE, provider: file, key: token}',
      '  - {name: FROM_ENV, provider: env, key: API_KEY}',
      'steps:',
      '  - {name: show, command: echo "file=$FROM_FILE env=$FROM_ENV", output: SHOWN}',
      '  - {name: check, command: \'test "$FROM_FILE" = "$(cat token)"\'}',
    ].join('\n');
    await givenDag(ns, 'secrets', dag);
    await whenRun(ns, 'secrets-run', 'secrets');
    const done = await finishedRun(ns, 'secrets-run');
    expect(stepStates(done)).toEqual({ show: 'succeeded', check: 'succeeded' });
    expect(await stepLog(operator, done, 'show')).toBe('file=******* env=*******\n');
    expect(done.status?.nodes?.[0]?.outputs).toEqual({ SHOWN: 'file=******* env=*******' });
    expect(JSON.stringify(done)).not.toContain('file-s3cret-value');
    expect(await stepLog(operator, done, 'kubedag-prepare')).not.toContain(
      Buffer.from('file-s3cret-value').toString('base64'),
    );
    const secrets = await core.listNamespacedSecret({ namespace: ns, labelSelector: `kubedag.io/run=secrets-run` });
    expect(secrets.items.map((x) => [x.immutable, x.metadata?.ownerReferences?.[0]?.name])).toEqual([
      [true, 'secrets-run'],
    ]);
  });

  it('fails the run with the reason when a secret cannot be resolved', async () => {
    await givenDag(
      ns,
      'secret-missing',
      'secrets: [{name: S, provider: file, key: /no/such/kubedag/file}]\nsteps: [echo]',
    );
    await whenRun(ns, 'secret-missing-run', 'secret-missing');
    const done = await finishedRun(ns, 'secret-missing-run');
    expect(done.status?.statusLabel).toBe('failed');
    expect(await stepLog(operator, done, 'kubedag-prepare', 'stderr')).toContain(
      'secret S: cannot read file /no/such/kubedag/file',
    );
  });
});

/**
 * Step Pods' security on the local control plane: the restricted security defaults hold in a
 * namespace that enforces them, a DAG's uid is taken, a step writes nothing outside its
 * sandbox, and registryAuths becomes an image pull Secret whose values appear nowhere else.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registrySecretName } from '../../core/resources/names.ts';
import { clients, createNamespace, deleteNamespace } from './support.ts';
import {
  finishedRun,
  givenDag,
  startOperator,
  stepLog,
  stepStates,
  whenRun,
  type RunningOperator,
} from './operator-support.ts';
import { PodRecorder } from './pod-recorder.ts';

const { kc, core } = clients();
const root = join(import.meta.dirname, '../..');

let ns = '';
let restrictedNs = '';
let operator: RunningOperator;
const pods = new PodRecorder(kc);

beforeAll(async () => {
  ns = await createNamespace(core, 'pods-sec');
  restrictedNs = await createNamespace(core, 'strict');
  await core.patchNamespace({
    name: restrictedNs,
    body: [{ op: 'add', path: '/metadata/labels/pod-security.kubernetes.io~1enforce', value: 'restricted' }],
  });
  await Promise.all([pods.record(ns), pods.record(restrictedNs)]);
  operator = await startOperator(ns, undefined, [`--namespaces=${ns},${restrictedNs}`]);
});

afterAll(async () => {
  pods.stop();
  await operator.stop();
  await Promise.all([deleteNamespace(core, ns), deleteNamespace(core, restrictedNs)]);
});

describe('sandboxes and security', () => {
  it('runs a DAG in a namespace enforcing the restricted Pod Security Standard, as uid 1000 with a writable workspace', async () => {
    await givenDag(
      restrictedNs,
      'strict',
      'steps:\n  - {name: who, command: sh -c "id -u; echo ok > note && cat note"}\n',
    );
    await whenRun(restrictedNs, 'strict-1', 'strict');
    const run = await finishedRun(restrictedNs, 'strict-1');
    expect(stepStates(run)).toEqual({ who: 'succeeded' });
    expect(await stepLog(operator, run, 'who')).toBe('1000\nok\n');
  });

  it('takes the uid the DAG asks for', async () => {
    await givenDag(
      ns,
      'uid',
      'kubernetes: {podSecurityContext: {runAsUser: 4321}}\nsteps:\n  - {name: who, command: id -u}\n',
    );
    await whenRun(ns, 'uid-1', 'uid');
    const run = await finishedRun(ns, 'uid-1');
    expect(await stepLog(operator, run, 'who')).toBe('4321\n');
  });

  it('leaves the project checkout untouched when a step writes relative files', async () => {
    const probe = 'kubedag-relative-write-probe.txt';
    await givenDag(
      ns,
      'relative',
      `kubernetes: {workspace: false}\nsteps:\n  - {name: write, command: sh -c 'echo x > ${probe} && ls ${probe}'}\n`,
    );
    await whenRun(ns, 'relative-1', 'relative');
    const run = await finishedRun(ns, 'relative-1');
    expect(stepStates(run)).toEqual({ write: 'succeeded' });
    expect(existsSync(join(root, probe))).toBe(false);
    expect(existsSync(join(process.cwd(), probe))).toBe(false);
  });
});

describe('registryAuths', () => {
  it('becomes a dockerconfigjson Secret owned by the run that its Pods pull with, its values in no status or log', async () => {
    await givenDag(
      ns,
      'private',
      `
env: [REGISTRY_USER=robot]
registryAuths:
  registry.example.com: {username: '\${REGISTRY_USER}', password: hunter2-not-logged}
steps: [echo pulled]
`,
    );
    await whenRun(ns, 'private-1', 'private');
    const run = await finishedRun(ns, 'private-1');
    const name = registrySecretName('private-1');
    const secret = await core.readNamespacedSecret({ name, namespace: ns });
    expect(secret.type).toBe('kubernetes.io/dockerconfigjson');
    expect(secret.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'DAGRun', uid: run.metadata?.uid });
    const config = JSON.parse(Buffer.from(secret.data?.['.dockerconfigjson'] ?? '', 'base64').toString('utf8')) as {
      auths: Record<string, { username: string }>;
    };
    expect(config.auths['registry.example.com']?.username).toBe('robot');
    expect(
      pods.podsOf(ns, 'private-1').every((p) => p.spec?.imagePullSecrets?.some((s) => s.name === name) === true),
    ).toBe(true);
    expect(JSON.stringify(run.status)).not.toContain('hunter2');
    expect(JSON.stringify(pods.podsOf(ns, 'private-1'))).not.toContain('hunter2');
    expect(await stepLog(operator, run, 'cmd_1')).toBe('pulled\n');
  });
});

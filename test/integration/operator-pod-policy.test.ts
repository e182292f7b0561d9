/**
 * The pod policy ceiling (issue 24 part 2, docs/pod-policy.md), end to end on the local control
 * plane: the escape of the issue and its variants are refused under the default `baseline`
 * with a message naming the field and the level, the DAG is invalid and nothing is created;
 * the same DAG runs where an administrator raised the namespace's level with its label, and a
 * namespace lowered to `restricted` refuses a root run while Kubedag's own Pods still run there.
 * A DAG names only the service accounts labelled kubedag.io/allow-runs=true.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDag } from '../../core/dag/index.ts';
import { dagManifest } from '../../core/resources/dag.ts';
import type { DagResource } from '../../core/resources/types.ts';
import { startApi } from './api-support.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';
import {
  finishedRun,
  givenDag,
  startOperator,
  stepLog,
  stepStates,
  warningOf,
  whenRun,
  type RunningOperator,
} from './operator-support.ts';

const { core, kube } = clients();
/** No label: the operator's default, baseline. */
let baselineNs = '';
/** Labelled kubedag.io/pod-policy=privileged by "an administrator". */
let raisedNs = '';
/** Labelled kubedag.io/pod-policy=restricted. */
let restrictedNs = '';
let operator: RunningOperator;

const ESCAPE = `
kubernetes:
  security_context: {run_as_user: 0, allow_privilege_escalation: true}
  volumes: [{name: host, hostPath: {path: /etc}}]
  volume_mounts: [{name: host, mountPath: /host-etc}]
steps: [{name: escape, command: "id -u; ls /host-etc > /dev/null && echo host-ok"}]
`;

const label = (namespace: string, level: string): Promise<unknown> =>
  core.patchNamespace({
    name: namespace,
    body: [{ op: 'add', path: '/metadata/labels/kubedag.io~1pod-policy', value: level }],
  });

/** The DAG's status once the operator has looked at its current generation and `valid` is as wanted. */
async function dagStatusOf(
  namespace: string,
  name: string,
  valid: boolean,
): Promise<NonNullable<DagResource['status']>> {
  let dag: DagResource | undefined;
  await waitFor(
    `DAG ${name} valid=${String(valid)}`,
    async () => {
      dag = await kube.dags.get(namespace, name);
      return dag.status?.valid === valid;
    },
    30_000,
    250,
  );
  return dag?.status ?? {};
}

beforeAll(async () => {
  [baselineNs, raisedNs, restrictedNs] = await Promise.all([
    createNamespace(core, 'policy-base'),
    createNamespace(core, 'policy-raised'),
    createNamespace(core, 'policy-restricted'),
  ]);
  await Promise.all([label(raisedNs, 'privileged'), label(restrictedNs, 'restricted')]);
  await core.createNamespacedServiceAccount({
    namespace: baselineNs,
    body: { metadata: { name: 'cluster-admin-ish' } },
  });
  await core.createNamespacedServiceAccount({
    namespace: baselineNs,
    body: { metadata: { name: 'etl', labels: { 'kubedag.io/allow-runs': 'true' } } },
  });
  operator = await startOperator(baselineNs, undefined, [`--namespaces=${baselineNs},${raisedNs},${restrictedNs}`]);
});

afterAll(async () => {
  await operator.stop();
  await Promise.all([
    deleteNamespace(core, baselineNs),
    deleteNamespace(core, raisedNs),
    deleteNamespace(core, restrictedNs),
  ]);
});

describe('under the default baseline', () => {
  const variants = [
    {
      name: 'escape',
      yaml: ESCAPE,
      want: 'kubernetes.volumes[host].hostPath: host paths are not allowed under pod policy "baseline"',
    },
    {
      name: 'privileged',
      yaml: 'steps: [{name: p, command: id, kubernetes: {securityContext: {privileged: true}}}]',
      want: 'step p: kubernetes.securityContext.privileged: true is not allowed under pod policy "baseline"',
    },
    {
      name: 'caps',
      yaml: 'kubernetes: {security_context: {capabilities: {add: [SYS_ADMIN, NET_RAW]}}}\nsteps: [id]',
      want: 'kubernetes.securityContext.capabilities.add: SYS_ADMIN, NET_RAW are not allowed under pod policy "baseline"',
    },
    {
      name: 'executor',
      yaml: 'steps: [{name: k, type: kubernetes, command: id, with: {security_context: {privileged: true}}}]',
      want: 'step k: kubernetes.securityContext.privileged: true is not allowed under pod policy "baseline"',
    },
    {
      name: 'account',
      yaml: 'steps: [{name: a, command: id, kubernetes: {service_account: cluster-admin-ish}}]',
      want: 'step a: kubernetes.serviceAccountName: "cluster-admin-ish" is not allowed for Kubedag runs in namespace "NS" (an administrator labels the ServiceAccount kubedag.io/allow-runs=true)',
    },
  ];

  it.each(variants)(
    'refuses the $name variant: the DAG is invalid, the run fails naming field and level with a Warning Event, and nothing is created',
    async ({ name, yaml, want }) => {
      const message = want.replace('"NS"', `"${baselineNs}"`);
      await givenDag(baselineNs, name, yaml);
      expect((await dagStatusOf(baselineNs, name, false)).errors).toEqual([message]);
      await whenRun(baselineNs, `${name}-1`, name);
      const run = await finishedRun(baselineNs, `${name}-1`);
      expect([run.status?.statusLabel, run.status?.error, stepStates(run)]).toEqual([
        'failed',
        message,
        Object.fromEntries((run.status?.nodes ?? []).map((n) => [n.name, 'not_started'])),
      ]);
      expect((await warningOf(baselineNs, `${name}-1`, 'Rejected')).message).toBe(message);
      expect(
        (await core.listNamespacedPod({ namespace: baselineNs, labelSelector: `kubedag.io/run=${name}-1` })).items,
      ).toEqual([]);
    },
  );

  // The kubernetes block has no key for these: no level can grant them, and a file asking is invalid before any policy.
  it.each([
    { name: 'host-network', block: 'hostNetwork: true', key: 'kubernetes.hostNetwork' },
    { name: 'host-pid', block: 'host_pid: true', key: 'kubernetes.host_pid' },
    { name: 'host-ipc', block: 'hostIPC: true', key: 'kubernetes.hostIPC' },
    {
      name: 'proc-mount',
      block: 'securityContext: {procMount: Unmasked}',
      key: 'kubernetes.securityContext.procMount',
    },
    { name: 'host-port', block: 'ports: [{containerPort: 80, hostPort: 8080}]', key: 'kubernetes.ports' },
  ])('refuses the $name variant as an unknown key, and creates nothing', async ({ name, block, key }) => {
    const load = loadDag(`kubernetes: {${block}}\nsteps: [id]\n`, { fileName: name });
    await kube.dags.create(baselineNs, dagManifest(name, load.documents, baselineNs));
    const status = await dagStatusOf(baselineNs, name, false);
    expect(status.errors?.[0]).toMatch(new RegExp(`^${key.replace(/[.[\]]/g, '\\$&')}: unknown key`));
    await whenRun(baselineNs, `${name}-1`, name);
    const run = await finishedRun(baselineNs, `${name}-1`);
    expect([run.status?.statusLabel, run.status?.error]).toEqual([
      'failed',
      expect.stringContaining(`${key}: unknown key`) as unknown,
    ]);
    expect(
      (await core.listNamespacedPod({ namespace: baselineNs, labelSelector: `kubedag.io/run=${name}-1` })).items,
    ).toEqual([]);
  });

  it('runs a DAG naming a service account labelled for Kubedag runs', async () => {
    await givenDag(baselineNs, 'allowed', 'steps: [{name: a, command: echo ok, kubernetes: {service_account: etl}}]');
    await whenRun(baselineNs, 'allowed-1', 'allowed');
    const run = await finishedRun(baselineNs, 'allowed-1');
    expect([run.status?.statusLabel, await stepLog(operator, run, 'a')]).toEqual(['succeeded', 'ok\n']);
  });

  it('created no Pod, workspace claim or Secret for any refused run', async () => {
    const pods = (await core.listNamespacedPod({ namespace: baselineNs })).items.map(
      (p) => p.metadata?.labels?.['kubedag.io/run'],
    );
    expect(pods.filter((r) => r !== 'allowed-1')).toEqual([]);
    const claims = (await core.listNamespacedPersistentVolumeClaim({ namespace: baselineNs })).items.map(
      (c) => c.metadata?.name ?? '',
    );
    expect(claims.filter((c) => !c.includes('allowed'))).toEqual([]);
  });
});

describe('where an administrator raised the ceiling', () => {
  it('runs the escape in the namespace labelled privileged', async () => {
    await givenDag(raisedNs, 'escape', ESCAPE);
    expect((await dagStatusOf(raisedNs, 'escape', true)).errors).toEqual([]);
    await whenRun(raisedNs, 'escape-1', 'escape');
    const run = await finishedRun(raisedNs, 'escape-1');
    expect([run.status?.statusLabel, await stepLog(operator, run, 'escape')]).toEqual(['succeeded', '0\nhost-ok\n']);
  });

  it('makes an invalid DAG valid when the label is set, and invalid again when it is removed', async () => {
    await givenDag(baselineNs, 'later', 'kubernetes: {securityContext: {privileged: true}}\nsteps: [id]');
    await dagStatusOf(baselineNs, 'later', false);
    await label(baselineNs, 'privileged');
    expect((await dagStatusOf(baselineNs, 'later', true)).errors).toEqual([]);
    await core.patchNamespace({
      name: baselineNs,
      body: [{ op: 'remove', path: '/metadata/labels/kubedag.io~1pod-policy' }],
    });
    expect((await dagStatusOf(baselineNs, 'later', false)).errors).toEqual([
      'kubernetes.securityContext.privileged: true is not allowed under pod policy "baseline"',
    ]);
  });
});

describe('where an administrator lowered the ceiling to restricted', () => {
  it('refuses a root run, naming the field and the level, and creates no Pod', async () => {
    await givenDag(
      restrictedNs,
      'root',
      'steps:\n  - {name: as-root, command: id -u, kubernetes: {podSecurityContext: {runAsUser: 0}}}\n',
    );
    await whenRun(restrictedNs, 'root-1', 'root');
    const run = await finishedRun(restrictedNs, 'root-1');
    expect([run.status?.statusLabel, run.status?.error]).toEqual([
      'failed',
      'step as-root: kubernetes.podSecurityContext.runAsUser: 0 (root) is not allowed under pod policy "restricted"; step as-root: kubernetes.securityContext.runAsNonRoot: must be true (here or in spec.securityContext) under pod policy "restricted"',
    ]);
    expect(
      (await core.listNamespacedPod({ namespace: restrictedNs, labelSelector: 'kubedag.io/run=root-1' })).items,
    ).toEqual([]);
  });

  it("runs a DAG that asks nothing: Kubedag's own step Pods meet restricted", async () => {
    await givenDag(restrictedNs, 'plain', 'steps: [{name: a, command: id -u}]');
    await whenRun(restrictedNs, 'plain-1', 'plain');
    const run = await finishedRun(restrictedNs, 'plain-1');
    expect([run.status?.statusLabel, await stepLog(operator, run, 'a')]).toEqual(['succeeded', '1000\n']);
  });
});

describe('the API server of a namespace', () => {
  const post = async (
    namespace: string,
    url: string,
    payload: Record<string, unknown>,
  ): Promise<{ status: number; body: Record<string, unknown> }> => {
    const server = await startApi(namespace);
    try {
      const answer = await server.app.inject({ method: 'POST', url: `/api/v2${url}`, payload });
      return { status: answer.statusCode, body: answer.json<Record<string, unknown>>() };
    } finally {
      await server.close();
    }
  };
  const hostPath = (level: string): string =>
    `kubernetes.volumes[host].hostPath: host paths are not allowed under pod policy "${level}"`;

  it('finds the escape invalid where the namespace is lowered to restricted, naming field and level, and valid where it is raised', async () => {
    expect(await post(restrictedNs, '/dags/validate', { spec: ESCAPE, name: 'escape' })).toMatchObject({
      status: 200,
      body: { valid: false, errors: expect.arrayContaining([hostPath('restricted')]) as unknown },
    });
    expect(await post(raisedNs, '/dags/validate', { spec: ESCAPE, name: 'escape' })).toMatchObject({
      status: 200,
      body: { valid: true, errors: [] },
    });
  });

  it('answers 400 to an inline run and a create above the policy, and writes nothing', async () => {
    const ns = await createNamespace(core, 'policy-api');
    try {
      expect(await post(ns, '/dag-runs', { spec: ESCAPE, name: 'escape' })).toMatchObject({
        status: 400,
        body: { message: `invalid spec: ${hostPath('baseline')}` },
      });
      expect(await post(ns, '/dags', { name: 'escape', spec: ESCAPE })).toMatchObject({
        status: 400,
        body: { message: `invalid spec: ${hostPath('baseline')}` },
      });
      expect(
        await post(ns, '/dags', { name: 'foreign', spec: 'kubernetes: {service_account: default}\nsteps: [id]\n' }),
      ).toMatchObject({
        status: 400,
        body: {
          message: expect.stringContaining(
            'kubernetes.serviceAccountName: "default" is not allowed for Kubedag runs',
          ) as unknown,
        },
      });
      expect([(await kube.runs.list(ns)).items, (await kube.dags.list(ns)).items]).toEqual([[], []]);
    } finally {
      await deleteNamespace(core, ns);
    }
  });
});

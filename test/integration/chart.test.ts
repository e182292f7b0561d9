/**
 * The Helm chart against the real kube-apiserver: it lints, every object it renders passes the
 * API server's own validation (server-side dry run), and its RBAC is enough: the operator and
 * the API server run with nothing but their chart ServiceAccounts' tokens and do their work.
 * The example in manifests/ runs. What `helm template` alone checks (the values, the flags they
 * become, the plain manifests) is in chart-values.test.ts, which needs no namespace.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AuthenticationV1Api,
  AuthorizationV1Api,
  KubeConfig,
  KubernetesObjectApi,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { loadAll } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAuth } from '../../apiserver/auth.ts';
import { parseApiConfig } from '../../apiserver/config.ts';
import { parseConfig } from '../../operator/config.ts';
import { startServer, type Server } from '../../apiserver/server.ts';
import { finishedRun, givenDag, startOperator, whenRun, type RunningOperator } from './operator-support.ts';
import { pod } from '../builders/pod.ts';
import { chart, helm } from './chart-support.ts';
import { clients, createNamespace, deleteNamespace, running, waitFor, waitForPod } from './support.ts';

const { kc, core } = clients();
const objects = KubernetesObjectApi.makeApiClient(kc);
let ns = '';
let rendered: KubernetesObject[] = [];
let operator: RunningOperator | undefined;
let api: Server | undefined;

/** A kubeconfig file for the suite's cluster that authenticates as a ServiceAccount. */
async function kubeconfigOf(serviceAccount: string): Promise<string> {
  const request = await core.createNamespacedServiceAccountToken({
    name: serviceAccount,
    namespace: ns,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const cluster = kc.getCurrentCluster();
  if (cluster === null || request.status?.token === undefined) throw new Error(`no token for ${serviceAccount}`);
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [cluster],
    users: [{ name: serviceAccount, token: request.status.token }],
    contexts: [{ name: serviceAccount, cluster: cluster.name, user: serviceAccount }],
    currentContext: serviceAccount,
  });
  const path = join(mkdtempSync(join(tmpdir(), 'kd-chart-')), 'kubeconfig');
  writeFileSync(path, config.exportConfig());
  return path;
}

const isRbac = (o: KubernetesObject): boolean =>
  o.apiVersion?.startsWith('rbac.authorization.k8s.io/') === true || o.kind === 'ServiceAccount';

beforeAll(async () => {
  ns = await createNamespace(core, 'kd-chart');
  // One watched namespace (namespaced RBAC for the operator), the API server in mode kubernetes.
  const text = helm(
    'template',
    'kd',
    chart,
    '--namespace',
    ns,
    '--set',
    `operator.namespaces={${ns}}`,
    '--set',
    'apiServer.auth.mode=kubernetes',
  );
  rendered = (loadAll(text) as (KubernetesObject | null)[]).filter((o): o is KubernetesObject => o !== null);
});

afterAll(async () => {
  await api?.close();
  await operator?.stop();
  // Cluster-scoped objects and the Role in kube-node-lease outlive the test namespace.
  for (const object of rendered.filter(
    (o) => isRbac(o) && (o.metadata?.namespace === undefined || o.metadata.namespace === 'kube-node-lease'),
  )) {
    await objects.delete(object).catch(() => undefined);
  }
  await deleteNamespace(core, ns);
});

/** A flag the rendered chart gives its operator (empty when it gives none). */
function operatorFlag(prefix: string): string {
  const deployment = rendered.find((o) => o.kind === 'Deployment' && o.metadata?.name === 'kd-kubedag-operator') as
    { spec?: { template?: { spec?: { containers?: { args?: string[] }[] } } } } | undefined;
  return deployment?.spec?.template?.spec?.containers?.[0]?.args?.find((a) => a.startsWith(prefix)) ?? '';
}

describe('the Helm chart', () => {
  it('lints, and renders only objects the API server accepts', async () => {
    expect(helm('lint', chart, '--set', 'apiServer.auth.mode=kubernetes')).toContain('0 chart(s) failed');
    expect(rendered.map((o) => o.kind).sort()).toEqual([
      'ClusterRole',
      'ClusterRole',
      'ClusterRole',
      'ClusterRole',
      'ClusterRoleBinding',
      'ClusterRoleBinding',
      'ClusterRoleBinding',
      'ClusterRoleBinding',
      'Deployment',
      'Deployment',
      'PersistentVolumeClaim',
      'PodDisruptionBudget',
      'Role',
      'Role',
      'Role',
      'Role',
      'Role',
      'RoleBinding',
      'RoleBinding',
      'RoleBinding',
      'RoleBinding',
      'RoleBinding',
      'Service',
      'Service',
      'ServiceAccount',
      'ServiceAccount',
    ]);
    for (const object of rendered) await objects.create(object, undefined, 'All');
    // All namespaces watched: the operator's rules become a ClusterRole.
    const wide = (loadAll(helm('template', 'kd', chart, '--namespace', ns)) as (KubernetesObject | null)[]).filter(
      (o): o is KubernetesObject => o?.kind === 'ClusterRole',
    );
    expect(wide.map((o) => o.metadata?.name).sort()).toEqual([
      'kd-kubedag-api-' + ns + '-namespace',
      'kd-kubedag-api-' + ns + '-nodes',
      'kd-kubedag-operator',
      'kd-kubedag-operator-namespaces',
      'kd-kubedag-step-exec',
    ]);
  });

  it('gives the operator the SQLite history file on its log volume by default, and the API server the same store', () => {
    type Container = {
      args: string[];
      env?: unknown[];
      volumeMounts?: { name: string; mountPath: string; subPath?: string }[];
    };
    const deployment = (name: string): Container | undefined =>
      (
        rendered.find((o) => o.kind === 'Deployment' && o.metadata?.name === name) as unknown as
          { spec: { template: { spec: { containers: Container[] } } } } | undefined
      )?.spec.template.spec.containers[0];
    const operatorPod = deployment('kd-kubedag-operator');
    expect(operatorPod?.args.filter((a) => a.startsWith('--history-') || a.startsWith('--archive-'))).toEqual([
      '--history-store=sqlite',
      '--archive-after=1h',
      '--history-sqlite-path=/var/lib/kubedag/history/history.db',
    ]);
    expect(operatorPod?.volumeMounts).toContainEqual({
      name: 'logs',
      mountPath: '/var/lib/kubedag/history',
      subPath: '.history',
    });
    expect(parseConfig(operatorPod?.args ?? [], {})).toMatchObject({
      history: { kind: 'sqlite', path: '/var/lib/kubedag/history/history.db' },
      archiveAfterMs: 3_600_000,
    });
    expect(deployment('kd-kubedag-api')?.args).toContain('--history-store=sqlite');
  });

  it('with the S3 log store, gives the operator its bucket settings and credentials and no volume, and the API server accepts the objects', async () => {
    const values = [
      'history.store=none',
      'operator.logs.store=s3',
      'operator.logs.s3.bucket=kubedag-logs',
      'operator.logs.s3.prefix=prod',
      'operator.logs.s3.endpoint=http://minio.storage:9000',
      'operator.logs.s3.forcePathStyle=true',
      'operator.logs.s3.existingSecret=s3-credentials',
      'serviceAccount.operatorAnnotations.eks\\.amazonaws\\.com/role-arn=arn:aws:iam::111122223333:role/kubedag',
    ];
    const objectsOf = (text: string): KubernetesObject[] =>
      (loadAll(text) as (KubernetesObject | null)[]).filter((o): o is KubernetesObject => o !== null);
    const s3 = objectsOf(
      helm(
        'template',
        'kd',
        chart,
        '--namespace',
        ns,
        '--set',
        `operator.namespaces={${ns}}`,
        ...values.flatMap((v) => ['--set', v]),
      ),
    );
    expect(s3.filter((o) => o.kind === 'PersistentVolumeClaim')).toEqual([]);
    type Spec = {
      containers: { args: string[]; envFrom?: unknown[]; volumeMounts?: unknown[] }[];
      volumes?: unknown[];
    };
    const operatorPod = (
      s3.find((o) => o.kind === 'Deployment' && o.metadata?.name === 'kd-kubedag-operator') as unknown as {
        spec: { template: { spec: Spec } };
      }
    ).spec.template.spec;
    const container = operatorPod.containers[0];
    expect(container?.args.filter((a) => a.startsWith('--log-'))).toEqual([
      '--log-store=s3',
      '--log-s3-bucket=kubedag-logs',
      '--log-s3-prefix=prod',
      '--log-s3-endpoint=http://minio.storage:9000',
      '--log-s3-force-path-style=true',
    ]);
    expect([container?.envFrom, container?.volumeMounts, operatorPod.volumes]).toEqual([
      [{ secretRef: { name: 's3-credentials' } }],
      undefined,
      undefined,
    ]);
    expect(
      s3.find((o) => o.kind === 'ServiceAccount' && o.metadata?.name === 'kd-kubedag-operator')?.metadata?.annotations,
    ).toEqual({ 'eks.amazonaws.com/role-arn': 'arn:aws:iam::111122223333:role/kubedag' });
    // The operator parses what the chart gives it.
    expect(parseConfig(container?.args ?? [], {}).logStore).toEqual({
      kind: 's3',
      bucket: 'kubedag-logs',
      prefix: 'prod/',
      endpoint: 'http://minio.storage:9000',
      forcePathStyle: true,
    });
    for (const object of s3.filter((o) => o.kind === 'Deployment' || o.kind === 'ServiceAccount'))
      await objects.create(object, undefined, 'All');
  });

  it('gives the operator and the API server every permission they use, through their ServiceAccounts alone', async () => {
    for (const object of rendered.filter(isRbac)) await objects.create(object);
    const logDir = mkdtempSync(join(tmpdir(), 'kd-chart-logs-'));
    const execRole = operatorFlag('--step-exec-role=');
    expect(execRole).toBe('--step-exec-role=kd-kubedag-step-exec');
    operator = await startOperator(ns, logDir, [`--kubeconfig=${await kubeconfigOf('kd-kubedag-operator')}`, execRole]);
    const apiConfig = await kubeconfigOf('kd-kubedag-api');
    const config = parseApiConfig(
      [`--namespace=${ns}`, `--kubeconfig=${apiConfig}`, `--operator-url=${operator.url}`, `--lease-namespace=${ns}`],
      {},
    );
    api = await startServer({
      config,
      version: 'chart',
      plugins: [
        (app, context) => {
          registerAuth(app, {
            kubernetes: {
              authentication: context.kc.makeApiClient(AuthenticationV1Api),
              authorization: context.kc.makeApiClient(AuthorizationV1Api),
              namespace: context.namespace,
            },
          });
        },
      ],
    });
    const server = api;
    // The API server's own token: TokenReview and SubjectAccessReview (system:auth-delegator)
    // succeed, and its Role lets it do what it asks for.
    const token =
      (
        await core.createNamespacedServiceAccountToken({
          name: 'kd-kubedag-api',
          namespace: ns,
          body: { spec: { audiences: [], expirationSeconds: 600 } },
        })
      ).status?.token ?? '';
    const call = async (
      method: 'GET' | 'POST',
      url: string,
      body?: object,
    ): Promise<{ status: number; json: unknown }> => {
      const res = await server.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${token}` },
        ...(body === undefined ? {} : { payload: body }),
      });
      return { status: res.statusCode, json: res.body === '' ? undefined : (JSON.parse(res.body) as unknown) };
    };

    // The operator: a run with a sub-DAG call (child DAGRuns), a failing step retried, Events.
    await givenDag(
      ns,
      'chain',
      [
        'steps:',
        '  - call: child',
        '  - {name: flaky, command: exit 1, retryPolicy: {limit: 1, intervalSec: 0}, continueOn: {failure: true}}',
        '---',
        'name: child',
        'steps: [echo from-child]',
      ].join('\n'),
    );
    await whenRun(ns, 'chain-1', 'chain');
    expect((await finishedRun(ns, 'chain-1')).status?.statusLabel).toBe('partially_succeeded');

    // A docker step with containerName: the operator may bind the step exec role (and no
    // other) to the run's ServiceAccount, which then execs into a running Pod.
    await core.createNamespacedPod({ namespace: ns, body: pod('target').shell('exec sleep 600').build() });
    await waitForPod(core, { namespace: ns, name: 'target' }, 'to run', running);
    await givenDag(
      ns,
      'inside',
      'steps:\n  - {name: say, executor: {type: docker, config: {containerName: target}}, command: echo in-target}',
    );
    await whenRun(ns, 'inside-1', 'inside');
    expect((await finishedRun(ns, 'inside-1')).status?.statusLabel).toBe('succeeded');

    // The API server: DAGs, a start, the run's step log through the operator, workers, services.
    expect((await call('POST', '/api/v2/dags', { name: 'greeter', spec: 'steps: [echo hello]\n' })).status).toBe(201);
    expect((await call('POST', '/api/v2/dags/greeter/start', { dagRunId: 'h1' })).status).toBe(200);
    await waitFor(
      'h1 to succeed',
      async () =>
        ((await call('GET', '/api/v2/dag-runs/greeter/h1')).json as { dagRunDetails?: { statusLabel: string } })
          .dagRunDetails?.statusLabel === 'succeeded',
      30_000,
      100,
    );
    const log = (await call('GET', '/api/v2/dag-runs/greeter/h1/steps/cmd_1/log')).json as { content?: string };
    expect(log.content).toContain('hello');
    const workers = (await call('GET', '/api/v2/workers')).json as { workers: unknown[] };
    expect(workers.workers.length).toBeGreaterThan(0);
    expect(
      ((await call('GET', '/api/v2/services/scheduler')).json as { schedulers: { status: string }[] }).schedulers,
    ).toMatchObject([{ status: 'active' }]);
    expect((await call('GET', '/api/v2/dags')).status).toBe(200);
    // The example in manifests/: its DAG and a DAGRun with another parameter, as kubectl creates them.
    const example = (
      loadAll(
        readFileSync(join(import.meta.dirname, '../../manifests/examples/hello.yaml'), 'utf8'),
      ) as KubernetesObject[]
    ).map((o) => ({ ...o, metadata: { ...o.metadata, namespace: ns } }));
    // One after the other, as `kubectl create -f` does: the run reaches the operator before its
    // DAG's watch event often enough to have made this fail before the operator read the DAG.
    const created: KubernetesObject[] = [];
    for (const object of example) created.push(await objects.create(object));
    const exampleRun = await finishedRun(ns, created.find((o) => o.kind === 'DAGRun')?.metadata?.name ?? '');
    expect(exampleRun.status?.statusLabel).toBe('succeeded');
    expect(
      (
        (await call('GET', `/api/v2/dag-runs/hello/${exampleRun.spec.dagRunId ?? ''}/steps/shout/log`)).json as {
          content?: string;
        }
      ).content,
    ).toBe('HELLO KUBERNETES');
    // Nothing the operator or the API server did was refused. `\b`: a millisecond timestamp
    // of a log line may well contain the digits 403.
    expect(operator.output()).not.toMatch(/forbidden|\b403\b/i);
  });
});

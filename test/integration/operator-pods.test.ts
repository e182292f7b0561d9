/**
 * Kubernetes-native steps (issue 12), end to end on the local control plane: Pod settings reach
 * the step Pods and the kube-apiserver accepts them; a run's steps share files through its
 * workspace claim (and do not without it); redirects and DAG_RUN_* files land in the workspace.
 * Security defaults and registryAuths: operator-pods-security.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CoreV1Event } from '@kubernetes/client-node';
import { load as parseYaml } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDag } from '../../core/dag/index.ts';
import { dagManifest } from '../../core/resources/dag.ts';
import { ignoreNotFound } from '../../core/kube/errors.ts';
import { workspaceClaimName } from '../../core/resources/names.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';
import {
  askRetry,
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
/** A namespace whose quota allows no claims: a run's workspace cannot be created there. */
let quotaNs = '';
let operator: RunningOperator;
const pods = new PodRecorder(kc);
const podsOf = pods.podsOf.bind(pods);
const podOf = pods.podOf.bind(pods);

beforeAll(async () => {
  ns = await createNamespace(core, 'pods');
  quotaNs = await createNamespace(core, 'quota');
  await core.createNamespacedResourceQuota({
    namespace: quotaNs,
    body: { metadata: { name: 'no-claims' }, spec: { hard: { persistentvolumeclaims: '0' } } },
  });
  await core.createNamespacedConfigMap({
    namespace: ns,
    body: { metadata: { name: 'settings' }, data: { greeting: 'hello from a config map', file: 'mounted text' } },
  });
  // A service account a DAG may name: labelled so by whoever administers the namespace (docs/pod-policy.md).
  await core.createNamespacedServiceAccount({
    namespace: ns,
    body: { metadata: { name: 'etl', labels: { 'kubedag.io/allow-runs': 'true' } } },
  });
  await Promise.all([pods.record(ns), pods.record(quotaNs)]);
  // The later --namespaces wins: one operator for both namespaces, its Lease in the first.
  operator = await startOperator(ns, undefined, [`--namespaces=${ns},${quotaNs}`]);
});

afterAll(async () => {
  pods.stop();
  await operator.stop();
  await Promise.all([deleteNamespace(core, ns), deleteNamespace(core, quotaNs)]);
});

describe('Pod settings', () => {
  it('every setting reaches the step Pod, the step wins over the defaults, and the kube-apiserver accepts it', async () => {
    await givenDag(
      ns,
      'settings',
      `
kubernetes:
  labels: {team: data, tier: batch}
  annotations: {owner: data-team}
  resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {memory: 128Mi}}
  nodeSelector: {kubernetes.io/os: linux}
  tolerations: [{key: dedicated, operator: Equal, value: batch, effect: NoSchedule}]
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [kubedag-node-1, kubedag-node-2]}]}]
  env:
    - {name: GREETING, valueFrom: {configMapKeyRef: {name: settings, key: greeting}}}
  envFrom: [{prefix: CFG_, configMapRef: {name: settings}}]
  terminationGracePeriodSeconds: 7
  activeDeadline: 300
steps:
  - name: main
    command: sh -c 'echo "$GREETING|$CFG_file|$(cat /etc/settings/file)|$(id -u)"'
    kubernetes:
      labels: {tier: step}
      resources: {limits: {memory: 256Mi}}
      serviceAccount: etl
      volumes: [{name: cfg, configMap: {name: settings}}, {name: scratch, emptyDir: {}}]
      volumeMounts: [{name: cfg, mountPath: /etc/settings, readOnly: true}, {name: scratch, mountPath: /scratch}]
`,
    );
    await whenRun(ns, 'settings-1', 'settings');
    const run = await finishedRun(ns, 'settings-1');
    expect(stepStates(run)).toEqual({ main: 'succeeded' });
    expect(await stepLog(operator, run, 'main')).toBe('hello from a config map|mounted text|mounted text|1000\n');
    const pod = podOf(ns, 'settings-1', 'main');
    expect(pod?.metadata?.labels).toMatchObject({ team: 'data', tier: 'step', 'kubedag.io/step': 'main' });
    expect(pod?.metadata?.annotations).toMatchObject({ owner: 'data-team' });
    expect(pod?.spec).toMatchObject({
      serviceAccountName: 'etl',
      terminationGracePeriodSeconds: 7,
      activeDeadlineSeconds: 300,
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      tolerations: expect.arrayContaining([
        { key: 'dedicated', operator: 'Equal', value: 'batch', effect: 'NoSchedule' },
      ]) as unknown,
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In' }] }],
          },
        },
      },
    });
    expect(pod?.spec?.containers[0]?.resources).toEqual({
      requests: { cpu: '100m', memory: '64Mi' },
      limits: { memory: '256Mi' },
    });
    expect(pod?.spec?.containers[0]?.volumeMounts?.map((m) => m.mountPath)).toEqual(
      expect.arrayContaining(['/etc/settings', '/scratch', '/workspace']),
    );
  });

  it('keeps every key of a rendered DAG with Pod settings in both spellings when the kube-apiserver stores it', async () => {
    const text = readFileSync(join(root, 'test/fixtures/dags/k8s-feature-train.yaml'), 'utf8');
    const load = loadDag(text, { fileName: 'feature-train' });
    expect(load.errors).toEqual([]);
    await clients().kube.dags.create(ns, dagManifest('feature-train', load.documents, ns));
    expect((await clients().kube.dags.get(ns, 'feature-train')).spec).toEqual(parseYaml(text));
  });

  it('runs a DAG written for the Dagu 2.x Kubernetes executor unchanged', async () => {
    await givenDag(
      ns,
      'dagu-form',
      `
steps:
  - name: report
    type: kubernetes
    with:
      image: alpine:3.20
      image_pull_policy: IfNotPresent
      working_dir: /workspace/out
      env: [{name: MODE, value: k8s}]
      resources: {requests: {cpu: 50m}}
      node_selector: {kubernetes.io/os: linux}
      labels: {from: dagu}
    command: sh -c 'echo "$MODE in $(pwd)"'
`,
    );
    await whenRun(ns, 'dagu-form-1', 'dagu-form');
    const run = await finishedRun(ns, 'dagu-form-1');
    expect(stepStates(run)).toEqual({ report: 'succeeded' });
    expect(await stepLog(operator, run, 'report')).toBe('k8s in /workspace/out\n');
    const container = podOf(ns, 'dagu-form-1', 'report')?.spec?.containers[0];
    expect(container).toMatchObject({
      image: 'alpine:3.20',
      imagePullPolicy: 'IfNotPresent',
      workingDir: '/workspace/out',
      resources: { requests: { cpu: '50m' } },
    });
  });
});

describe('the run workspace', () => {
  const sharing = (workspace: string): string => `
kubernetes: {workspace: ${workspace}}
steps:
  - {name: write, command: sh -c 'mkdir -p data && echo shared > data/file.txt'}
  - {name: read, command: cat data/file.txt, depends: write}
`;

  it('lets a step read the files an earlier step wrote in its working directory, all on the volume node', async () => {
    await givenDag(ns, 'share', sharing('{enabled: true}'));
    await whenRun(ns, 'share-1', 'share');
    const run = await finishedRun(ns, 'share-1');
    expect(stepStates(run)).toEqual({ write: 'succeeded', read: 'succeeded' });
    expect(await stepLog(operator, run, 'read')).toBe('shared\n');
    const claim = await core.readNamespacedPersistentVolumeClaim({
      name: workspaceClaimName('share-1'),
      namespace: ns,
    });
    expect(claim.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'DAGRun',
      name: 'share-1',
      uid: run.metadata?.uid,
    });
    const nodes = new Set(podsOf(ns, 'share-1').map((p) => p.spec?.nodeName));
    expect(nodes.size).toBe(1);
  });

  it('shares nothing when the DAG turns it off: the same steps fail', async () => {
    await givenDag(ns, 'isolated', sharing('false'));
    await whenRun(ns, 'isolated-1', 'isolated');
    const run = await finishedRun(ns, 'isolated-1');
    expect(stepStates(run)).toEqual({ write: 'succeeded', read: 'failed' });
    expect(
      await ignoreNotFound(
        core.readNamespacedPersistentVolumeClaim({ name: workspaceClaimName('isolated-1'), namespace: ns }),
      ),
    ).toBeUndefined();
  });

  it('says in a Warning Event why a step waits when its selector excludes the node holding a ReadWriteOnce workspace', async () => {
    await givenDag(
      ns,
      'split',
      `
steps:
  - {name: first, command: 'true', kubernetes: {nodeSelector: {kubernetes.io/hostname: kubedag-node-1}}}
  - {name: second, command: 'true', depends: first, kubernetes: {nodeSelector: {kubernetes.io/hostname: kubedag-node-2}}}
`,
    );
    await whenRun(ns, 'split-1', 'split');
    let warning: CoreV1Event | undefined;
    await waitFor(
      'the StepUnschedulable Event',
      async () => {
        const events = await core.listNamespacedEvent({ namespace: ns, fieldSelector: 'involvedObject.name=split-1' });
        warning = events.items.find((e) => e.reason === 'StepUnschedulable');
        return warning !== undefined;
      },
      60_000,
      250,
    );
    expect(warning?.type).toBe('Warning');
    expect(warning?.message).toMatch(
      /^step second \(attempt 0\) waits for a node: .*didn't match PersistentVolume's node affinity/,
    );
    const run = await clients().kube.runs.get(ns, 'split-1');
    expect(stepStates(run)).toEqual({ first: 'succeeded', second: 'running' });
    await clients().kube.runs.delete(ns, 'split-1');
  });

  it('says in a Warning Event why a run waits when its workspace claim is refused, and starts no step', async () => {
    await givenDag(quotaNs, 'quota', 'steps:\n  - echo hi\n');
    await whenRun(quotaNs, 'quota-1', 'quota');
    let warning: CoreV1Event | undefined;
    await waitFor(
      'the RunObjectsFailed Event',
      async () => {
        const events = await core.listNamespacedEvent({
          namespace: quotaNs,
          fieldSelector: 'involvedObject.name=quota-1',
        });
        warning = events.items.find((e) => e.reason === 'RunObjectsFailed');
        return warning !== undefined;
      },
      60_000,
      250,
    );
    expect(warning?.type).toBe('Warning');
    expect(warning?.message).toMatch(/could not be created: .*exceeded quota/);
    expect(podsOf(quotaNs, 'quota-1')).toEqual([]);
  });

  it('holds stdout redirects, step log files and the run log, which later steps can read', async () => {
    await givenDag(
      ns,
      'redirects',
      `
steps:
  - {name: produce, id: produce, command: sh -c 'echo result; echo warning >&2', stdout: out/result.txt, stderr: err.txt}
  - name: consume
    depends: produce
    command: sh -c 'cat out/result.txt err.txt \${produce.stdout}; test -f "$DAG_RUN_STEP_STDOUT_FILE" && grep -c "step \\"produce\\" finished" "$DAG_RUN_LOG_FILE"'
`,
    );
    await whenRun(ns, 'redirects-1', 'redirects');
    const run = await finishedRun(ns, 'redirects-1');
    expect(stepStates(run)).toEqual({ produce: 'succeeded', consume: 'succeeded' });
    expect(await stepLog(operator, run, 'consume')).toBe('result\nwarning\nresult\n1\n');
  });

  it('lasts through a retry of the run and goes with the run', async () => {
    await givenDag(
      ns,
      'keep',
      `
steps:
  - {name: count, command: sh -c 'echo x >> tally; test $(wc -l < tally) -ge 2'}
`,
    );
    await whenRun(ns, 'keep-1', 'keep');
    expect(stepStates(await finishedRun(ns, 'keep-1'))).toEqual({ count: 'failed' });
    const claim = await core.readNamespacedPersistentVolumeClaim({ name: workspaceClaimName('keep-1'), namespace: ns });
    await askRetry(ns, 'keep-1', 'again');
    await waitFor(
      'the retry to finish',
      async () => stepStates(await finishedRun(ns, 'keep-1')).count === 'succeeded',
      60_000,
      200,
    );
    const after = await core.readNamespacedPersistentVolumeClaim({ name: workspaceClaimName('keep-1'), namespace: ns });
    expect(after.metadata?.uid).toBe(claim.metadata?.uid);
    await clients().kube.runs.delete(ns, 'keep-1');
    await waitFor(
      'the claim to go with its run',
      async () =>
        (await ignoreNotFound(
          core.readNamespacedPersistentVolumeClaim({ name: workspaceClaimName('keep-1'), namespace: ns }),
        )) === undefined,
      60_000,
      200,
    );
  });
});

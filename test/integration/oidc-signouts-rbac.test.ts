/**
 * The chart's RBAC for shared OIDC sign-outs, on the local control plane: the API server's
 * service account, with only the Roles the chart renders in mode oidc, creates, watches and
 * updates its sign-out ConfigMap (signed-out.ts), and no other ConfigMap.
 */
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { loadAll } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SignedOutSessions } from '../../apiserver/oidc/signed-out.ts';
import { silentLogger } from '../../core/log.ts';
import { runHelm } from '../../scripts/render-manifests.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';

const { kc, core } = clients();
const objects = KubernetesObjectApi.makeApiClient(kc);
const RELEASE = 'kds';
const CONFIGMAP = `${RELEASE}-kubedag-api-signouts`;
let ns = '';
let asApi: KubeConfig;
const stores: SignedOutSessions[] = [];

/** A client that is the chart's API server service account, by a token of it. */
async function serviceAccountConfig(account: string): Promise<KubeConfig> {
  const token =
    (
      await core.createNamespacedServiceAccountToken({
        name: account,
        namespace: ns,
        body: { spec: { audiences: [], expirationSeconds: 3600 } },
      })
    ).status?.token ?? '';
  const cluster = kc.getCurrentCluster();
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [
      {
        name: 'local',
        server: cluster?.server ?? '',
        ...(cluster?.caFile === undefined ? {} : { caFile: cluster.caFile }),
      },
    ],
    users: [{ name: account, token }],
    contexts: [{ name: 'sa', cluster: 'local', user: account, namespace: ns }],
    currentContext: 'sa',
  });
  return config;
}

function store(name: string): SignedOutSessions {
  const made = new SignedOutSessions({
    kc: asApi,
    core: asApi.makeApiClient(CoreV1Api),
    namespace: ns,
    name,
    logger: silentLogger,
  });
  stores.push(made);
  return made;
}

beforeAll(async () => {
  ns = await createNamespace(core, 'oidc-rbac');
  const oidc = [
    'issuer=https://issuer.example',
    'clientId=kubedag',
    'redirectUrl=https://kubedag.example/auth/oidc/callback',
    'existingSecret=oidc',
  ].flatMap((v) => ['--set', `apiServer.auth.oidc.${v}`]);
  const text = runHelm(inject('binaries').helm, [
    'template',
    RELEASE,
    join(import.meta.dirname, '../../charts/kubedag'),
    '--namespace',
    ns,
    '--set',
    `operator.namespaces={${ns}}`,
    '--set',
    'apiServer.auth.mode=oidc',
    '--set-json',
    'apiServer.auth.oidc.permissions={"admins":["read"]}',
    ...oidc,
  ]);
  const rendered = (loadAll(text) as (KubernetesObject | null)[]).filter((o): o is KubernetesObject => o !== null);
  // Only what the chart puts in this namespace: the API server's account and its Roles.
  const mine = rendered.filter(
    (o) =>
      o.metadata?.namespace === ns && (o.kind === 'ServiceAccount' || o.kind === 'Role' || o.kind === 'RoleBinding'),
  );
  for (const object of mine) await objects.create(object);
  const account =
    mine.find((o) => o.kind === 'ServiceAccount' && o.metadata?.name?.endsWith('-api') === true)?.metadata?.name ?? '';
  asApi = await serviceAccountConfig(account);
});

afterAll(async () => {
  for (const made of stores) await made.stop();
  await deleteNamespace(core, ns);
});

describe("the chart's RBAC for shared sign-outs", () => {
  it('lets the API server create, watch and update its sign-out ConfigMap', async () => {
    const shared = store(CONFIGMAP);
    await shared.start();
    const until = Date.now() + 3_600_000;
    await shared.add('first-session', until);
    await shared.add('second-session', until);
    await waitFor(
      'both sign-outs seen through the watch',
      () => Promise.resolve(shared.has('first-session', Date.now()) && shared.has('second-session', Date.now())),
      10_000,
      100,
    );
    const data = (await core.readNamespacedConfigMap({ namespace: ns, name: CONFIGMAP })).data ?? {};
    expect(Object.keys(data).sort()).toEqual(['first-session', 'second-session']);
  });

  it('refuses it any other ConfigMap', async () => {
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'someone-elses' }, data: {} } });
    await expect(store('someone-elses').add('x', Date.now() + 60_000)).rejects.toMatchObject({ code: 403 });
    expect((await core.readNamespacedConfigMap({ namespace: ns, name: 'someone-elses' })).data ?? {}).toEqual({});
  });
});

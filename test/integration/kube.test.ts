import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { inject } from 'vitest';
import { reuseConnections } from '../../core/kube/connections.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Informer } from '../../core/kube/informer.ts';
import { LeaderElector } from '../../core/kube/leader.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';

const { kc, core } = clients();
let ns = '';

beforeAll(async () => {
  ns = await createNamespace(core, 'kube');
});

afterAll(async () => {
  await deleteNamespace(core, ns);
});

describe('Informer', () => {
  it('lists, then follows adds, updates and deletes, with frozen cached objects', async () => {
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'before' }, data: { v: '1' } } });
    const events: string[] = [];
    const informer = new Informer<V1ConfigMap>({
      kc,
      path: `/api/v1/namespaces/${ns}/configmaps`,
      list: () => core.listNamespacedConfigMap({ namespace: ns }),
    });
    informer.on((event, object) => {
      if (object.metadata?.name !== 'kube-root-ca.crt') events.push(`${event} ${object.metadata?.name ?? ''}`);
    });
    await informer.start();
    expect(informer.hasSynced()).toBe(true);
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'after' }, data: { v: '1' } } });
    await core.replaceNamespacedConfigMap({
      name: 'after',
      namespace: ns,
      body: { metadata: { name: 'after' }, data: { v: '2' } },
    });
    await core.deleteNamespacedConfigMap({ name: 'before', namespace: ns });
    await waitFor('the delete event', () => Promise.resolve(events.includes('delete before')), 10_000);
    expect(events).toEqual(['add before', 'add after', 'update after', 'delete before']);
    const cached = informer.get(ns, 'after');
    expect(cached?.data?.v).toBe('2');
    expect(() => {
      (cached as { data: Record<string, string> }).data.v = 'mutated';
    }).toThrow(TypeError);
    await informer.stop();
  });

  it('keeps following changes across its periodic re-lists', async () => {
    const informer = new Informer<V1ConfigMap>({
      kc,
      path: `/api/v1/namespaces/${ns}/configmaps`,
      list: () => core.listNamespacedConfigMap({ namespace: ns }),
      relistIntervalMs: 200,
    });
    await informer.start();
    await sleep(700);
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'late' } } });
    await waitFor('the new object', () => Promise.resolve(informer.get(ns, 'late') !== undefined), 10_000);
    await informer.stop();
  });

  it('shows an object this process wrote until the cache holds that version or a later one', async () => {
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'assumed' }, data: { v: '1' } } });
    const informer = new Informer<V1ConfigMap>({
      kc,
      path: `/api/v1/namespaces/${ns}/configmaps`,
      list: () => core.listNamespacedConfigMap({ namespace: ns }),
    });
    await informer.start();
    // Stopped: the cache keeps version 1 whatever happens, as a watch running late would.
    await informer.stop();
    const first = informer.get(ns, 'assumed');
    const written = await core.replaceNamespacedConfigMap({
      name: 'assumed',
      namespace: ns,
      body: { ...first, data: { v: '2' } },
    });
    informer.assume(written, 'not-the-cached-version');
    expect(informer.get(ns, 'assumed')?.data?.v).toBe('1');
    informer.assume(written, first?.metadata?.resourceVersion);
    expect([
      informer.get(ns, 'assumed')?.data?.v,
      informer.list(ns).find((c) => c.metadata?.name === 'assumed')?.data?.v,
    ]).toEqual(['2', '2']);
    expect(() => {
      (informer.get(ns, 'assumed') as { data: Record<string, string> }).data.v = 'mutated';
    }).toThrow(TypeError);

    // A later write by someone else reaches the cache: that is what it shows from then on.
    await core.replaceNamespacedConfigMap({ name: 'assumed', namespace: ns, body: { ...written, data: { v: '3' } } });
    await informer.start();
    expect(informer.get(ns, 'assumed')?.data?.v).toBe('3');
    await informer.stop();
  });
  it('tells its handlers of a write this process assumed at once, and not again when the watch brings it', async () => {
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'announced' }, data: { v: '1' } },
    });
    const informer = new Informer<V1ConfigMap>({
      kc,
      path: `/api/v1/namespaces/${ns}/configmaps`,
      list: () => core.listNamespacedConfigMap({ namespace: ns }),
    });
    const events: string[] = [];
    informer.on((event, object) => {
      if (object.metadata?.name === 'announced') events.push(`${event} ${object.data?.v ?? ''}`);
    });
    await informer.start();
    const first = informer.get(ns, 'announced');
    const written = await core.replaceNamespacedConfigMap({
      name: 'announced',
      namespace: ns,
      body: { ...first, data: { v: '2' } },
    });
    informer.assume(written, first?.metadata?.resourceVersion);
    expect(events).toEqual(['add 1', 'update 2']);
    // Another writer's change after it is heard as usual, and the assumed one still only once.
    await core.replaceNamespacedConfigMap({ name: 'announced', namespace: ns, body: { ...written, data: { v: '3' } } });
    await waitFor('the other write', () => Promise.resolve(events.includes('update 3')), 10_000);
    expect(events).toEqual(['add 1', 'update 2', 'update 3']);
    await informer.stop();
  });

  it('caches and hands out only what its transform keeps, of listed, watched and written objects', async () => {
    const trimmed = (map: V1ConfigMap): V1ConfigMap => {
      const { managedFields: _managedFields, ...metadata } = map.metadata ?? {};
      return { ...map, metadata, data: { v: map.data?.v ?? '' } };
    };
    const list = (): ReturnType<CoreV1Api['listNamespacedConfigMap']> =>
      core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'trim=yes' });
    const body = (name: string, v: string): V1ConfigMap => ({
      metadata: { name, labels: { trim: 'yes' } },
      data: { v, unread: 'x'.repeat(1000) },
    });
    await core.createNamespacedConfigMap({ namespace: ns, body: body('listed', '1') });
    const informer = new Informer<V1ConfigMap>({
      kc,
      path: `/api/v1/namespaces/${ns}/configmaps`,
      list,
      labelSelector: 'trim=yes',
      transform: trimmed,
    });
    const handed: V1ConfigMap[] = [];
    informer.on((_event, object) => {
      handed.push(object);
    });
    await informer.start();
    await core.createNamespacedConfigMap({ namespace: ns, body: body('watched', '1') });
    await waitFor('the watched object', () => Promise.resolve(informer.get(ns, 'watched') !== undefined), 10_000);
    // Stopped, so that the assumed object is what `get` shows (no watch event overtakes it).
    await informer.stop();
    const written = await core.replaceNamespacedConfigMap({
      name: 'listed',
      namespace: ns,
      body: { ...body('listed', '2'), metadata: { ...informer.get(ns, 'listed')?.metadata, managedFields: undefined } },
    });
    informer.assume(written, informer.get(ns, 'listed')?.metadata?.resourceVersion);

    const kept = ['listed', 'watched'].map((name) => informer.get(ns, name));
    expect(kept.map((map) => map?.data)).toEqual([{ v: '2' }, { v: '1' }]);
    expect(kept.map((map) => map?.metadata?.managedFields)).toEqual([undefined, undefined]);
    expect(handed.map((map) => [map.metadata?.name, map.data, map.metadata?.managedFields])).toEqual([
      ['listed', { v: '1' }, undefined],
      ['watched', { v: '1' }, undefined],
      ['listed', { v: '2' }, undefined],
    ]);
    // The write's answer, which its caller holds, is left whole.
    expect([written.data?.unread?.length, (written.metadata?.managedFields?.length ?? 0) > 0]).toEqual([1000, true]);
  });
});

describe('LeaderElector', () => {
  it('lets one instance lead, and another take over soon after it releases the Lease', async () => {
    const make = (identity: string): LeaderElector =>
      new LeaderElector({ kc, namespace: ns, name: 'operator', identity, leaseDurationSeconds: 5, retryPeriodMs: 200 });
    const a = make('a');
    const b = make('b');
    const leading = new Set<string>();
    a.run({ onStartedLeading: () => leading.add('a'), onStoppedLeading: () => leading.delete('a') });
    await waitFor('a to lead', () => Promise.resolve(leading.has('a')), 10_000);
    b.run({ onStartedLeading: () => leading.add('b'), onStoppedLeading: () => leading.delete('b') });
    await sleep(1000);
    expect([...leading]).toEqual(['a']);
    await a.stop();
    await waitFor('b to lead', () => Promise.resolve(leading.has('b')), 10_000);
    expect([...leading]).toEqual(['b']);
    const lease = await kc
      .makeApiClient((await import('@kubernetes/client-node')).CoordinationV1Api)
      .readNamespacedLease({ name: 'operator', namespace: ns });
    expect(lease.spec?.holderIdentity).toBe('b');
    await b.stop();
  });
});

describe('reuseConnections', () => {
  /** New connections the client opens while `work` runs, seen through undici's diagnostics channel. */
  async function connectionsDuring(work: () => Promise<unknown>): Promise<number> {
    let opened = 0;
    const count = (): void => {
      opened += 1;
    };
    subscribe('undici:client:connected', count);
    try {
      await work();
    } finally {
      unsubscribe('undici:client:connected', count);
    }
    return opened;
  }

  const twentyReads = (api: CoreV1Api) => async (): Promise<void> => {
    for (let i = 0; i < 20; i += 1) await api.readNamespace({ name: ns });
  };

  it('lets twenty sequential requests share one connection where the plain client opens one each', async () => {
    const plain = new KubeConfig();
    plain.loadFromFile(inject('cluster').kubeconfig);
    const reused = reuseConnections(new KubeConfig());
    reused.loadFromFile(inject('cluster').kubeconfig);
    expect(await connectionsDuring(twentyReads(plain.makeApiClient(CoreV1Api)))).toBe(20);
    expect(await connectionsDuring(twentyReads(reused.makeApiClient(CoreV1Api)))).toBe(1);
  });
});

/**
 * Informer watches against the real kube-apiserver: they end at the server's timeout and
 * resume quietly from where they were, bookmarks move their resourceVersion on, they outlive
 * the 30 s cut of @kubernetes/client-node's Watch, and one whose connection goes silent is
 * given up at its deadline and made again.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { restartProcess } from '../../cluster/controlplane.ts';
import { reuseConnections } from '../../core/kube/connections.ts';
import { Informer, type InformerLog } from '../../core/kube/informer.ts';
import type { WatchTimeouts } from '../../core/kube/watch-policy.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';

const { kc, core } = clients();
let ns = '';

beforeAll(async () => {
  ns = await createNamespace(core, 'watch');
});

afterAll(async () => {
  await deleteNamespace(core, ns);
});

interface Line {
  readonly level: string;
  readonly message: string;
}

/** A configmap informer on the test namespace whose log lines are kept. */
function configMaps(options: { kc?: KubeConfig; labelSelector?: string; watchTimeouts?: WatchTimeouts }): {
  informer: Informer<V1ConfigMap>;
  lines: Line[];
} {
  const lines: Line[] = [];
  const log: InformerLog = (level, message) => {
    lines.push({ level, message });
  };
  const informer = new Informer<V1ConfigMap>({
    kc: options.kc ?? kc,
    path: `/api/v1/namespaces/${ns}/configmaps`,
    list: () =>
      core.listNamespacedConfigMap({
        namespace: ns,
        ...(options.labelSelector === undefined ? {} : { labelSelector: options.labelSelector }),
      }),
    ...(options.labelSelector === undefined ? {} : { labelSelector: options.labelSelector }),
    ...(options.watchTimeouts === undefined ? {} : { watchTimeouts: options.watchTimeouts }),
    // No periodic relist in these tests: a list would hide what the watch did.
    relistIntervalMs: 3_600_000,
    log,
  });
  return { informer, lines };
}

const loud = (lines: readonly Line[]): Line[] => lines.filter((l) => l.level !== 'debug');

describe('informer watches', () => {
  it('resume quietly when the server ends them at their timeout, without a relist, and keep delivering events', async () => {
    const { informer, lines } = configMaps({ watchTimeouts: { minSeconds: 2, graceMs: 3000 } });
    await informer.start();
    await waitFor('three watches ended by the server', () => Promise.resolve(informer.stats().serverEnds >= 3), 30_000);
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'after-restarts' } } });
    await waitFor(
      'the object created after the restarts',
      () => Promise.resolve(informer.get(ns, 'after-restarts') !== undefined),
      10_000,
    );
    const stats = informer.stats();
    await informer.stop();
    expect({ lists: stats.lists, failures: stats.failures }).toEqual({ lists: 1, failures: 0 });
    expect(stats.watches).toBeGreaterThanOrEqual(4);
    expect(loud(lines)).toEqual([]);
    expect(lines.filter((l) => l.message.includes('ended by the server at its timeout')).length).toBeGreaterThanOrEqual(
      3,
    );
  });

  it('move their resourceVersion on with bookmarks while no object they select changes', async () => {
    const { informer, lines } = configMaps({
      labelSelector: 'kubedag-test=never',
      watchTimeouts: { minSeconds: 4, graceMs: 3000 },
    });
    const events: string[] = [];
    informer.on((event, object) => events.push(`${event} ${object.metadata?.name ?? ''}`));
    await informer.start();
    const listed = Number(informer.lastResourceVersion());
    // Another configmap moves the store's revision on; the informer selects none of it.
    const other = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'not-selected' } } });
    const written = Number(other.metadata?.resourceVersion);
    expect(written).toBeGreaterThan(listed);
    // The server sends a bookmark shortly before each watch's timeout.
    await waitFor(
      'a bookmark at or past the write',
      () => Promise.resolve(Number(informer.lastResourceVersion()) >= written),
      30_000,
    );
    const stats = informer.stats();
    await informer.stop();
    expect({ events, lists: stats.lists, failures: stats.failures, loud: loud(lines) }).toEqual({
      events: [],
      lists: 1,
      failures: 0,
      loud: [],
    });
  });

  it('outlive the 30 s cut of the client library: one watch, no failure, no line', async () => {
    const { informer, lines } = configMaps({});
    await informer.start();
    await sleep(35_000);
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'after-35s' } } });
    await waitFor(
      'the object created after 35 s',
      () => Promise.resolve(informer.get(ns, 'after-35s') !== undefined),
      10_000,
    );
    const stats = informer.stats();
    await informer.stop();
    expect({
      lists: stats.lists,
      watches: stats.watches,
      serverEnds: stats.serverEnds,
      failures: stats.failures,
      lines,
    }).toEqual({ lists: 1, watches: 1, serverEnds: 0, failures: 0, lines: [] });
  });

  it('give up a watch whose connection goes silent at its deadline, say so once, and watch again', async () => {
    const proxy = await silenceableProxy(new URL(kc.getCurrentCluster()?.server ?? '').port);
    try {
      const { informer, lines } = configMaps({
        kc: through(proxy.port),
        watchTimeouts: { minSeconds: 2, graceMs: 2000 },
      });
      await informer.start();
      await waitFor('the first watch', () => Promise.resolve(informer.stats().watches === 1), 10_000);
      await sleep(200);
      // Every connection open now turns silent both ways, as a dead peer's would: the server's
      // end of the watch never arrives.
      proxy.silence();
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'while-silent' } } });
      await waitFor(
        'the object written while the connection was silent',
        () => Promise.resolve(informer.get(ns, 'while-silent') !== undefined),
        40_000,
      );
      const stats = informer.stats();
      await informer.stop();
      expect(stats.failures).toBeGreaterThanOrEqual(1);
      expect(stats.lists).toBe(1);
      expect(loud(lines).map((l) => l.level)).toEqual(['warn', 'info']);
      expect(loud(lines)[0]?.message).toMatch(
        /watch failed: no end from the server [\d.]+ s after the watch started, past its timeout; the connection is presumed dead; watching again/,
      );
      expect(loud(lines)[1]?.message).toMatch(/working again/);
    } finally {
      await proxy.close();
    }
  });

  it('come back after the kube-apiserver restarts, with a warning per reason and one line when working again', async () => {
    const { informer, lines } = configMaps({});
    await informer.start();
    const { dir } = inject('cluster');
    await restartProcess(dir, 'kube-apiserver', 'SIGKILL');
    await waitFor(
      'the kube-apiserver',
      async () => {
        await core.listNamespacedConfigMap({ namespace: ns });
        return true;
      },
      90_000,
      500,
    );
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'after-restart' } } });
    await waitFor(
      'the object written after the restart',
      () => Promise.resolve(informer.get(ns, 'after-restart') !== undefined),
      60_000,
    );
    await informer.stop();
    const said = loud(lines);
    expect(informer.stats().failures).toBeGreaterThanOrEqual(1);
    // The broken watch, then refused connections: each reason once, however long the outage.
    expect(said.length).toBeLessThanOrEqual(4);
    expect(said.slice(0, -1).every((l) => l.level === 'warn' && /failed: \S/.test(l.message))).toBe(true);
    expect(said.at(-1)).toMatchObject({
      level: 'info',
      message: expect.stringMatching(/working again after \d+ failed attempts?/) as unknown,
    });
  });
});

/** The suite's kubeconfig with its server at a loopback port (the certificate names 127.0.0.1). */
function through(port: number): KubeConfig {
  const copy = new KubeConfig();
  copy.loadFromOptions({
    clusters: kc.clusters.map((c) => ({ ...c, server: `https://127.0.0.1:${String(port)}` })),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  });
  return reuseConnections(copy);
}

/** A TCP proxy to the kube-apiserver whose open connections can be made to go silent. */
async function silenceableProxy(
  upstreamPort: string,
): Promise<{ port: number; silence: () => void; close: () => Promise<void> }> {
  const pairs = new Set<{ client: Socket; upstream: Socket; silent: boolean }>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(upstreamPort), '127.0.0.1');
    const pair = { client, upstream, silent: false };
    pairs.add(pair);
    const forward = (from: Socket, to: Socket): void => {
      from.on('data', (chunk: Buffer) => {
        if (!pair.silent) to.write(chunk);
      });
      from.on('end', () => {
        if (!pair.silent) to.end();
      });
      from.on('error', () => {
        to.destroy();
      });
    };
    forward(client, upstream);
    forward(upstream, client);
    client.on('close', () => pairs.delete(pair));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    silence: () => {
      for (const pair of pairs) pair.silent = true;
    },
    close: async () => {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}

/**
 * The history protocol end to end over loopback HTTP: the operator's routes (serve.ts) on a
 * real SQLite store, read by the API server's client (client.ts). The client answers what the
 * store answers; listings stream page by page and stop the operator's reading when the client
 * stops; a failure or a cut stream is an error, never a shorter listing.
 */
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fastify, type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finished } from '../../../test/builders/history-run.ts';
import { HistoryStoreError } from '../errors.ts';
import { openSqliteStore } from '../sqlite.ts';
import type { HistoryReader, HistoryStore, HistorySummary } from '../types.ts';
import { HistoryClient } from './client.ts';
import { historyPath, MAX_BATCH_RUNS } from './protocol.ts';
import { serveHistory } from './serve.ts';

const NS = 'team-a';
const T0 = Date.UTC(2026, 10, 1);
const MINUTE = 60_000;

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${String((app.server.address() as AddressInfo).port)}`;
}

async function drain(pages: AsyncIterable<readonly HistorySummary[]>): Promise<{ ids: string[]; sizes: number[] }> {
  const ids: string[] = [];
  const sizes: number[] = [];
  for await (const page of pages) {
    sizes.push(page.length);
    ids.push(...page.map((r) => `${r.dagName}/${r.dagRunId}`));
  }
  return { ids, sizes };
}

describe('the history protocol', () => {
  let dir: string;
  let store: HistoryStore;
  let app: FastifyInstance;
  let client: HistoryClient;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kubedag-history-http-'));
    store = await openSqliteStore({ path: join(dir, 'history.db') });
    const runs = Array.from({ length: 12 }, (_, i) =>
      finished(NS, i % 2 === 0 ? 'etl' : 'load', `r-${String(i).padStart(3, '0')}`)
        .at(T0 + i * MINUTE)
        .status(i % 3 === 0 ? 2 : 4)
        .build(),
    );
    await store.put(runs);
    await store.put([
      finished(NS, 'etl', 'parent')
        .at(T0 + 20 * MINUTE)
        .steps(3)
        .frozen({ steps: [{ name: 'a' }] })
        .build(),
      finished(NS, 'extract', 'child')
        .at(T0 + 21 * MINUTE)
        .child(['etl', 'parent'])
        .build(),
    ]);
    app = fastify();
    serveHistory(app, store);
    client = new HistoryClient(`${await listen(app)}/`);
  });

  afterAll(async () => {
    await app.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers summaries, whole runs, run ids, latest and a DAG’s runs as the store does', async () => {
    const key = { namespace: NS, dagName: 'etl', dagRunId: 'parent' };
    expect(await client.summary(key)).toEqual(await store.summary(key));
    const run = await client.run(key);
    expect(run).toEqual(await store.run(key));
    expect(run?.resource.status?.nodes).toHaveLength(3);
    expect(run?.resource.spec.snapshot).toEqual({ steps: [{ name: 'a' }] });
    expect(await client.withRunId(NS, 'child')).toEqual(await store.withRunId(NS, 'child'));
    expect(await client.latest(NS, 'load')).toEqual(await store.latest(NS, 'load'));
    expect(await client.runsOf(NS, 'etl', 4)).toEqual(await store.runsOf(NS, 'etl', 4));
  });

  it('reads several runs whole in one request, in the order asked, undefined where none is stored, in batches of at most MAX_BATCH_RUNS', async () => {
    const keys = [
      { name: 'etl', dagRunId: 'parent' },
      { name: 'etl', dagRunId: 'nope' },
      { name: 'load', dagRunId: 'r-001' },
    ];
    const one = await Promise.all(keys.map((k) => store.run({ namespace: NS, dagName: k.name, dagRunId: k.dagRunId })));
    expect(one.map((r) => r === undefined)).toEqual([false, true, false]);
    expect(await client.runs(NS, keys)).toEqual(one);
    const many = Array.from(
      { length: MAX_BATCH_RUNS * 2 + 1 },
      (_, i) => keys[i % keys.length] ?? { name: '', dagRunId: '' },
    );
    expect((await client.runs(NS, many)).map((r) => r?.dagRunId)).toEqual(
      many.map((k) => (k.dagRunId === 'nope' ? undefined : k.dagRunId)),
    );
    const tooMany = await fetch(`${client['baseUrl']}${historyPath(NS)}/runs-read`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ runs: many }),
    });
    expect(tooMany.status).toBe(400);
  });

  it('answers undefined for a run or DAG the store does not have', async () => {
    expect(await client.summary({ namespace: NS, dagName: 'etl', dagRunId: 'nope' })).toBeUndefined();
    expect(await client.run({ namespace: NS, dagName: 'nope', dagRunId: 'r-000' })).toBeUndefined();
    expect(await client.latest(NS, 'nope')).toBeUndefined();
    expect(await client.withRunId('other', 'r-000')).toEqual([]);
  });

  it('streams a filtered listing in the store’s pages and order', async () => {
    for (const filter of [
      {},
      { name: 'etl', exactName: true },
      { status: 2 },
      { createdFrom: T0 + 3 * MINUTE, createdTo: T0 + 8 * MINUTE },
      { dagRunId: '00' },
      { name: 'oa' },
    ]) {
      const want = await drain(store.list({ namespace: NS, ...filter }, { pageSize: 3 }));
      expect(await drain(client.list({ namespace: NS, ...filter }, { pageSize: 3 }))).toEqual(want);
      expect(want.ids.length).toBeGreaterThan(0);
    }
  });

  it('streams a root run’s sub runs', async () => {
    const got = await drain(client.subRuns(NS, { name: 'etl', dagRunId: 'parent' }));
    expect(got.ids).toEqual(['extract/child']);
  });

  it('relists a renamed DAG’s runs through the operator', async () => {
    await store.put([finished(NS, 'old-name', 'm-1').at(T0).build()]);
    expect(await client.relist(NS, 'old-name', 'new-name')).toBe(1);
    expect(await store.summary({ namespace: NS, dagName: 'new-name', dagRunId: 'm-1' })).toMatchObject({
      dagRunId: 'm-1',
    });
  });

  it('refuses a malformed request with the protocol’s error body', async () => {
    const response = await fetch(`${client['baseUrl']}${historyPath(NS, 'runs')}?pageSize=0`);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      retryable: false,
      message: expect.stringMatching(/pageSize/) as unknown,
    });
  });
});

describe('a history listing that goes wrong', () => {
  const page = (n: number): HistorySummary[] => [{ ...finishedSummary(), dagRunId: `r-${String(n)}` }];
  const finishedSummary = (): HistorySummary => ({
    namespace: NS,
    dagName: 'etl',
    dagRunId: 'r',
    resourceName: 'etl-r',
    uid: 'u',
    status: 4,
    statusLabel: 'succeeded',
    createdAt: '2026-11-01T00:00:00Z',
    queuedAt: '',
    startedAt: '',
    finishedAt: '',
    params: '',
    root: { name: 'etl', dagRunId: 'r' },
  });

  /** A reader whose listing is whatever `pages` yields; the other reads are not asked. */
  const readerOf = (pages: () => AsyncIterable<readonly HistorySummary[]>): HistoryReader =>
    ({ list: pages, subRuns: pages }) as unknown as HistoryReader;

  it('stops the operator’s reading when the client stops reading', async () => {
    let stopped = false;
    const endless = async function* (): AsyncGenerator<HistorySummary[]> {
      await Promise.resolve();
      try {
        // Pages big enough that socket buffers hold only a few of them.
        for (let n = 0; ; n += 1) yield Array.from({ length: 200 }, () => page(n)[0] as HistorySummary);
      } finally {
        stopped = true;
      }
    };
    const app = fastify();
    serveHistory(app, readerOf(endless));
    const client = new HistoryClient(await listen(app));
    let seen = 0;
    for await (const got of client.list({ namespace: NS })) {
      seen += got.length;
      if (seen >= 400) break;
    }
    await expect.poll(() => stopped, { timeout: 5_000 }).toBe(true);
    await app.close();
  });

  it('gives the event loop a turn between pages of a store that answers at once', async () => {
    // A loop of immediates stands for the Lease renewals and reconciles beside the listing.
    let turns = 0;
    let running = true;
    const spin = (): void => {
      turns += 1;
      if (running) setImmediate(spin);
    };
    setImmediate(spin);
    const seenAt: number[] = [];
    const instant = async function* (): AsyncGenerator<HistorySummary[]> {
      await Promise.resolve();
      for (let n = 0; n < 50; n += 1) {
        seenAt.push(turns);
        yield page(n);
      }
    };
    const app = fastify();
    serveHistory(app, readerOf(instant));
    const client = new HistoryClient(await listen(app));
    expect((await drain(client.list({ namespace: NS }))).ids.length).toBe(50);
    running = false;
    await app.close();
    const between = seenAt.slice(1).map((at, i) => at - (seenAt[i] ?? 0));
    expect(between.every((t) => t >= 1)).toBe(true);
  });

  it('is an error when the store fails mid-stream', async () => {
    const failing = async function* (): AsyncGenerator<HistorySummary[]> {
      yield await Promise.resolve(page(1));
      throw new HistoryStoreError('history store: list: database is locked', { retryable: true });
    };
    const app = fastify();
    serveHistory(app, readerOf(failing));
    const client = new HistoryClient(await listen(app));
    const error = await drain(client.list({ namespace: NS })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HistoryStoreError);
    expect(error).toMatchObject({ retryable: true, message: expect.stringMatching(/database is locked/) as unknown });
    await app.close();
  });

  it('is an error when the stream is cut before its end', async () => {
    const server: Server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      response.write(`${JSON.stringify({ page: page(1) })}\n`, () => {
        response.destroy();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new HistoryClient(`http://127.0.0.1:${String((server.address() as AddressInfo).port)}`);
    await expect(drain(client.list({ namespace: NS }))).rejects.toThrow(HistoryStoreError);
    server.close();
  });

  it('is a retryable error when the operator cannot be reached', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
    const error = await new HistoryClient(url).latest(NS, 'etl').catch((e: unknown) => e);
    expect(error).toMatchObject({ retryable: true, message: expect.stringMatching(/unreachable/) as unknown });
  });
});

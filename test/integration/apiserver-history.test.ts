/**
 * The API server answers archived runs as it answered them in etcd (docs/decisions/
 * 2026-11-28-history-reads.md): real runs made by the operator on a real kube-apiserver are
 * archived the way the archiver does it (put into the store with every record and the
 * definition, then the DAGRuns deleted), and every answer about them is compared with the one
 * captured before. Two API servers read the same cluster: one a SQLite file, one PostgreSQL.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { parseApiConfig } from '../../apiserver/config.ts';
import { startServer, type Server } from '../../apiserver/server.ts';
import { openPostgresStore } from '../../core/history/postgres.ts';
import { openSqliteStore } from '../../core/history/sqlite.ts';
import type { HistoryStore, RunToArchive } from '../../core/history/types.ts';
import { ignoreNotFound } from '../../core/kube/errors.ts';
import { readFrozenDefinition } from '../../core/kube/frozen-definitions.ts';
import { readSealed } from '../../core/kube/segments.ts';
import { ANNOTATIONS, LABELS } from '../../core/resources/constants.ts';
import { dagRunResourceName, labelValue } from '../../core/resources/names.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { startPostgres, POSTGRES_SERVER_START_MS, type PostgresServer } from '../postgres-server.ts';
import { ContractClient } from './api-support.ts';
import { contractReads } from './history-reads.ts';
import { startOperator, withSealedRecords, type RunningOperator } from './operator-support.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';

const { core, kube } = clients();
let ns = '';
let operator: RunningOperator;
let postgres: PostgresServer;
let dir = '';
/** What the archiver would hold: a store of each kind, written by the test. */
const writers: HistoryStore[] = [];
const servers: { name: string; server: Server; api: ContractClient }[] = [];

const DAG =
  'steps:\n  - {name: first, command: echo one}\n  - {name: child, call: sub}\n---\nname: sub\nsteps:\n  - {name: inner, command: echo inner}\n';

async function startWith(history: HistoryStore): Promise<{ server: Server; api: ContractClient }> {
  const config = parseApiConfig(
    [
      `--namespace=${ns}`,
      `--kubeconfig=${inject('cluster').kubeconfig}`,
      `--operator-url=${operator.url}`,
      `--lease-namespace=${ns}`,
    ],
    {},
  );
  const server = await startServer({ config, version: 'test', history });
  const api = new ContractClient(server.app);
  await api.load();
  return { server, api };
}

const first = (): ContractClient => (servers[0] as { api: ContractClient }).api;

async function get(api: ContractClient, url: string): Promise<unknown> {
  const res = await api.call('GET', url);
  expect(res.status, `GET ${url}`).toBe(200);
  return res.body;
}

/** Every answer, from each server, by URL. */
async function answers(urls: readonly string[]): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (const { api } of servers) {
    const byUrl: Record<string, unknown> = {};
    for (const url of urls) byUrl[url] = await get(api, url);
    out.push(byUrl);
  }
  return out;
}

async function finished(name: string, id: string): Promise<void> {
  await waitFor(
    `run ${id} to finish`,
    async () => {
      const res = await first().call('GET', `/api/v2/dag-runs/${name}/${id}`);
      return (
        res.status === 200 && (res.body as { dagRunDetails: { finishedAt: string } }).dagRunDetails.finishedAt !== ''
      );
    },
    90_000,
    200,
  );
}

async function start(name: string, id: string): Promise<void> {
  expect((await first().call('POST', `/api/v2/dags/${name}/start`, { dagRunId: id })).status).toBe(200);
  await finished(name, id);
}

async function archiveInput(run: DagRunResource): Promise<RunToArchive> {
  const whole = await withSealedRecords(run);
  const definition = await readFrozenDefinition(kube.segments, run);
  const dagName = run.metadata?.annotations?.[ANNOTATIONS.dagName] ?? run.spec.dagName ?? '';
  return { dagName, run: whole, ...(definition === undefined ? {} : { definition }) };
}

/** As the archiver does: the root with its sub runs put into the store, then (unless kept) their DAGRuns deleted. */
async function archive(name: string, id: string, keep = false): Promise<void> {
  const all = (await kube.runs.list(ns)).items;
  const root = all.find((r) => r.metadata?.name === dagRunResourceName(name, id));
  if (root === undefined) throw new Error(`no DAGRun for run ${id}`);
  const subs = all.filter((r) => r.spec.root?.dagRunId === id && r.spec.parent !== undefined);
  const inputs = [await archiveInput(root), ...(await Promise.all(subs.map(archiveInput)))];
  for (const store of writers) await store.put(inputs);
  if (keep) return;
  // Sub runs first: deleting the root first lets the garbage collector race us to them.
  for (const run of [...subs, root]) await ignoreNotFound(kube.runs.delete(ns, run.metadata?.name ?? ''));
  await waitFor(
    `the API servers to see run ${id} deleted`,
    () =>
      Promise.resolve(
        servers.every(({ server }) =>
          [root, ...subs].every((r) => server.cache.runs.get(ns, r.metadata?.name ?? '') === undefined),
        ),
      ),
    30_000,
    100,
  );
}

const subId = async (name: string, id: string): Promise<string> =>
  ((await get(first(), `/api/v2/dag-runs/${name}/${id}/sub-dag-runs`)) as { subRuns: { dagRunId: string }[] })
    .subRuns[0]?.dagRunId ?? '';

async function runUrls(id: string, from: number): Promise<string[]> {
  return contractReads('hist', id, await subId('hist', id), from);
}

/** Waits until the run's last retry asked for has been carried out and has ended. */
async function retried(id: string): Promise<void> {
  await waitFor(
    `the retry of ${id} to be carried out`,
    async () => {
      const run = await kube.runs.get(ns, dagRunResourceName('hist', id));
      return (
        run.status?.retryToken === run.metadata?.annotations?.[ANNOTATIONS.retry] &&
        run.status?.finishedAt !== undefined
      );
    },
    90_000,
    200,
  );
}

const createdSeconds = async (id: string): Promise<number> =>
  Math.floor(
    Date.parse(String((await kube.runs.get(ns, dagRunResourceName('hist', id))).metadata?.creationTimestamp)) / 1000,
  );

beforeAll(async () => {
  ns = await createNamespace(core, 'kd-apihist');
  dir = await mkdtemp(join(tmpdir(), 'kubedag-apihist-'));
  postgres = await startPostgres();
  const url = await postgres.database('apihist');
  const path = join(dir, 'history.db');
  writers.push(await openSqliteStore({ path }), await openPostgresStore({ url }));
  operator = await startOperator(ns);
  // Each server reads its own store: the SQLite file opened again, the database through another pool.
  servers.push(
    { name: 'sqlite', ...(await startWith(await openSqliteStore({ path }))) },
    { name: 'postgres', ...(await startWith(await openPostgresStore({ url }))) },
  );
}, POSTGRES_SERVER_START_MS);

afterAll(async () => {
  for (const { server } of servers) await server.close();
  for (const store of writers) await store.close();
  await operator.stop();
  await postgres.stop();
  await rm(dir, { recursive: true, force: true });
  await deleteNamespace(core, ns);
});

describe('runs archived into the history store', () => {
  let urls: string[] = [];
  let before: Record<string, unknown>[] = [];

  it('answer every read exactly as before archiving, on sqlite and postgres, with the live runs merged in newest first', async () => {
    expect((await first().call('POST', '/api/v2/dags', { name: 'hist', spec: DAG })).status).toBe(201);
    expect((await first().call('POST', '/api/v2/dags', { name: 'other', spec: 'steps:\n  - exit 3\n' })).status).toBe(
      201,
    );
    await start('hist', 'h1');
    await start('other', 'o1');
    await start('hist', 'h2');
    urls = [...(await runUrls('h1', await createdSeconds('h1'))), ...(await runUrls('h2', await createdSeconds('h2')))];
    before = await answers(urls);
    expect(before[0]).toEqual(before[1]);
    const listed = (before[0]?.['/api/v2/dag-runs'] as { dagRuns: { dagRunId: string }[] }).dagRuns.map(
      (r) => r.dagRunId,
    );
    expect(listed).toEqual(['h2', 'o1', 'h1']);

    // In the store and still in etcd (between the archiver's two writes): listed once.
    await archive('hist', 'h2', true);
    expect(await answers(urls)).toEqual(before);

    await archive('hist', 'h1');
    expect(await answers(urls)).toEqual(before);
    await archive('hist', 'h2');
    expect(await answers(urls)).toEqual(before);
    // The store holds them now, and the informer does not.
    for (const { server } of servers) expect(server.cache.runIndex.runsOf('hist')).toEqual([]);
  });

  it('answers stop and dequeue of an archived run as of any finished run, and writes nothing', async () => {
    const stop = await first().call('POST', '/api/v2/dag-runs/hist/h1/stop');
    const dequeue = await first().call('GET', '/api/v2/dag-runs/hist/h1/dequeue');
    expect([
      stop.status,
      (stop.body as { code: string }).code,
      dequeue.status,
      (dequeue.body as { code: string }).code,
    ]).toEqual([400, 'not_running', 404, 'not_found']);
    await expect(ignoreNotFound(kube.runs.get(ns, dagRunResourceName('hist', 'h1')))).resolves.toBeUndefined();
  });

  it('retries an archived run under a new id: the original is put back, and the new run starts from its step states', async () => {
    expect((await first().call('POST', '/api/v2/dag-runs/hist/h1/retry', { dagRunId: 'h1-copy' })).status).toBe(200);
    await finished('hist', 'h1-copy');
    const copy = (await get(first(), '/api/v2/dag-runs/hist/h1-copy')) as {
      dagRunDetails: { statusLabel: string; nodes: { statusLabel: string }[] };
    };
    expect([copy.dagRunDetails.statusLabel, copy.dagRunDetails.nodes.map((n) => n.statusLabel)]).toEqual([
      'succeeded',
      ['succeeded', 'succeeded'],
    ]);
    const original = await kube.runs.get(ns, dagRunResourceName('hist', 'h1'));
    expect(original.metadata?.annotations?.[ANNOTATIONS.restoredFrom]).toBeTruthy();
    // Put back at someone's request (authentication is off here), and still started by whoever started it.
    expect([
      original.metadata?.annotations?.[ANNOTATIONS.requestedBy],
      original.metadata?.annotations?.[ANNOTATIONS.startedBy],
    ]).toEqual(['anonymous (none)', 'anonymous (none)']);
    // Archived again, for the in-place retry that follows.
    await archive('hist', 'h1');
  });

  it('retries an archived run in place: the same DAGRun comes back once (asked twice), runs, and its sub runs still answer', async () => {
    const subRuns = await get(first(), '/api/v2/dag-runs/hist/h1/sub-dag-runs');
    expect((await first().call('POST', '/api/v2/dag-runs/hist/h1/retry', {})).status).toBe(200);
    const restored = await kube.runs.get(ns, dagRunResourceName('hist', 'h1'));
    expect(restored.metadata?.annotations?.[ANNOTATIONS.restoredFrom]).toBeTruthy();
    await retried('h1');
    expect((await first().call('POST', '/api/v2/dag-runs/hist/h1/retry', {})).status).toBe(200);
    await retried('h1');
    const copies = await kube.runs.list(ns, { labelSelector: `${LABELS.runId}=${labelValue('h1')}` });
    expect(copies.items.filter((r) => r.spec.parent === undefined).length).toBe(1);
    for (const { api } of servers) expect(await get(api, '/api/v2/dag-runs/hist/h1/sub-dag-runs')).toEqual(subRuns);
  });

  it('retries one step of an archived run: that step runs again as attempt 1 and the run succeeds', async () => {
    expect((await first().call('POST', '/api/v2/dag-runs/hist/h2/retry', { stepName: 'first' })).status).toBe(200);
    await waitFor(
      'the step retry to end',
      async () => {
        const run = await withSealedRecords(await kube.runs.get(ns, dagRunResourceName('hist', 'h2')));
        return (
          run.status?.retriedStep === 'first' &&
          run.status.finishedAt !== undefined &&
          run.status.nodes?.find((n) => n.name === 'first')?.attempt === 1
        );
      },
      90_000,
      200,
    );
    // The API answers from its informer, which may see the finished status a moment after etcd has it.
    let label = '';
    await waitFor(
      'the API to see the retry end',
      async () => {
        label = ((await get(first(), '/api/v2/dag-runs/hist/h2')) as { dagRunDetails: { statusLabel: string } })
          .dagRunDetails.statusLabel;
        return label !== 'running';
      },
      30_000,
      200,
    );
    expect(label).toBe('succeeded');
  });

  it('puts a 3,000-step archived run back in segments, not one object, when a step of it is edited', async () => {
    const h1 = await withSealedRecords(await kube.runs.get(ns, dagRunResourceName('hist', 'h1')));
    const nodes = Array.from({ length: 3000 }, (_, i) => ({
      name: `extra-${String(i)}`,
      status: 4,
      statusLabel: 'succeeded',
      startedAt: '2026-11-28T10:00:00Z',
      finishedAt: '2026-11-28T10:00:01Z',
      exitCode: 0,
    }));
    const name = dagRunResourceName('hist', 'big');
    const big: DagRunResource = {
      ...h1,
      metadata: {
        ...h1.metadata,
        name,
        uid: 'archived-big',
        annotations: {},
        labels: { [LABELS.dag]: labelValue('hist'), [LABELS.runId]: labelValue('big') },
      },
      spec: { ...h1.spec, dagRunId: 'big' },
      status: { ...h1.status, nodes: [...(h1.status?.nodes ?? []), ...nodes] },
    };
    const definition = await readFrozenDefinition(kube.segments, h1);
    for (const store of writers)
      await store.put([{ dagName: 'hist', run: big, ...(definition === undefined ? {} : { definition }) }]);
    const archived = (await get(first(), '/api/v2/dag-runs/hist/big')) as {
      dagRunDetails: { nodes: { step: { name: string }; status: number }[] };
    };
    expect(archived.dagRunDetails.nodes.length).toBe(3002);

    expect((await first().call('PATCH', '/api/v2/dag-runs/hist/big/steps/extra-7/status', { status: 2 })).status).toBe(
      200,
    );
    const restored = await kube.runs.get(ns, name);
    expect(JSON.stringify(restored).length).toBeLessThan(64 * 1024);
    expect(restored.status?.sealed).toBeGreaterThan(0);
    expect((await readSealed(kube.segments, restored)).byName.size).toBeGreaterThanOrEqual(2990);
    const after = (await get(first(), '/api/v2/dag-runs/hist/big')) as typeof archived;
    const edited = archived.dagRunDetails.nodes.map((n) =>
      n.step.name === 'extra-7' ? { ...n, status: 2, statusLabel: 'failed' } : n,
    );
    expect(after.dagRunDetails.nodes).toEqual(edited);
  });

  it('lists archived runs under the new name after a rename, in the store too', async () => {
    await archive('hist', 'h2');
    // Renamed through the sqlite server: its store is the one relisted (replicas share one store).
    expect((await first().call('POST', '/api/v2/dags/hist/rename', { newFileName: 'hist-renamed' })).status).toBe(200);
    const ids = (await get(first(), '/api/v2/dag-runs/hist-renamed')) as {
      dagRuns: { dagRunId: string; name: string }[];
    };
    expect(ids.dagRuns.map((r) => [r.name, r.dagRunId]).sort()).toEqual([
      ['hist-renamed', 'big'],
      ['hist-renamed', 'h1'],
      ['hist-renamed', 'h1-copy'],
      ['hist-renamed', 'h2'],
    ]);
    const sqlite = writers[0] as HistoryStore;
    expect([
      (await sqlite.runsOf(ns, 'hist', 10)).length,
      (await sqlite.runsOf(ns, 'hist-renamed', 10)).map((r) => r.dagRunId).sort(),
    ]).toEqual([0, ['big', 'h1', 'h2']]);
    expect(
      ((await get(first(), '/api/v2/dag-runs/hist-renamed/h2')) as { dagRunDetails: { name: string } }).dagRunDetails
        .name,
    ).toBe('hist-renamed');
  });

  it('edits a step of an archived inline sub run: root and sub run come back, the sub run is not run again, and shows the edit', async () => {
    const sub = await subId('hist-renamed', 'h2');
    const at = `/api/v2/dag-runs/hist-renamed/h2/sub-dag-runs/${sub}`;
    const before = (await get(first(), at)) as {
      dagRunDetails: { status: number; finishedAt: string; nodes: { step: { name: string }; statusLabel: string }[] };
    };
    expect((await first().call('PATCH', `${at}/steps/inner/status`, { status: 2 })).status).toBe(200);
    const restored = (await kube.runs.list(ns)).items.find((r) => r.spec.dagRunId === sub);
    expect([
      restored?.spec.definition !== undefined,
      restored?.metadata?.annotations?.[ANNOTATIONS.ended],
      restored?.metadata?.annotations?.[ANNOTATIONS.restoredFrom] !== undefined,
    ]).toEqual([true, undefined, true]);
    // Owned by the root put back with it, as the operator made it: deleted with it, found as its child.
    const root = (await kube.runs.list(ns)).items.find((r) => r.spec.dagRunId === 'h2' && r.spec.parent === undefined);
    expect(restored?.metadata?.ownerReferences?.map((o) => [o.kind, o.uid, o.controller])).toEqual([
      ['DAGRun', root?.metadata?.uid, true],
    ]);
    // Time for the operator to have acted on it, had it taken it for a new run.
    await new Promise((done) => setTimeout(done, 3000));
    const after = (await get(first(), at)) as typeof before;
    expect([
      after.dagRunDetails.status,
      after.dagRunDetails.finishedAt,
      after.dagRunDetails.nodes.map((n) => [n.step.name, n.statusLabel]),
    ]).toEqual([before.dagRunDetails.status, before.dagRunDetails.finishedAt, [['inner', 'failed']]]);
  });
});

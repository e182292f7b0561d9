/**
 * History out of etcd as the chart installs it by default (docs/decisions/2026-11-28-archiving.md,
 * 2026-11-28-history-reads.md): the operator with the embedded SQLite store and a short archive
 * window, the API server reading that store through the operator's internal endpoint. Runs
 * made through the API leave etcd and every cache, and the API still answers them as it did;
 * a retry of an archived run runs it again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../../core/log.ts';
import { parseApiConfig } from '../../apiserver/config.ts';
import { startServer, type Server } from '../../apiserver/server.ts';
import { ContractClient } from './api-support.ts';
import { givenDag, startOperator, type RunningOperator } from './operator-support.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';

const { core, kube } = clients();
const RUNS = 6;
const DAG =
  'steps:\n  - {name: first, command: echo one, output: ONE}\n  - {name: second, command: "echo two ${ONE}", depends: [first]}\n';

let ns = '';
let dir = '';
let operator: RunningOperator;
let server: Server;
let api: ContractClient;

async function answer(url: string): Promise<unknown> {
  const res = await api.call('GET', url);
  expect(res.status, `GET ${url}`).toBe(200);
  return res.body;
}

const runIds = Array.from({ length: RUNS }, (_, i) => `e2e-${String(i)}`);
const urls = (id: string): string[] => [
  `/api/v2/dag-runs/hist/${id}`,
  `/api/v2/dag-runs/hist/${id}/log`,
  `/api/v2/dag-runs/hist/${id}/steps/second/log`,
];

async function finished(id: string): Promise<void> {
  await waitFor(
    `run ${id} to finish`,
    async () => {
      const res = await api.call('GET', `/api/v2/dag-runs/hist/${id}`);
      return (
        res.status === 200 && (res.body as { dagRunDetails: { finishedAt: string } }).dagRunDetails.finishedAt !== ''
      );
    },
    90_000,
    200,
  );
}

beforeAll(async () => {
  ns = await createNamespace(core, 'kd-histe2e');
  dir = await mkdtemp(join(tmpdir(), 'kubedag-histe2e-'));
  // A window long enough to read every run live first, short enough for a test.
  operator = await startOperator(ns, join(dir, 'logs'), [
    '--history-store=sqlite',
    `--history-sqlite-path=${join(dir, 'history.db')}`,
    '--archive-after=8s',
  ]);
  const config = parseApiConfig(
    [
      `--namespace=${ns}`,
      `--kubeconfig=${inject('cluster').kubeconfig}`,
      `--operator-url=${operator.url}`,
      `--lease-namespace=${ns}`,
      '--history-store=sqlite',
    ],
    {},
  );
  server = await startServer({
    config,
    version: 'test',
    logger: createLogger('api', { level: 'error', format: 'json' }),
  });
  api = new ContractClient(server.app);
  await api.load();
  await givenDag(ns, 'hist', DAG);
  await waitFor(
    'the API server to cache the DAG',
    () => Promise.resolve(server.cache.dags.get(ns, 'hist') !== undefined),
    30_000,
    50,
  );
}, 120_000);

afterAll(async () => {
  await server.close();
  await operator.stop();
  await rm(dir, { recursive: true, force: true });
  await deleteNamespace(core, ns);
});

describe('the default history store (SQLite on the operator, read through it)', () => {
  it('takes finished runs out of etcd and every cache while the API answers them as before', async () => {
    // One at a time: a DAG runs one run at a time unless its maxActiveRuns says more.
    for (const id of runIds) {
      expect((await api.call('POST', '/api/v2/dags/hist/start', { dagRunId: id })).status).toBe(200);
      await finished(id);
    }
    const before = new Map<string, unknown>();
    for (const id of runIds) for (const url of urls(id)) before.set(url, await answer(url));
    const listing = await answer('/api/v2/dag-runs?name=hist');
    const history = await answer('/api/v2/dags/hist/dag-runs');
    const dagList = await answer('/api/v2/dags');

    await waitFor('every run archived', async () => (await kube.runs.list(ns)).items.length === 0, 90_000, 500);
    await waitFor(
      'the API server cache to drop them',
      () => Promise.resolve(server.cache.runs.list(ns).length === 0),
      30_000,
      100,
    );

    for (const [url, body] of before) expect(await answer(url), url).toEqual(body);
    expect(await answer('/api/v2/dag-runs?name=hist')).toEqual(listing);
    expect(await answer('/api/v2/dags/hist/dag-runs')).toEqual(history);
    // The DAG list reads the latest run from the DAG's status, which the operator rewrites from the store.
    await waitFor(
      'the DAG list to show the archived latest run as before',
      async () => JSON.stringify(await answer('/api/v2/dags')) === JSON.stringify(dagList),
      30_000,
      250,
    );
    const latest = (await answer('/api/v2/dag-runs/hist/latest')) as { dagRunDetails: { dagRunId: string } };
    expect(runIds).toContain(latest.dagRunDetails.dagRunId);
    // The DAG's own status names its latest run although no DAGRun of it is left.
    const dag = await kube.dags.get(ns, 'hist');
    expect(runIds).toContain(dag.status?.latestRun?.dagRunId);
  });

  it('runs an archived run again when it is retried, and archives it again after', async () => {
    const id = runIds[0] ?? '';
    type Details = { dagRunDetails: { startedAt: string; finishedAt: string; status: number } };
    const archived = ((await answer(`/api/v2/dag-runs/hist/${id}`)) as Details).dagRunDetails;
    const res = await api.call('POST', `/api/v2/dag-runs/hist/${id}/retry`, { dagRunId: id });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await waitFor(
      'the retried run to run again',
      async () => {
        const details = ((await answer(`/api/v2/dag-runs/hist/${id}`)) as Details).dagRunDetails;
        return details.startedAt !== archived.startedAt && details.finishedAt !== '' && details.status === 4;
      },
      90_000,
      300,
    );
    await waitFor(
      'the retried run archived again',
      async () => (await kube.runs.list(ns)).items.length === 0,
      90_000,
      500,
    );
    const log = (await answer(`/api/v2/dag-runs/hist/${id}/steps/second/log`)) as { content: string };
    expect(log.content).toContain('two one');
  });
});

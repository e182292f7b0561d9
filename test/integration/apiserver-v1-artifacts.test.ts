/**
 * Dagu 2.x's run artifacts end to end on the local control plane: a step writes files into
 * DAG_RUN_ARTIFACTS_DIR, its runner sends the new ones through its log, the operator's archiver
 * keeps them in the log store, and /api/v1 lists, previews and downloads them, every answer
 * checked against the /api/v1 document the server serves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../apiserver/server.ts';
import { ContractClient, startApi } from './api-support.ts';
import { startOperator, type RunningOperator } from './operator-support.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';

const { core } = clients();
let ns: string;
let operator: RunningOperator;
let server: Server;
let api: ContractClient;

beforeAll(async () => {
  ns = await createNamespace(core, 'kd-artifacts');
  operator = await startOperator(ns);
  server = await startApi(ns, operator.url);
  api = new ContractClient(server.app);
  await api.load('/api/v1/openapi.json');
});

afterAll(async () => {
  await server.close();
  await operator.stop();
  await deleteNamespace(core, ns);
});

const REPORT = `artifacts:
  enabled: true
steps:
  - name: write
    run: echo "# Report" > "$DAG_RUN_ARTIFACTS_DIR/report.md" && mkdir -p "$DAG_RUN_ARTIFACTS_DIR/data" && echo first > "$DAG_RUN_ARTIFACTS_DIR/data/t.csv"
  - name: rewrite
    depends: [write]
    run: echo second > "$DAG_RUN_ARTIFACTS_DIR/data/t.csv"
`;

describe('run artifacts through /api/v1 on the local control plane', () => {
  it('lists, previews and downloads the files the steps left, the later write winning', async () => {
    expect((await api.call('POST', '/api/v1/dags', { name: 'report', spec: REPORT })).status).toBe(201);
    expect((await api.call('POST', '/api/v1/dags/report/start', { dagRunId: 'a1' })).status).toBe(200);
    await waitFor(
      'run a1 to finish',
      async () => {
        const body = (await api.call('GET', '/api/v1/dag-runs/report/a1')).body as {
          dagRunDetails: { finishedAt: string; statusLabel: string };
        };
        return body.dagRunDetails.finishedAt !== '';
      },
      90_000,
      200,
    );
    const details = (await api.call('GET', '/api/v1/dag-runs/report/a1')).body as {
      dagRunDetails: { statusLabel: string };
    };
    expect(details.dagRunDetails.statusLabel).toBe('succeeded');

    expect((await api.call('GET', '/api/v1/dag-runs/report/a1/artifacts')).body).toEqual({
      items: [
        { name: 'data', path: 'data', type: 'directory' },
        { name: 'report.md', path: 'report.md', type: 'file', size: 9 },
      ],
    });
    expect((await api.call('GET', '/api/v1/dag-runs/report/a1/artifacts?recursive=true')).body).toEqual({
      items: [
        {
          name: 'data',
          path: 'data',
          type: 'directory',
          children: [{ name: 't.csv', path: 'data/t.csv', type: 'file', size: 7 }],
        },
        { name: 'report.md', path: 'report.md', type: 'file', size: 9 },
      ],
    });
    expect((await api.call('GET', '/api/v1/dag-runs/report/a1/artifacts/preview?path=report.md')).body).toEqual({
      name: 'report.md',
      path: 'report.md',
      kind: 'markdown',
      mimeType: 'text/markdown',
      size: 9,
      tooLarge: false,
      truncated: false,
      content: '# Report\n',
    });
    const download = await api.call('GET', '/api/v1/dag-runs/report/a1/artifacts/download?path=data/t.csv');
    expect([download.status, download.text, download.headers['content-disposition']]).toEqual([
      200,
      'second\n',
      'attachment; filename="t.csv"',
    ]);
    expect((await api.call('GET', '/api/v1/dag-runs/report/a1/artifacts/download?path=nope.txt')).status).toBe(404);
    expect(api.checked).toBeGreaterThan(0);
  });
});

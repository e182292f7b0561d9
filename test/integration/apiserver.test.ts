/**
 * The API server end to end: a real kube-apiserver, the real operator running the steps, and
 * every answer checked against the served OpenAPI document.
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

interface Run {
  dagRunId: string;
  status: number;
  statusLabel: string;
  nodes: { step: { name: string }; status: number; statusLabel: string }[];
}

async function finished(name: string, id: string): Promise<Run> {
  let run: Run | undefined;
  await waitFor(`run ${id} to finish`, async () => {
    const res = await api.call('GET', `/api/v2/dag-runs/${name}/${id}`);
    run = (res.body as { dagRunDetails: Run & { finishedAt: string } }).dagRunDetails;
    return res.status === 200 && (run as Run & { finishedAt: string }).finishedAt !== '';
  }, 60_000, 100);
  return run as Run;
}

beforeAll(async () => {
  ns = await createNamespace(core, 'kd-api');
  operator = await startOperator(ns);
  server = await startApi(ns, operator.url);
  api = new ContractClient(server.app);
  await api.load();
});

afterAll(async () => {
  await server.close();
  await operator.stop();
  await deleteNamespace(core, ns);
});

describe('the API server on the local control plane', () => {
  it('creates, lists, reads, edits, validates, searches, renames and deletes DAGs', async () => {
    expect((await api.call('POST', '/api/v2/dags', { name: 'hello' })).status).toBe(201);
    expect((await api.call('POST', '/api/v2/dags', { name: 'hello' })).body).toMatchObject({ code: 'already_exists' });
    expect((await api.call('POST', '/api/v2/dags', { name: 'bad name' })).status).toBe(400);
    expect((await api.call('POST', '/api/v2/dags', { name: 'broken', spec: 'steps:\n  - comand: x\n' })).body).toMatchObject({ code: 'bad_request' });
    const spec = '# nightly\nname: nightly\ntags: [Daily, ops]\nschedule: "0 1 * * *"\nsteps:\n  - echo one\n  - echo two\n';
    expect((await api.call('POST', '/api/v2/dags', { name: 'nightly', spec })).status).toBe(201);

    const list = (await api.call('GET', '/api/v2/dags?perPage=1&page=2')).body as { dags: { fileName: string }[]; pagination: object };
    expect(list.dags.map((d) => d.fileName)).toEqual(['nightly']);
    expect(list.pagination).toEqual({ totalRecords: 2, currentPage: 2, totalPages: 2, nextPage: null, prevPage: 1 });
    expect(((await api.call('GET', '/api/v2/dags?tag=daily')).body as { dags: unknown[] }).dags).toHaveLength(1);

    const got = (await api.call('GET', '/api/v2/dags/nightly/spec')).body as { spec: string; dag: { name: string } };
    expect([got.spec, got.dag.name]).toEqual([spec, 'nightly']);
    expect((await api.call('GET', '/api/v2/dags/hello/spec')).body).toMatchObject({ spec: 'steps:\n  - command: echo hello\n', errors: [] });
    expect((await api.call('PUT', '/api/v2/dags/nightly/spec', { spec: 'steps: [{depends: ghost, command: x}]' })).body).toMatchObject({ errors: [expect.stringContaining('ghost')] });
    expect(((await api.call('GET', '/api/v2/dags/nightly/spec')).body as { spec: string }).spec).toBe(spec);
    const edited = `${spec}  - echo three\n`;
    expect((await api.call('PUT', '/api/v2/dags/nightly/spec', { spec: edited })).body).toEqual({ errors: [] });
    expect(((await api.call('GET', '/api/v2/dags/nightly/spec')).body as { spec: string }).spec).toBe(edited);
    expect(((await api.call('GET', '/api/v2/dags/nightly')).body as { dag: { steps: unknown[] } }).dag.steps).toHaveLength(3);

    expect((await api.call('POST', '/api/v2/dags/validate', { spec: 'steps: [echo]', name: 'v' })).body).toMatchObject({ valid: true, errors: [], dag: { name: 'v' } });
    expect((await api.call('GET', '/api/v2/dags/search?q=ECHO%20t')).body).toMatchObject({ results: [{ name: 'nightly', matches: [{ lineNumber: 7 }, { lineNumber: 8 }] }] });
    expect((await api.call('GET', '/api/v2/dags/tags')).body).toEqual({ tags: ['daily', 'ops'], errors: [] });

    expect((await api.call('POST', '/api/v2/dags/hello/rename', { newFileName: 'nightly' })).body).toMatchObject({ code: 'already_exists' });
    expect((await api.call('POST', '/api/v2/dags/hello/rename', { newFileName: 'greeting' })).status).toBe(200);
    expect((await api.call('GET', '/api/v2/dags/hello')).status).toBe(404);
    expect((await api.call('GET', '/api/v2/dags/greeting')).body).toMatchObject({ dag: { name: 'greeting' } });
    expect((await api.call('DELETE', '/api/v2/dags/greeting')).status).toBe(204);
    expect((await api.call('DELETE', '/api/v2/dags/greeting')).body).toMatchObject({ code: 'not_found' });
  });

  it('starts a run, follows it to the end, and serves its logs', async () => {
    await api.call('POST', '/api/v2/dags', { name: 'greet', spec: 'params: NAME=world\nsteps:\n  - {name: say, command: echo hello $NAME}\n  - {name: after, command: echo done}\n' });
    const started = await api.call('POST', '/api/v2/dags/greet/start', { params: '{"NAME":"kube"}', dagRunId: 'first' });
    expect(started.body).toEqual({ dagRunId: 'first' });
    expect((await api.call('POST', '/api/v2/dags/greet/start', { dagRunId: 'first' })).body).toMatchObject({ code: 'already_exists' });
    const run = await finished('greet', 'first');
    expect([run.statusLabel, run.nodes.map((n) => n.statusLabel)]).toEqual(['succeeded', ['succeeded', 'succeeded']]);
    expect((await api.call('GET', '/api/v2/dag-runs/greet/first/steps/say/log')).body).toEqual({ content: 'hello kube', lineCount: 1, totalLines: 1, hasMore: false, isEstimate: false });
    expect(((await api.call('GET', '/api/v2/dag-runs/greet/first/log')).body as { content: string }).content).toContain('step say succeeded');
    expect((await api.call('GET', '/api/v2/dag-runs/greet/first/steps/ghost/log')).status).toBe(404);
    expect(((await api.call('GET', '/api/v2/dag-runs/greet/latest')).body as { dagRunDetails: Run }).dagRunDetails.dagRunId).toBe('first');
    expect(((await api.call('GET', '/api/v2/dag-runs?name=gre')).body as { dagRuns: Run[] }).dagRuns.map((r) => r.dagRunId)).toEqual(['first']);
    const history = (await api.call('GET', '/api/v2/dags/greet/dag-runs')).body as { gridData: unknown[] };
    expect(history.gridData).toEqual([{ name: 'after', history: [4] }, { name: 'say', history: [4] }]);
    expect((await api.call('POST', '/api/v2/dag-runs/greet/first/stop')).body).toMatchObject({ code: 'not_running' });
  });
});

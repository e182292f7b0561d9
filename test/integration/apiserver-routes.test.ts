/**
 * Every endpoint's error paths and edge cases through the real API server on the real
 * kube-apiserver. No operator runs here: where a case needs a run in some state, the test
 * writes that status through the status subresource, as the operator would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFrozenDefinition } from '../../core/kube/frozen-definitions.ts';
import { API_VERSION } from '../../core/resources/constants.ts';
import { dagRunResourceName } from '../../core/resources/names.ts';
import { dagRun } from '../builders/dag-run.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import type { Server } from '../../apiserver/server.ts';
import { ContractClient, startApi } from './api-support.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';

const { core, kube } = clients();
let ns: string;
let server: Server;
let api: ContractClient;

async function getRun(name: string): Promise<DagRunResource> {
  return kube.runs.get(ns, name);
}

/** Writes a run's status as the operator would, and waits until the API server has seen it. */
async function setStatus(dag: string, id: string, status: Record<string, unknown>): Promise<void> {
  const name = dagRunResourceName(dag, id);
  await kube.runs.mergePatchStatus(ns, name, { status });
  await waitFor(
    `the API to see ${id} in status ${String(status.status)}`,
    async () => {
      const res = await api.call('GET', `/api/v2/dag-runs/${dag}/${id}`);
      return (res.body as { dagRunDetails?: { status: number } }).dagRunDetails?.status === status.status;
    },
    10_000,
    50,
  );
}

const finishedStatus = (status: number, label: string, nodes: Record<string, unknown>[]): Record<string, unknown> => ({
  status,
  statusLabel: label,
  startedAt: '2026-11-22T10:00:00Z',
  finishedAt: '2026-11-22T10:00:05Z',
  nodes,
});

beforeAll(async () => {
  ns = await createNamespace(core, 'kd-routes');
  server = await startApi(ns);
  api = new ContractClient(server.app);
  await api.load();
  await api.call('POST', '/api/v2/dags', {
    name: 'etl',
    spec: 'steps:\n  - {name: extract, command: echo e}\n  - {name: load, command: echo l}\n',
  });
  await api.call('POST', '/api/v2/dags', { name: 'many', spec: 'maxActiveRuns: 2\nqueue: shared\nsteps: [echo]\n' });
});

afterAll(async () => {
  await server.close();
  await deleteNamespace(core, ns);
});

describe('request checks common to all routes', () => {
  it.each([
    ['a bad file name', 'GET', '/api/v2/dags/bad.name', undefined, 400, 'bad_request'],
    ['an unknown DAG', 'GET', '/api/v2/dags/ghost', undefined, 404, 'not_found'],
    ['a missing required field', 'POST', '/api/v2/dags', {}, 400, 'bad_request'],
    ['a wrong type', 'POST', '/api/v2/dags', { name: 5 }, 400, 'bad_request'],
    [
      'a wrong type beside a field the body does not define',
      'POST',
      '/api/v2/dags/etl/start',
      { singleton: 'yes', colour: 'red' },
      400,
      'bad_request',
    ],
    [
      'a step status out of range',
      'PATCH',
      '/api/v2/dag-runs/etl/nope/steps/extract/status',
      { status: 9 },
      400,
      'bad_request',
    ],
    ['a DAG name over 40 characters', 'POST', '/api/v2/dags', { name: 'a'.repeat(41) }, 400, 'bad_request'],
    ['an invalid spec', 'POST', '/api/v2/dags', { name: 'broken', spec: 'steps: [{comand: x}]' }, 400, 'bad_request'],
    [
      'a PUT of the spec of an unknown DAG',
      'PUT',
      '/api/v2/dags/ghost/spec',
      { spec: 'steps: [echo]' },
      404,
      'not_found',
    ],
    ['a rename to a bad name', 'POST', '/api/v2/dags/etl/rename', { newFileName: 'a b' }, 400, 'bad_request'],
    ['a rename of an unknown DAG', 'POST', '/api/v2/dags/ghost/rename', { newFileName: 'other' }, 404, 'not_found'],
    ['a search without q', 'GET', '/api/v2/dags/search', undefined, 400, 'bad_request'],
    ['a search with a broken pattern', 'GET', '/api/v2/dags/search?q=(', undefined, 400, 'bad_request'],
    ['a start of an unknown DAG', 'POST', '/api/v2/dags/ghost/start', {}, 404, 'not_found'],
    ['a start with a bad run id', 'POST', '/api/v2/dags/etl/start', { dagRunId: 'no/slash' }, 400, 'bad_request'],
    ['a start with unparsable params', 'POST', '/api/v2/dags/etl/start', { params: 'A="open' }, 400, 'bad_request'],
    ['an inline run without a name', 'POST', '/api/v2/dag-runs', { spec: 'steps: [echo]' }, 400, 'bad_request'],
    [
      'an inline run with a bad name',
      'POST',
      '/api/v2/dag-runs',
      { spec: 'steps: [echo]', name: 'a b' },
      400,
      'bad_request',
    ],
    ['a suspend of an unknown DAG', 'POST', '/api/v2/dags/ghost/suspend', { suspend: true }, 404, 'not_found'],
    ['a stop-all of an unknown DAG', 'POST', '/api/v2/dags/ghost/stop-all', undefined, 404, 'not_found'],
    ['an unknown run', 'GET', '/api/v2/dag-runs/etl/nope', undefined, 404, 'not_found'],
    ['the latest run of a DAG that never ran', 'GET', '/api/v2/dag-runs/never/latest', undefined, 404, 'not_found'],
    ['a status filter out of range', 'GET', '/api/v2/dag-runs?status=7', undefined, 400, 'bad_request'],
    ['a log limit over 10000', 'GET', '/api/v2/dag-runs/etl/nope/log?limit=10001', undefined, 400, 'bad_request'],
    ['an unknown route', 'GET', '/api/v2/nothing', undefined, 404, 'not_found'],
  ] as const)('answers %s with the contract error', async (...[, method, url, body, status, code]) => {
    const res = await api.call(method, url, body);
    expect([res.status, (res.body as { code: string }).code]).toEqual([status, code]);
  });

  it('ignores fields a body does not define, as Dagu does', async () => {
    expect(
      (await api.call('POST', '/api/v2/dags', { name: 'extra', spec: 'steps: [echo extra]\n', colour: 'red' })).status,
    ).toBe(201);
    expect((await api.call('GET', '/api/v2/dags/extra/spec')).body).toMatchObject({
      spec: 'steps: [echo extra]\n',
      errors: [],
    });
    expect(
      (await api.call('POST', '/api/v2/dags/validate', { spec: 'steps: [echo]', name: 'v', strict: true })).body,
    ).toMatchObject({ valid: true, dag: { name: 'v' } });
  });

  it('answers malformed JSON with 400 and an oversized body with 413, both as error objects', async () => {
    const malformed = await server.app.inject({
      method: 'POST',
      url: '/api/v2/dags',
      headers: { 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect([malformed.statusCode, malformed.json<{ code: string }>().code]).toEqual([400, 'bad_request']);
    const big = await server.app.inject({
      method: 'POST',
      url: '/api/v2/dags/validate',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ spec: 'x'.repeat(2_000_000) }),
    });
    expect([big.statusCode, big.json<{ code: string }>().code]).toEqual([413, 'bad_request']);
  });
});

describe('starting runs', () => {
  it('counts active runs against maxActiveRuns, then singleton, then duplicate ids', async () => {
    expect((await api.call('POST', '/api/v2/dags/many/start', { dagRunId: 'm1' })).body).toEqual({ dagRunId: 'm1' });
    expect((await api.call('POST', '/api/v2/dags/many/start', { dagRunId: 'm1' })).body).toMatchObject({
      code: 'already_exists',
    });
    expect((await api.call('POST', '/api/v2/dags/many/start', { dagRunId: 'm2', singleton: true })).body).toMatchObject(
      { code: 'already_running' },
    );
    expect((await api.call('POST', '/api/v2/dags/many/start', { dagRunId: 'm2' })).status).toBe(200);
    expect((await api.call('POST', '/api/v2/dags/many/start', { dagRunId: 'm3' })).body).toMatchObject({
      code: 'max_run_reached',
    });
    // Enqueueing never fails for capacity.
    expect((await api.call('POST', '/api/v2/dags/many/enqueue', { dagRunId: 'm4', queue: 'other' })).body).toEqual({
      dagRunId: 'm4',
    });
    const queued = await getRun(dagRunResourceName('many', 'm4'));
    expect([
      queued.spec.enqueue,
      queued.spec.queue,
      queued.spec.frozenDefinition?.maxActiveRuns,
      queued.spec.frozenDefinition?.queue,
      queued.spec.snapshot,
    ]).toEqual([true, 'other', 2, 'shared', undefined]);
  });

  it('lets only one of a burst of starts through when one slot is free', async () => {
    await api.call('POST', '/api/v2/dags', { name: 'burst', spec: 'steps: [echo]\n' });
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => api.call('POST', '/api/v2/dags/burst/start', { dagRunId: `b${String(i)}` })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
  });

  it('creates inline runs from YAML without storing a DAG, with the inline singleton code', async () => {
    const spec = 'name: adhoc\nsteps: [echo inline]\n';
    expect((await api.call('POST', '/api/v2/dag-runs', { spec, dagRunId: 'i1' })).body).toEqual({ dagRunId: 'i1' });
    expect((await api.call('POST', '/api/v2/dag-runs', { spec, dagRunId: 'i2', singleton: true })).body).toMatchObject({
      code: 'max_run_reached',
    });
    expect((await api.call('GET', '/api/v2/dags/adhoc')).status).toBe(404);
    expect((await api.call('GET', '/api/v2/dag-runs/adhoc/i1')).body).toMatchObject({
      dagRunDetails: { name: 'adhoc', dagRunId: 'i1', nodes: [{ step: { name: 'cmd_1' } }] },
    });
    expect(
      (await api.call('POST', '/api/v2/dag-runs/enqueue', { spec, name: 'renamed', dagRunId: 'q1' })).body,
    ).toEqual({ dagRunId: 'q1' });
  });

  it('suspends and resumes a DAG', async () => {
    expect((await api.call('POST', '/api/v2/dags/etl/suspend', { suspend: true })).status).toBe(200);
    expect((await api.call('GET', '/api/v2/dags/etl')).body).toMatchObject({ suspended: true });
    expect((await api.call('POST', '/api/v2/dags/etl/suspend', { suspend: false })).status).toBe(200);
    expect((await api.call('GET', '/api/v2/dags/etl')).body).toMatchObject({ suspended: false });
  });
});

describe('operations on runs', () => {
  it('stops only running runs, and stop-all stops every running run of the DAG', async () => {
    await api.call('POST', '/api/v2/dags/etl/start', { dagRunId: 's1' });
    expect((await api.call('POST', '/api/v2/dag-runs/etl/s1/stop')).body).toMatchObject({ code: 'not_running' });
    await setStatus('etl', 's1', { status: 1, statusLabel: 'running', startedAt: '2026-11-22T10:00:00Z' });
    expect((await api.call('POST', '/api/v2/dag-runs/etl/s1/stop')).status).toBe(200);
    expect((await getRun(dagRunResourceName('etl', 's1'))).spec.stop).toBe(true);
    expect((await api.call('POST', '/api/v2/dags/etl/stop-all')).body).toEqual({ errors: [] });
    await setStatus(
      'etl',
      's1',
      finishedStatus(3, 'canceled', [{ name: 'extract', status: 3, statusLabel: 'canceled' }]),
    );
  });

  it('retries in place, one step, or under a new id, and refuses while active', async () => {
    await api.call('POST', '/api/v2/dags/etl/start', { dagRunId: 'r1' });
    expect((await api.call('POST', '/api/v2/dag-runs/etl/r1/retry', {})).body).toMatchObject({
      code: 'already_running',
    });
    await setStatus(
      'etl',
      'r1',
      finishedStatus(2, 'failed', [
        { name: 'extract', status: 4, statusLabel: 'succeeded' },
        { name: 'load', status: 2, statusLabel: 'failed' },
      ]),
    );
    expect((await api.call('POST', '/api/v2/dag-runs/etl/r1/retry', { stepName: 'ghost' })).body).toMatchObject({
      code: 'not_found',
    });
    expect((await api.call('POST', '/api/v2/dag-runs/etl/r1/retry', { stepName: 'load' })).status).toBe(200);
    const asked = await getRun(dagRunResourceName('etl', 'r1'));
    expect(asked.metadata?.annotations?.['kubedag.io/retry-step']).toBe('load');
    expect(asked.metadata?.annotations?.['kubedag.io/retry']).toMatch(/^[0-9a-f-]{36}$/);
    expect((await api.call('POST', '/api/v2/dag-runs/etl/r1/retry', { dagRunId: 'r1-again' })).status).toBe(200);
    const copy = await getRun(dagRunResourceName('etl', 'r1-again'));
    expect([copy.spec.trigger, copy.metadata?.annotations?.['kubedag.io/retry-of']]).toEqual([
      'retry',
      dagRunResourceName('etl', 'r1'),
    ]);
    await setStatus('etl', 'r1-again', finishedStatus(4, 'succeeded', []));
  });

  it('edits step status of finished runs only, and checks step and status', async () => {
    await api.call('POST', '/api/v2/dags/etl/start', { dagRunId: 'p1' });
    await setStatus('etl', 'p1', {
      status: 1,
      statusLabel: 'running',
      nodes: [{ name: 'extract', status: 1, statusLabel: 'running' }],
    });
    expect((await api.call('PATCH', '/api/v2/dag-runs/etl/p1/steps/extract/status', { status: 4 })).body).toMatchObject(
      { code: 'bad_request' },
    );
    await setStatus(
      'etl',
      'p1',
      finishedStatus(2, 'failed', [
        { name: 'extract', status: 2, statusLabel: 'failed' },
        { name: 'load', status: 3, statusLabel: 'canceled' },
      ]),
    );
    expect((await api.call('PATCH', '/api/v2/dag-runs/etl/p1/steps/ghost/status', { status: 4 })).body).toMatchObject({
      code: 'not_found',
    });
    expect((await api.call('PATCH', '/api/v2/dag-runs/etl/p1/steps/extract/status', { status: 6 })).body).toMatchObject(
      { code: 'bad_request' },
    );
    expect((await api.call('PATCH', '/api/v2/dag-runs/etl/p1/steps/extract/status', { status: 4 })).status).toBe(200);
    const edited = (await api.call('GET', '/api/v2/dag-runs/etl/p1')).body as {
      dagRunDetails: { status: number; nodes: { status: number; statusLabel: string }[] };
    };
    expect([edited.dagRunDetails.status, edited.dagRunDetails.nodes[0]]).toEqual([
      2,
      expect.objectContaining({ status: 4, statusLabel: 'succeeded' }),
    ]);
  });

  it('reschedules a run as a new singleton run from its stored definition and params', async () => {
    await api.call('POST', '/api/v2/dags/etl/start', { dagRunId: 'o1', params: 'A=1' });
    expect((await api.call('POST', '/api/v2/dag-runs/etl/o1/reschedule', {})).body).toMatchObject({
      code: 'already_running',
    });
    await setStatus('etl', 'o1', finishedStatus(4, 'succeeded', []));
    expect((await api.call('POST', '/api/v2/dag-runs/etl/ghost/reschedule', {})).body).toMatchObject({
      code: 'not_found',
    });
    expect((await api.call('POST', '/api/v2/dag-runs/etl/o1/reschedule', { dagRunId: 'o1' })).body).toMatchObject({
      code: 'already_exists',
    });
    // The body Dagu's web UI sends: `singleton` is not the contract's, and is ignored.
    expect(
      (await api.call('POST', '/api/v2/dag-runs/etl/o1/reschedule', { dagRunId: 'o2', singleton: false })).body,
    ).toEqual({ dagRunId: 'o2', queued: false });
    const again = await getRun(dagRunResourceName('etl', 'o2'));
    expect([again.spec.params, await readFrozenDefinition(kube.segments, again)]).toEqual([
      'A=1',
      await readFrozenDefinition(kube.segments, await getRun(dagRunResourceName('etl', 'o1'))),
    ]);
    await setStatus('etl', 'o2', finishedStatus(4, 'succeeded', []));
  });

  it('dequeues queued runs only', async () => {
    await api.call('POST', '/api/v2/dags/etl/enqueue', { dagRunId: 'q1' });
    await setStatus('etl', 'q1', { status: 5, statusLabel: 'queued', queuedAt: '2026-11-22T10:00:00Z' });
    expect((await api.call('GET', '/api/v2/dag-runs/etl/p1/dequeue')).body).toMatchObject({ code: 'not_found' });
    expect((await api.call('GET', '/api/v2/dag-runs/etl/q1/dequeue')).status).toBe(200);
    expect((await api.call('GET', '/api/v2/dag-runs/etl/q1')).status).toBe(404);
  });

  it('serves sub runs under their root by both path spellings, with parent fields', async () => {
    const parent = await getRun(dagRunResourceName('etl', 'p1'));
    const child = dagRun('p1-child')
      .spec({ definition: { steps: ['echo child'] }, dagName: 'child', dagRunId: 'c1', trigger: 'sub-run' })
      .child(['etl', 'p1'])
      .build();
    await kube.runs.create(ns, {
      ...child,
      metadata: {
        ...child.metadata,
        ownerReferences: [
          {
            apiVersion: API_VERSION,
            kind: 'DAGRun',
            name: parent.metadata?.name ?? '',
            uid: parent.metadata?.uid ?? '',
            controller: true,
          },
        ],
      },
    });
    await waitFor(
      'the API to see the child',
      async () => (await api.call('GET', '/api/v2/dag-runs/etl/p1/sub-dag-runs/c1')).status === 200,
      10_000,
      50,
    );
    for (const segment of ['sub-dag-runs', 'children']) {
      expect((await api.call('GET', `/api/v2/dag-runs/etl/p1/${segment}/c1`)).body).toMatchObject({
        dagRunDetails: {
          name: 'child',
          dagRunId: 'c1',
          parentDAGRunName: 'etl',
          parentDAGRunId: 'p1',
          rootDAGRunId: 'p1',
        },
      });
    }
    expect((await api.call('GET', '/api/v2/dag-runs/etl/p1/sub-dag-runs/nope')).status).toBe(404);
    await kube.runs.mergePatchStatus(ns, 'p1-child', {
      status: finishedStatus(2, 'failed', [{ name: 'cmd_1', status: 2, statusLabel: 'failed' }]),
    });
    await waitFor(
      'the API to see the child end',
      async () =>
        ((await api.call('GET', '/api/v2/dag-runs/etl/p1/children/c1')).body as { dagRunDetails: { status: number } })
          .dagRunDetails.status === 2,
      10_000,
      50,
    );
    expect(
      (await api.call('PATCH', '/api/v2/dag-runs/etl/p1/sub-dag-runs/c1/steps/ghost/status', { status: 4 })).body,
    ).toMatchObject({ code: 'not_found' });
    expect(
      (await api.call('PATCH', '/api/v2/dag-runs/etl/p1/children/c1/steps/cmd_1/status', { status: 4 })).status,
    ).toBe(200);
    expect((await api.call('GET', '/api/v2/dag-runs/etl/p1/sub-dag-runs/c1')).body).toMatchObject({
      dagRunDetails: { nodes: [{ status: 4, statusLabel: 'succeeded' }] },
    });
    expect(((await api.call('GET', '/api/v2/dag-runs?name=child')).body as { dagRuns: unknown[] }).dagRuns).toEqual([]);
  });

  it('serves the run log, an empty chunk for a step without a log yet, and 404 for unknown steps', async () => {
    expect(((await api.call('GET', '/api/v2/dag-runs/etl/p1/log?tail=1')).body as { content: string }).content).toMatch(
      /run p1 failed$/,
    );
    expect((await api.call('GET', '/api/v2/dag-runs/etl/p1/steps/ghost/log')).body).toMatchObject({
      code: 'not_found',
    });
  });
});

describe('listings and cluster views', () => {
  it('filters run listings by name, id, status and dates', async () => {
    const all = (await api.call('GET', '/api/v2/dag-runs')).body as { dagRuns: { dagRunId: string; name: string }[] };
    expect(all.dagRuns.length).toBeGreaterThan(5);
    expect(
      ((await api.call('GET', '/api/v2/dag-runs?dagRunId=r1')).body as { dagRuns: { dagRunId: string }[] }).dagRuns
        .map((r) => r.dagRunId)
        .sort(),
    ).toEqual(['r1', 'r1-again']);
    expect(
      ((await api.call('GET', '/api/v2/dag-runs/etl?status=2')).body as { dagRuns: { dagRunId: string }[] }).dagRuns
        .map((r) => r.dagRunId)
        .sort(),
    ).toEqual(['p1', 'r1']);
    expect(((await api.call('GET', '/api/v2/dag-runs?toDate=1000')).body as { dagRuns: unknown[] }).dagRuns).toEqual(
      [],
    );
  });

  it('details a DAG that never ran with a latest run whose nodes are its steps, not started', async () => {
    await api.call('POST', '/api/v2/dags', {
      name: 'fresh',
      spec: 'steps:\n  - {name: one, command: echo 1}\n  - {name: two, command: echo 2, depends: [one]}\nhandlerOn:\n  failure: {command: echo oops}\n',
    });
    const { latestDAGRun } = (await api.call('GET', '/api/v2/dags/fresh')).body as {
      latestDAGRun: {
        dagRunId: string;
        status: number;
        statusLabel: string;
        nodes: { step: { name: string; depends: string[] }; status: number; statusLabel: string; startedAt: string }[];
        onFailure: { step: { name: string }; status: number } | null;
        onExit: unknown;
      };
    };
    expect([latestDAGRun.dagRunId, latestDAGRun.status, latestDAGRun.statusLabel]).toEqual(['', 0, 'not_started']);
    expect(latestDAGRun.nodes.map((n) => [n.step.name, n.step.depends, n.status, n.statusLabel, n.startedAt])).toEqual([
      ['one', [], 0, 'not_started', ''],
      ['two', ['one'], 0, 'not_started', ''],
    ]);
    expect([latestDAGRun.onFailure?.step.name, latestDAGRun.onFailure?.status, latestDAGRun.onExit]).toEqual([
      'onFailure',
      0,
      null,
    ]);
  });

  it("details a DAG that ran with its latest run's full details, as the run's own address answers them", async () => {
    const { latestDAGRun } = (await api.call('GET', '/api/v2/dags/etl')).body as {
      latestDAGRun: { dagRunId: string; nodes: unknown[] };
    };
    const { dagRunDetails } = (await api.call('GET', '/api/v2/dag-runs/etl/latest')).body as {
      dagRunDetails: { dagRunId: string };
    };
    expect(latestDAGRun.dagRunId).not.toBe('');
    expect(latestDAGRun.nodes.length).toBe(2);
    expect(latestDAGRun).toEqual(dagRunDetails);
  });

  it('lists custom queues even when empty and dag-based ones while they hold runs', async () => {
    await kube.queues.create(ns, { metadata: { name: 'nightly' }, spec: { maxConcurrency: 2 } });
    await waitFor(
      'the queue',
      async () =>
        ((await api.call('GET', '/api/v2/queues')).body as { queues: { name: string }[] }).queues.some(
          (q) => q.name === 'nightly',
        ),
      10_000,
      50,
    );
    const { queues } = (await api.call('GET', '/api/v2/queues')).body as {
      queues: { name: string; type: string; maxConcurrency?: number }[];
    };
    expect(queues.find((q) => q.name === 'nightly')).toMatchObject({
      type: 'custom',
      maxConcurrency: 2,
      summary: { running: 0, queued: 0, total: 0 },
      running: [],
      queued: [],
    });
  });

  it("answers each queue's runs as full run summaries and the totals over all queues, as Dagu does", async () => {
    await api.call('POST', '/api/v2/dags/etl/enqueue', { dagRunId: 'n1', queue: 'nightly' });
    await setStatus('etl', 'n1', { status: 5, statusLabel: 'queued', queuedAt: '2026-11-22T10:00:00Z' });
    interface Listed {
      name: string;
      maxConcurrency?: number;
      queuedDAGRuns: { dagRunId: string }[];
      queued: { dagRunId: string; queuedAt: string }[];
      running: unknown[];
    }
    const list = async (): Promise<{ queues: Listed[]; summary: Record<string, number> }> =>
      (await api.call('GET', '/api/v2/queues')).body as { queues: Listed[]; summary: Record<string, number> };
    // The enqueued run is queued at once; its queuedAt comes with the status written above.
    await waitFor(
      'the queued run with its queuedAt',
      async () =>
        (await list()).queues.find((q) => q.name === 'nightly')?.queued[0]?.queuedAt === '2026-11-22T10:00:00Z',
      10_000,
      50,
    );
    const { queues, summary } = await list();
    const nightly = queues.find((q) => q.name === 'nightly');
    expect(nightly?.queuedDAGRuns).toEqual([expect.objectContaining({ dagRunId: 'n1', name: 'etl', status: 5 })]);
    expect(nightly?.queued).toEqual([
      {
        rootDAGRunName: 'etl',
        rootDAGRunId: 'n1',
        parentDAGRunName: '',
        parentDAGRunId: '',
        dagRunId: 'n1',
        name: 'etl',
        status: 5,
        statusLabel: 'queued',
        queuedAt: '2026-11-22T10:00:00Z',
        startedAt: '',
        finishedAt: '',
        log: '/api/v2/dag-runs/etl/n1/log',
        params: '',
      },
    ]);
    const total = (of: (q: Listed) => number): number => queues.reduce((sum, q) => sum + of(q), 0);
    expect(summary).toEqual({
      totalQueues: queues.length,
      totalRunning: total((q) => q.running.length),
      totalQueued: total((q) => q.queued.length),
      totalCapacity: total((q) => q.maxConcurrency ?? 0),
      utilizationPercentage: expect.any(Number) as unknown,
    });
    expect(summary.totalQueued).toBeGreaterThanOrEqual(1);
    expect((await api.call('GET', '/api/v2/dag-runs/etl/n1/dequeue')).status).toBe(200);
  });

  it('reports nodes as workers, the scheduler as absent, health as unhealthy without an operator, and metrics', async () => {
    const { workers } = (await api.call('GET', '/api/v2/workers')).body as {
      workers: { id: string; health_status: string; last_heartbeat: string }[];
    };
    expect(workers.map((w) => w.id)).toEqual(expect.arrayContaining(['kubedag-node-1']));
    expect(workers[0]?.health_status).toBe('WORKER_HEALTH_STATUS_HEALTHY');
    expect(Date.now() - Date.parse(workers[0]?.last_heartbeat ?? '')).toBeLessThan(20_000);
    expect((await api.call('GET', '/api/v2/services/scheduler')).body).toEqual({ schedulers: [] });
    expect((await api.call('GET', '/api/v2/services/coordinator')).body).toEqual({ coordinators: [] });
    const health = (await api.call('GET', '/api/v2/health')).body as { status: string; error: string };
    expect([health.status, health.error]).toEqual(['unhealthy', expect.stringContaining('scheduler') as unknown]);
    const metrics = await api.call('GET', '/api/v2/metrics');
    expect(metrics.headers['content-type']).toContain('text/plain');
    expect(metrics.text).toMatch(/kubedag_dags_total \d+/);
    expect(metrics.text).toContain('kubedag_info{version="test"');
    expect(metrics.text).toContain('kubedag_scheduler_running 0');
  });
});

describe('a DAG deleted and created again', () => {
  it('is created again at once after each of 20 deletes, never refused as existing', async () => {
    await api.call('POST', '/api/v2/dags', { name: 'again' });
    const answers: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const deleted = await api.call('DELETE', '/api/v2/dags/again');
      const created = await api.call('POST', '/api/v2/dags', {
        name: 'again',
        spec: `steps:\n  - echo ${String(i)}\n`,
      });
      answers.push(`${String(deleted.status)} ${String(created.status)}`);
    }
    expect(answers).toEqual(Array.from({ length: 20 }, () => '204 201'));
    expect((await api.call('GET', '/api/v2/dags/again/spec')).body).toMatchObject({ spec: 'steps:\n  - echo 19\n' });
  });

  it('is created again after a delete the cache has not seen yet, since the Kubernetes API says whether a name is taken', async () => {
    await api.call('POST', '/api/v2/dags', { name: 'unseen' });
    // The DAG watch stopped: the cache keeps the deleted DAG, as it does while a watch is down.
    await server.cache.dags.stop();
    try {
      expect((await api.call('DELETE', '/api/v2/dags/unseen')).status).toBe(204);
      expect(server.cache.dags.get(ns, 'unseen')).toBeDefined();
      expect((await api.call('POST', '/api/v2/dags', { name: 'unseen', spec: 'steps: [echo again]\n' })).status).toBe(
        201,
      );
      expect((await api.call('POST', '/api/v2/dags', { name: 'unseen' })).body).toMatchObject({
        code: 'already_exists',
      });
    } finally {
      await server.cache.dags.start();
    }
    expect((await api.call('GET', '/api/v2/dags/unseen/spec')).body).toMatchObject({ spec: 'steps: [echo again]\n' });
  });
});

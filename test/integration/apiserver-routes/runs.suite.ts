/**
 * The suites of apiserver-routes.test.ts about runs: starting them, and what the API does to a
 * run once it exists. The statuses are written as the operator would (no operator runs).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readFrozenDefinition } from '../../../core/kube/frozen-definitions.ts';
import type { KubedagClients } from '../../../core/kube/client.ts';
import { API_VERSION } from '../../../core/resources/constants.ts';
import { dagRunResourceName } from '../../../core/resources/names.ts';
import { dagRun } from '../../builders/dag-run.ts';
import type { ContractClient } from '../api-support.ts';
import { waitFor } from '../support.ts';
import { finishedStatus, type RoutesStack, type RoutesStackRef } from './stack.ts';

/** Starting, enqueueing and suspending, with the limits on active runs. */
export function describeStartingRuns(stack: RoutesStackRef): void {
  describe('starting runs', () => {
    let api: ContractClient;
    let getRun: RoutesStack['getRun'];
    beforeAll(() => {
      ({ api, getRun } = stack());
    });

    it('counts active runs against maxActiveRuns, then singleton, then duplicate ids', async () => {
      expect((await api.call('POST', '/api/v2/dags/many/start', { dagRunId: 'm1' })).body).toEqual({ dagRunId: 'm1' });
      expect((await api.call('POST', '/api/v2/dags/many/start', { dagRunId: 'm1' })).body).toMatchObject({
        code: 'already_exists',
      });
      expect(
        (await api.call('POST', '/api/v2/dags/many/start', { dagRunId: 'm2', singleton: true })).body,
      ).toMatchObject({ code: 'already_running' });
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
        Array.from({ length: 8 }, (_, i) =>
          api.call('POST', '/api/v2/dags/burst/start', { dagRunId: `b${String(i)}` }),
        ),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    });

    it('creates inline runs from YAML without storing a DAG, with the inline singleton code', async () => {
      const spec = 'name: adhoc\nsteps: [echo inline]\n';
      expect((await api.call('POST', '/api/v2/dag-runs', { spec, dagRunId: 'i1' })).body).toEqual({ dagRunId: 'i1' });
      expect(
        (await api.call('POST', '/api/v2/dag-runs', { spec, dagRunId: 'i2', singleton: true })).body,
      ).toMatchObject({
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
}

/** What the API does to a run: stop, retry, step status edits, reschedule, dequeue, sub runs, logs. */
export function describeRunOperations(stack: RoutesStackRef): void {
  describe('operations on runs', () => {
    let api: ContractClient;
    let ns: string;
    let kube: KubedagClients;
    let getRun: RoutesStack['getRun'];
    let setStatus: RoutesStack['setStatus'];
    beforeAll(() => {
      ({ api, ns, kube, getRun, setStatus } = stack());
    });

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
      expect(
        (await api.call('PATCH', '/api/v2/dag-runs/etl/p1/steps/extract/status', { status: 4 })).body,
      ).toMatchObject({ code: 'bad_request' });
      await setStatus(
        'etl',
        'p1',
        finishedStatus(2, 'failed', [
          { name: 'extract', status: 2, statusLabel: 'failed' },
          { name: 'load', status: 3, statusLabel: 'canceled' },
        ]),
      );
      expect((await api.call('PATCH', '/api/v2/dag-runs/etl/p1/steps/ghost/status', { status: 4 })).body).toMatchObject(
        {
          code: 'not_found',
        },
      );
      expect(
        (await api.call('PATCH', '/api/v2/dag-runs/etl/p1/steps/extract/status', { status: 6 })).body,
      ).toMatchObject({ code: 'bad_request' });
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
      expect(((await api.call('GET', '/api/v2/dag-runs?name=child')).body as { dagRuns: unknown[] }).dagRuns).toEqual(
        [],
      );
    });

    it('serves the run log, an empty chunk for a step without a log yet, and 404 for unknown steps', async () => {
      expect(
        ((await api.call('GET', '/api/v2/dag-runs/etl/p1/log?tail=1')).body as { content: string }).content,
      ).toMatch(/run p1 failed$/);
      expect((await api.call('GET', '/api/v2/dag-runs/etl/p1/steps/ghost/log')).body).toMatchObject({
        code: 'not_found',
      });
    });
  });
}

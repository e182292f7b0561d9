/**
 * The suite of apiserver-routes.test.ts about listings and the cluster's views: it reads the runs
 * the run suites left, so it runs after them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { KubedagClients } from '../../../core/kube/client.ts';
import { dagQueue } from '../../builders/dag-queue.ts';
import type { ContractClient } from '../api-support.ts';
import { waitFor } from '../support.ts';
import type { RoutesStack, RoutesStackRef } from './stack.ts';

/** Run listings, DAG details, queues and the cluster views, over the runs the earlier suites left. */
export function describeListings(stack: RoutesStackRef): void {
  describe('listings and cluster views', () => {
    let api: ContractClient;
    let ns: string;
    let kube: KubedagClients;
    let setStatus: RoutesStack['setStatus'];
    beforeAll(() => {
      ({ api, ns, kube, setStatus } = stack());
    });

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
          nodes: {
            step: { name: string; depends: string[] };
            status: number;
            statusLabel: string;
            startedAt: string;
          }[];
          onFailure: { step: { name: string }; status: number } | null;
          onExit: unknown;
        };
      };
      expect([latestDAGRun.dagRunId, latestDAGRun.status, latestDAGRun.statusLabel]).toEqual(['', 0, 'not_started']);
      expect(
        latestDAGRun.nodes.map((n) => [n.step.name, n.step.depends, n.status, n.statusLabel, n.startedAt]),
      ).toEqual([
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
      await kube.queues.create(ns, dagQueue('nightly').maxConcurrency(2).build());
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
}

/**
 * Two operator replicas sharing a leader Lease and a log store: the leader is killed
 * (SIGKILL) while queued and scheduled runs are in flight; the other takes over within the
 * Lease's duration and nothing is lost or started twice (node agent ledgers). The API server's
 * /services/scheduler and /health follow the Lease.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { minuteOf, scheduledRunId } from '../../operator/schedule/ticks.ts';
import type { Server } from '../../apiserver/server.ts';
import { readLedger } from '../../cluster/node-agent/ledger.ts';
import { startApi } from './api-support.ts';
import {
  finishedRun,
  givenDag,
  peakConcurrency,
  startOperator,
  runsOf,
  whenRun,
  type RunningOperator,
} from './operator-support.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';

const { core } = clients();
let ns = '';
const replicas: RunningOperator[] = [];
let api: Server | undefined;

beforeAll(async () => {
  ns = await createNamespace(core, 'kd-ha');
});

afterAll(async () => {
  await api?.close();
  await Promise.all(replicas.map((r) => r.stop()));
  await deleteNamespace(core, ns);
});

/** The scheduler the API server shows: instance id and status. */
async function shownScheduler(server: Server): Promise<{ instanceId: string; status: string } | undefined> {
  const body = (await server.app.inject({ method: 'GET', url: '/api/v2/services/scheduler' })).json<{
    schedulers: { instanceId: string; status: string }[];
  }>();
  return body.schedulers[0];
}

describe('two operator replicas', () => {
  it('fail over within 15 s when the leader dies, losing and doubling nothing', async () => {
    const logDir = mkdtempSync(join(tmpdir(), 'kd-ha-logs-'));
    const leader = await startOperator(ns, logDir);
    const standby = await startOperator(ns, logDir, [], false);
    replicas.push(leader, standby);
    expect(standby.output()).not.toContain('leading:');
    api = await startApi(ns);
    const server = api;
    await waitFor(
      'the API server to see the leader',
      async () => (await shownScheduler(server))?.instanceId.endsWith(`_${String(leader.process.pid)}`) === true,
      10_000,
      100,
    );
    expect((await server.app.inject({ method: 'GET', url: '/api/v2/health' })).statusCode).toBe(200);

    await givenDag(ns, 'steady', 'maxActiveRuns: 2\nsteps: ["sleep 2"]');
    await givenDag(ns, 'ticker', 'schedule: "* * * * *"\nsteps: [echo tick]');
    const names = Array.from({ length: 16 }, (_, i) => `steady-${String(i).padStart(2, '0')}`);
    // Timed so that the runs (16 x 2 s, two at a time) are still going when the leader dies
    // a few seconds before the next minute boundary.
    await waitFor(
      'second 38 of a minute',
      () => Promise.resolve(Date.now() % 60_000 >= 38_000 && Date.now() % 60_000 < 42_000),
      61_000,
      100,
    );
    await Promise.all(names.map((name) => whenRun(ns, name, 'steady', { enqueue: true })));
    await waitFor(
      'a few runs to finish',
      async () => (await runsOf(ns, 'steady')).filter((r) => r.status?.finishedAt !== undefined).length >= 1,
      60_000,
      100,
    );

    // Killed a few seconds before a minute boundary, so the takeover straddles a schedule tick.
    await waitFor('the last seconds of a minute', () => Promise.resolve(Date.now() % 60_000 >= 52_000), 61_000, 200);
    const killed = Date.now();
    const boundary = new Date(minuteOf(new Date(killed)).getTime() + 60_000);
    await leader.stop('SIGKILL');
    await waitFor('the standby to lead', () => Promise.resolve(standby.output().includes('leading:')), 30_000, 100);
    // The Lease lasts 10 s (the default); the standby retries every 2 s.
    expect(Date.now() - killed).toBeLessThan(15_000);
    await waitFor(
      'the API server to show the new leader',
      async () => {
        const shown = await shownScheduler(server);
        return shown?.instanceId.endsWith(`_${String(standby.process.pid)}`) === true && shown.status === 'active';
      },
      10_000,
      100,
    );
    expect((await server.app.inject({ method: 'GET', url: '/api/v2/health' })).statusCode).toBe(200);

    const done = await Promise.all(names.map((name) => finishedRun(ns, name, 120_000)));
    expect(done.map((r) => r.status?.statusLabel)).toEqual(names.map(() => 'succeeded'));
    expect(done.filter((r) => Date.parse(r.status?.finishedAt ?? '') > killed).length).toBeGreaterThan(2);
    const starts = inject('cluster')
      .nodes.flatMap((node) => readLedger(node.ledger))
      .filter((e) => e.namespace === ns && e.event === 'start' && e.container === 'step');
    const perPod = new Map<string, number>();
    for (const s of starts) perPod.set(s.pod, (perPod.get(s.pod) ?? 0) + 1);
    expect([...perPod.values()].filter((n) => n > 1)).toEqual([]);
    expect(peakConcurrency(ns, (pod) => pod.startsWith('steady-'))).toBeLessThanOrEqual(2);
    // The minute that began while nobody led is evaluated by the new leader when it takes over.
    const missed = scheduledRunId('scheduled', boundary);
    await waitFor(
      `the ${missed} run`,
      async () => (await runsOf(ns, 'ticker')).some((r) => r.spec.dagRunId === missed),
      20_000,
      100,
    );
    const ticks = (await runsOf(ns, 'ticker')).map((r) => r.spec.dagRunId ?? '');
    expect(new Set(ticks).size).toBe(ticks.length);
  });
});

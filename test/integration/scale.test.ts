/**
 * The reduced variant of `make bench-scale` (issue 23), asserted without timings: a big run's
 * finished step records leave its DAGRun in sealed DAGRunSegments, so no version of the
 * DAGRun grows with the run and the bytes written per finished step stay bounded; the API
 * still answers every step in the contract's shape; a stop ends a big run. 300 graph steps and
 * a 60-step chain keep it to a couple of minutes here; the benchmark runs 10,000.
 */
import { Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stepSegmentName } from '../../core/resources/names.ts';
import { SEAL_RECORDS, SEGMENT_BYTES } from '../../core/resources/run-records.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import type { Server } from '../../apiserver/server.ts';
import { bigDagYaml } from '../../bench/scale-runs.ts';
import { dagRun } from '../builders/dag-run.ts';
import { dagRunSegment } from '../builders/dag-run-segment.ts';
import { startApi } from './api-support.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';
import {
  finishedRun,
  getRun,
  givenDag,
  startOperator,
  stepStates,
  stopRun,
  whenRun,
  type RunningOperator,
} from './operator-support.ts';

const { kc, core, kube } = clients();
let ns = '';
let operator: RunningOperator;
let api: Server;

beforeAll(async () => {
  ns = await createNamespace(core, 'bigrun');
  operator = await startOperator(ns);
  api = await startApi(ns);
});

afterAll(async () => {
  await api.close();
  await operator.stop();
  await deleteNamespace(core, ns);
});

/** The budgets: any object that changes while a run runs, and bytes written per finished step. */
const OBJECT_BUDGET = 256 * 1024;
const STEP_BUDGET = 8 * 1024;
const STEPS = 300;
const CHAIN = 60;

interface Versions {
  largest: number;
  written: number;
  count: number;
}

/** Every version of one DAGRun written while `work` runs: the largest, their bytes, their count. */
async function versionsWhile(name: string, work: () => Promise<unknown>): Promise<Versions> {
  const seen: Versions = { largest: 0, written: 0, count: 0 };
  let last = '';
  const abort = await new Watch(kc).watch(
    kube.runs.path(ns),
    { fieldSelector: `metadata.name=${name}` },
    (_type, run: DagRunResource) => {
      if (run.metadata?.resourceVersion === last) return;
      last = run.metadata?.resourceVersion ?? '';
      const bytes = Buffer.byteLength(JSON.stringify(run));
      seen.largest = Math.max(seen.largest, bytes);
      seen.written += bytes;
      seen.count += 1;
    },
    () => undefined,
  );
  try {
    await work();
  } finally {
    abort.abort();
  }
  return seen;
}

async function segmentsOf(run: DagRunResource): Promise<{ index: number; bytes: number; records: number }[]> {
  const list = await kube.segments.list(ns);
  return list.items
    .filter(
      (s) =>
        s.metadata?.ownerReferences?.some((o) => o.uid === run.metadata?.uid) === true && s.spec.nodes !== undefined,
    )
    .map((s) => ({
      index: s.spec.index ?? 0,
      bytes: Buffer.byteLength(JSON.stringify(s)),
      records: s.spec.nodes?.length ?? 0,
    }));
}

describe(`a graph run of ${String(STEPS)} independent steps`, () => {
  it('finishes with every step succeeded, its finished records sealed in segments, and its DAGRun small at every version', async () => {
    await givenDag(ns, 'wide', bigDagYaml('graph', STEPS));
    let done: DagRunResource | undefined;
    const versions = await versionsWhile('wide-run', async () => {
      await whenRun(ns, 'wide-run', 'wide');
      done = await finishedRun(ns, 'wide-run', 180_000);
    });
    const run = done as DagRunResource;
    expect(run.status?.statusLabel).toBe('succeeded');
    expect(run.status?.progress).toBe(`${String(STEPS)}/${String(STEPS)}`);
    expect(Object.values(stepStates(run)).filter((s) => s === 'succeeded')).toHaveLength(STEPS);
    const stored = await kube.runs.get(ns, 'wide-run');
    expect(stored.status?.nodes?.length ?? 0).toBeLessThan(SEAL_RECORDS);
    const segments = await segmentsOf(run);
    expect(segments.length).toBe(stored.status?.sealed);
    expect(segments.reduce((sum, s) => sum + s.records, 0) + (stored.status?.nodes?.length ?? 0)).toBe(STEPS);
    for (const segment of segments) expect(segment.bytes).toBeLessThan(SEGMENT_BYTES + 4096);
    // Before segments, this run's DAGRun reached ~120 KiB and kept growing with the run.
    expect(versions.largest).toBeLessThan(OBJECT_BUDGET / 4);
    expect(versions.written / STEPS).toBeLessThan(STEP_BUDGET);
  }, 200_000);

  it('is answered whole by the API: every step in the run details and the run log, a sealed step edited', async () => {
    const id = (await getRun(ns, 'wide-run')).spec.dagRunId ?? '';
    await waitFor(
      'the API server to show the run',
      async () => (await api.app.inject({ method: 'GET', url: `/api/v2/dag-runs/wide/${id}` })).statusCode === 200,
      10_000,
    );
    const details = await api.app.inject({ method: 'GET', url: `/api/v2/dag-runs/wide/${id}` });
    expect(details.statusCode).toBe(200);
    const nodes = details.json<{
      dagRunDetails: { nodes: { step: { name: string }; status: number; statusLabel: string }[] };
    }>().dagRunDetails.nodes;
    expect(nodes).toHaveLength(STEPS);
    expect(nodes.every((n) => n.statusLabel === 'succeeded')).toBe(true);
    expect(nodes[0]?.step.name).toBe('s00001');
    const log = await api.app.inject({ method: 'GET', url: `/api/v2/dag-runs/wide/${id}/log` });
    expect(log.json<{ content: string }>().content).toContain('step s00001 succeeded');
    const edited = await api.app.inject({
      method: 'PATCH',
      url: `/api/v2/dag-runs/wide/${id}/steps/s00001/status`,
      payload: { status: 2 },
    });
    expect(edited.statusCode).toBe(200);
    await waitFor(
      'the edit of a sealed step to show',
      async () => (await getRun(ns, 'wide-run')).status?.nodes?.find((n) => n.name === 's00001')?.status === 2,
      10_000,
    );
    await waitFor(
      'the API server to show the edit',
      async () => {
        const seen = await api.app.inject({ method: 'GET', url: `/api/v2/dag-runs/wide/${id}` });
        return seen.json<{ dagRunDetails: { nodes: { status: number }[] } }>().dagRunDetails.nodes[0]?.status === 2;
      },
      10_000,
    );
    const after = await api.app.inject({ method: 'GET', url: `/api/v2/dag-runs/wide/${id}` });
    const states = after.json<{ dagRunDetails: { nodes: { step: { name: string }; status: number }[] } }>()
      .dagRunDetails.nodes;
    expect(states.filter((n) => n.status === 2).map((n) => n.step.name)).toEqual(['s00001']);
    expect(states).toHaveLength(STEPS);
  }, 60_000);

  it('takes its segments along when it is deleted (they are owned by the run)', async () => {
    const run = await kube.runs.get(ns, 'wide-run');
    expect((await segmentsOf(run)).length).toBeGreaterThan(0);
    await kube.runs.delete(ns, 'wide-run');
    await waitFor(
      'the segments of wide-run to be collected',
      async () => (await segmentsOf(run)).length === 0,
      60_000,
      500,
    );
  }, 90_000);

  it('ends on stop while many of its steps run, leaving none running', async () => {
    const yaml = bigDagYaml('graph', STEPS)
      .replace('maxActiveSteps: 100', 'maxActiveSteps: 20')
      .replaceAll('command: "true"', 'command: "sleep 60"');
    await givenDag(ns, 'wide-sleepy', yaml);
    await whenRun(ns, 'wide-sleepy-run', 'wide-sleepy');
    await waitFor(
      'steps of wide-sleepy-run to run',
      async () =>
        Object.values(stepStates(await getRun(ns, 'wide-sleepy-run'))).filter((s) => s === 'running').length >= 5,
      60_000,
      250,
    );
    await stopRun(ns, 'wide-sleepy-run');
    const done = await finishedRun(ns, 'wide-sleepy-run', 60_000);
    expect(done.status?.statusLabel).toBe('canceled');
    const states = Object.values(stepStates(done));
    expect(states.filter((s) => s === 'running')).toEqual([]);
    expect(states.filter((s) => s === 'canceled').length).toBeGreaterThan(0);
  }, 120_000);
});

describe('a segment left by a write whose status was lost', () => {
  it('is found when its name is taken, and the status records sealed after it supersede its records', async () => {
    await givenDag(ns, 'crashy', bigDagYaml('graph', 40));
    const created = await kube.runs.create(
      ns,
      dagRun('crashy-run')
        .namespace(ns)
        .spec({ dagRef: { name: 'crashy' } })
        .build(),
    );
    // As if an operator sealed segment 0 and died before writing the status that names it; its
    // record of s00001 says something no status will say.
    const orphan = {
      name: 's00001',
      status: 2,
      statusLabel: 'failed',
      exitCode: 9,
      retryCount: 0,
      doneCount: 0,
      attempt: 0,
    };
    await kube.segments.create(
      ns,
      dagRunSegment(stepSegmentName('crashy-run', 0))
        .ownedBy('crashy-run', created.metadata?.uid ?? '')
        .steps(0, [orphan])
        .build(),
    );
    const done = await finishedRun(ns, 'crashy-run', 120_000);
    expect(done.status?.statusLabel).toBe('succeeded');
    expect(Object.values(stepStates(done)).filter((s) => s === 'succeeded')).toHaveLength(40);
    expect(done.status?.sealed).toBeGreaterThanOrEqual(2);
  }, 150_000);
});

describe(`a chain of ${String(CHAIN)} steps`, () => {
  it('writes a bounded number of bytes per finished step (one status write each, without the whole run in it)', async () => {
    await givenDag(ns, 'long', bigDagYaml('chain', CHAIN));
    let done: DagRunResource | undefined;
    const versions = await versionsWhile('long-run', async () => {
      await whenRun(ns, 'long-run', 'long');
      done = await finishedRun(ns, 'long-run', 180_000);
    });
    expect(done?.status?.statusLabel).toBe('succeeded');
    expect(Object.values(stepStates(done as DagRunResource)).filter((s) => s === 'succeeded')).toHaveLength(CHAIN);
    expect(versions.count).toBeGreaterThanOrEqual(CHAIN);
    expect(versions.written / CHAIN).toBeLessThan(STEP_BUDGET);
  }, 200_000);
});

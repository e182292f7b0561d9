/**
 * The history store contract, run against both stores on real databases (test/history-stores.ts:
 * SQLite in a temporary file, PostgreSQL started for this file): archiving is idempotent, a
 * run's details come back whole, every listing filter and the listings' order, sub runs, renames
 * and counts. Each test works in a namespace of its own. Scale, retention and several
 * processes are in store-scale.loopback.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../resources/constants.ts';
import { finished, stepRecord } from '../../test/builders/history-run.ts';
import { BACKEND_SETUP_MS, backends, type FreshDatabase } from '../../test/history-stores.ts';
import { HistoryStoreError } from './errors.ts';
import type { HistoryFilter, HistoryStore, HistorySummary, RunToArchive } from './types.ts';

const T0 = Date.UTC(2026, 10, 1);
const DAY = 86_400_000;

/** Every summary a listing yields, and the sizes of its pages. */
async function drain(
  pages: AsyncIterable<readonly HistorySummary[]>,
): Promise<{ runs: HistorySummary[]; sizes: number[] }> {
  const runs: HistorySummary[] = [];
  const sizes: number[] = [];
  for await (const page of pages) {
    sizes.push(page.length);
    runs.push(...page);
  }
  return { runs, sizes };
}

const names = (runs: readonly HistorySummary[]): string[] => runs.map((r) => `${r.dagName}/${r.dagRunId}`);

/** The listing fixture: ties in creation time, a sub run, a look-alike name, another namespace. */
function listingRuns(ns: string): RunToArchive[] {
  const run = (dag: string, id: string, at: number, status: number): RunToArchive =>
    finished(ns, dag, id).at(at).status(status).build();
  return [
    run('etl', 'r-001', T0, 4),
    run('etl', 'r-002', T0, 2),
    run('load', 'r-001', T0, 4),
    run('etl-daily', 'r-003', T0 + DAY, 4),
    run('load', 'r-004', T0 + 2 * DAY, 3),
    run('load', 'r-x05', T0 + 3 * DAY, 4),
    run('ETL', 'r-006', T0 + 4 * DAY, 4),
    run('50%_off', 'r-007', T0 + 5 * DAY, 6),
    finished(ns, 'extract', 's-001')
      .at(T0 + 6 * DAY)
      .child(['etl', 'r-001'])
      .build(),
    finished(`${ns}-other`, 'etl', 'r-008')
      .at(T0 + 7 * DAY)
      .build(),
  ];
}

const EVERY_ROOT = [
  '50%_off/r-007',
  'ETL/r-006',
  'load/r-x05',
  'load/r-004',
  'etl-daily/r-003',
  'etl/r-001',
  'load/r-001',
  'etl/r-002',
];

const filterCases: { name: string; filter: Omit<HistoryFilter, 'namespace'>; want: string[] }[] = [
  {
    name: 'no filter lists every root run of the namespace, newest first, ties by run id then DAG name',
    filter: {},
    want: EVERY_ROOT,
  },
  {
    name: 'a name matches any part of the DAG name, case-sensitive',
    filter: { name: 'etl' },
    want: ['etl-daily/r-003', 'etl/r-001', 'etl/r-002'],
  },
  {
    name: 'an exact name matches that DAG only',
    filter: { name: 'etl', exactName: true },
    want: ['etl/r-001', 'etl/r-002'],
  },
  { name: 'an empty name filters nothing', filter: { name: '' }, want: EVERY_ROOT },
  { name: 'SQL wildcards in a name are plain characters', filter: { name: '%_' }, want: ['50%_off/r-007'] },
  { name: 'an underscore matches only an underscore', filter: { name: '_' }, want: ['50%_off/r-007'] },
  {
    name: 'a status matches that status only',
    filter: { status: 4 },
    want: ['ETL/r-006', 'load/r-x05', 'etl-daily/r-003', 'etl/r-001', 'load/r-001'],
  },
  { name: 'a status no run has matches nothing', filter: { status: 5 }, want: [] },
  {
    name: 'the start of a creation range is inclusive',
    filter: { createdFrom: T0 + 2 * DAY },
    want: ['50%_off/r-007', 'ETL/r-006', 'load/r-x05', 'load/r-004'],
  },
  {
    name: 'the end of a creation range is inclusive',
    filter: { createdTo: T0 + DAY },
    want: ['etl-daily/r-003', 'etl/r-001', 'load/r-001', 'etl/r-002'],
  },
  {
    name: 'a range of one instant matches the runs created then',
    filter: { createdFrom: T0 + 3 * DAY, createdTo: T0 + 3 * DAY },
    want: ['load/r-x05'],
  },
  { name: 'a run id matches any part of the id', filter: { dagRunId: 'x0' }, want: ['load/r-x05'] },
  {
    name: 'filters combine',
    filter: { name: 'load', status: 4, createdTo: T0 + 3 * DAY },
    want: ['load/r-x05', 'load/r-001'],
  },
  { name: 'a name no DAG has matches nothing', filter: { name: 'nothing' }, want: [] },
];

describe.each(backends())('the $name history store', (backend) => {
  let db: FreshDatabase;
  let store: HistoryStore;

  beforeAll(async () => {
    await backend.setup();
    db = await backend.fresh();
    store = await db.open();
    await store.put(listingRuns('listing'));
  }, BACKEND_SETUP_MS);
  afterAll(() => backend.teardown());

  describe('archiving', () => {
    it('is the store asked for', () => {
      expect(store.kind).toBe(backend.name);
    });

    it('keeps one copy of a run archived twice, as the later write has it', async () => {
      const run = finished('twice', 'etl', 'r1').at(T0);
      await store.put([run.build()]);
      await store.put([run.status(2).params('{"N":"2"}').build()]);
      const { runs } = await drain(store.list({ namespace: 'twice' }));
      expect(runs).toMatchObject([
        { dagName: 'etl', dagRunId: 'r1', status: 2, statusLabel: 'failed', params: '{"N":"2"}' },
      ]);
      expect(await db.scalar(`SELECT COUNT(*) FROM history_runs WHERE namespace = 'twice'`)).toBe(1);
      expect(await db.scalar('SELECT COUNT(*) FROM history_run_bodies')).toBe(
        await db.scalar('SELECT COUNT(*) FROM history_runs'),
      );
    });

    it('writes a root run with its sub runs again after a crash before its DAGRun went, losing and duplicating nothing', async () => {
      const family = [
        finished('crash', 'etl', 'root').at(T0).build(),
        finished('crash', 'extract', 'sub-1')
          .at(T0 + 1_000)
          .child(['etl', 'root'])
          .build(),
        finished('crash', 'extract', 'sub-2')
          .at(T0 + 2_000)
          .child(['extract', 'sub-1'], ['etl', 'root'])
          .build(),
      ];
      await store.put(family);
      await store.put(family);
      expect(names((await drain(store.list({ namespace: 'crash' }))).runs)).toEqual(['etl/root']);
      expect(names((await drain(store.subRuns('crash', { name: 'etl', dagRunId: 'root' }))).runs)).toEqual([
        'extract/sub-2',
        'extract/sub-1',
      ]);
      expect(await db.scalar(`SELECT COUNT(*) FROM history_runs WHERE namespace = 'crash'`)).toBe(3);
    });

    it('gives back a run whole: every step record handed over, handlers, the frozen definition, labels and annotations', async () => {
      const definition = {
        name: 'big',
        steps: Array.from({ length: 10_000 }, (_, i) => ({
          name: `step-${String(i).padStart(5, '0')}`,
          command: 'true',
        })),
      };
      const input = finished('whole', 'big', 'r1')
        .at(T0)
        .steps(10_000)
        .frozen(definition)
        .resource((r) =>
          r
            .label({ team: 'data' })
            .annotate({ [ANNOTATIONS.traceparent]: '00-abc-def-01' })
            .status({ onExit: stepRecord('cleanup'), progress: '10000/10000', nodes: [stepRecord('step-09999')] }),
        )
        .build();
      await store.put([input]);
      const got = await store.run({ namespace: 'whole', dagName: 'big', dagRunId: 'r1' });
      expect(got?.resource.status?.nodes).toHaveLength(10_000);
      expect(got?.resource.status?.nodes).toEqual(input.nodes);
      expect(got?.resource.status).toMatchObject({
        onExit: stepRecord('cleanup'),
        progress: '10000/10000',
        finishedAt: input.run.status?.finishedAt,
      });
      expect(got?.resource.spec.snapshot).toEqual(definition);
      expect(got?.resource.metadata).toMatchObject({
        name: input.run.metadata?.name,
        uid: 'uid-r1',
        labels: { team: 'data' },
        annotations: { [ANNOTATIONS.traceparent]: '00-abc-def-01' },
      });
      expect(got).toMatchObject({
        resourceName: input.run.metadata?.name,
        uid: 'uid-r1',
        createdAt: new Date(T0).toISOString(),
        startedAt: '2026-11-01T00:00:01Z',
      });
    });

    it('answers a summary alone without the body, and nothing for a run never archived', async () => {
      await store.put([finished('summary', 'etl', 'r1').at(T0).steps(3).build()]);
      const summary = await store.summary({ namespace: 'summary', dagName: 'etl', dagRunId: 'r1' });
      expect(summary).toEqual({
        namespace: 'summary',
        dagName: 'etl',
        dagRunId: 'r1',
        resourceName: 'etl-r1',
        uid: 'uid-r1',
        status: 4,
        statusLabel: 'succeeded',
        createdAt: '2026-11-01T00:00:00.000Z',
        queuedAt: '2026-11-01T00:00:00Z',
        startedAt: '2026-11-01T00:00:01Z',
        finishedAt: '2026-11-01T00:01:01Z',
        params: '',
        root: { name: 'etl', dagRunId: 'r1' },
      });
      expect(await store.summary({ namespace: 'summary', dagName: 'etl', dagRunId: 'nope' })).toBeUndefined();
      expect(await store.run({ namespace: 'summary', dagName: 'other', dagRunId: 'r1' })).toBeUndefined();
    });

    it('refuses a run without a namespace, a DAG name or a run id, and says retrying will not help', async () => {
      const noName = { ...finished('refused', 'etl', 'r1').build(), dagName: '' };
      const error = await store.put([noName]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HistoryStoreError);
      expect(error).toMatchObject({ retryable: false });
    });
  });

  describe('listings', () => {
    it.each(filterCases)('$name', async ({ filter, want }) => {
      expect(names((await drain(store.list({ namespace: 'listing', ...filter }))).runs)).toEqual(want);
    });

    it.each(filterCases)('page by page, the same: $name', async ({ filter, want }) => {
      const { runs, sizes } = await drain(store.list({ namespace: 'listing', ...filter }, { pageSize: 2 }));
      expect(names(runs)).toEqual(want);
      expect(sizes.every((size) => size >= 1 && size <= 2)).toBe(true);
      expect(sizes).toHaveLength(Math.ceil(want.length / 2));
    });

    it("gives a DAG's latest run and its newest runs up to a limit, root runs only", async () => {
      expect(await store.latest('listing', 'etl')).toMatchObject({ dagName: 'etl', dagRunId: 'r-001' });
      expect(names(await store.runsOf('listing', 'load', 2))).toEqual(['load/r-x05', 'load/r-004']);
      expect(names(await store.runsOf('listing', 'load', 0))).toEqual([]);
      expect(await store.latest('listing', 'extract')).toBeUndefined();
    });

    it('finds runs by id across DAGs, sub runs included', async () => {
      expect(names(await store.withRunId('listing', 'r-001'))).toEqual(['etl/r-001', 'load/r-001']);
      expect(await store.withRunId('listing', 's-001')).toMatchObject([
        { dagName: 'extract', parent: { name: 'etl', dagRunId: 'r-001' }, root: { name: 'etl', dagRunId: 'r-001' } },
      ]);
    });

    it('lists the sub runs of a root at any depth, page by page, and nothing for a root without any', async () => {
      const root = finished('subs', 'etl', 'root').at(T0).build();
      const subs = Array.from({ length: 5 }, (_, i) =>
        finished('subs', 'extract', `sub-${String(i)}`)
          .at(T0 + i * 1_000)
          .child(i === 0 ? ['etl', 'root'] : ['extract', 'sub-0'], ['etl', 'root'])
          .build(),
      );
      await store.put([root, ...subs, finished('subs', 'extract', 'stranger').at(T0).child(['etl', 'other']).build()]);
      const { runs, sizes } = await drain(store.subRuns('subs', { name: 'etl', dagRunId: 'root' }, { pageSize: 2 }));
      expect(names(runs)).toEqual([
        'extract/sub-4',
        'extract/sub-3',
        'extract/sub-2',
        'extract/sub-1',
        'extract/sub-0',
      ]);
      expect(sizes).toEqual([2, 2, 1]);
      expect((await drain(store.subRuns('subs', { name: 'etl', dagRunId: 'none' }))).runs).toEqual([]);
    });
  });

  describe('renames and counts', () => {
    it("relists a DAG's root runs under the new name with their sub runs, keeping a run whose id the new name has taken", async () => {
      await store.put([
        finished('rename', 'old', 'r1').at(T0).build(),
        finished('rename', 'old', 'r2')
          .at(T0 + 1_000)
          .build(),
        finished('rename', 'child', 'c1').at(T0).child(['old', 'r1']).build(),
        finished('rename', 'new', 'r2').at(T0).build(),
      ]);
      expect(await store.relist('rename', 'old', 'new')).toBe(1);
      expect(names((await drain(store.list({ namespace: 'rename' }))).runs)).toEqual(['old/r2', 'new/r1', 'new/r2']);
      expect(names((await drain(store.subRuns('rename', { name: 'new', dagRunId: 'r1' }))).runs)).toEqual(['child/c1']);
      expect((await store.summary({ namespace: 'rename', dagName: 'child', dagRunId: 'c1' }))?.parent).toEqual({
        name: 'new',
        dagRunId: 'r1',
      });
      const moved = await store.run({ namespace: 'rename', dagName: 'new', dagRunId: 'r1' });
      expect(moved?.resource.metadata?.annotations?.[ANNOTATIONS.dagName]).toBe('new');
      expect(moved?.resource.spec.dagName).toBe('old');
    });

    it('counts root runs by DAG and status', async () => {
      expect(await store.counts('listing')).toEqual([
        { dagName: '50%_off', status: 6, runs: 1 },
        { dagName: 'ETL', status: 4, runs: 1 },
        { dagName: 'etl', status: 2, runs: 1 },
        { dagName: 'etl', status: 4, runs: 1 },
        { dagName: 'etl-daily', status: 4, runs: 1 },
        { dagName: 'load', status: 3, runs: 1 },
        { dagName: 'load', status: 4, runs: 2 },
      ]);
      expect(await store.counts('nobody-here')).toEqual([]);
    });

    it('names every namespace and DAG with runs, a DAG with sub runs only among them, in order', async () => {
      const fresh = await (await backend.fresh()).open();
      expect(await fresh.dagsWithRuns()).toEqual([]);
      await fresh.put([
        finished('b-ns', 'etl', 'r1').at(T0).build(),
        finished('b-ns', 'extract', 's1').at(T0).child(['etl', 'r1']).build(),
      ]);
      await fresh.put([finished('a-ns', 'etl', 'r2').at(T0).build(), finished('a-ns', 'etl', 'r3').at(T0).build()]);
      expect(await fresh.dagsWithRuns()).toEqual([
        { namespace: 'a-ns', dagName: 'etl' },
        { namespace: 'b-ns', dagName: 'etl' },
        { namespace: 'b-ns', dagName: 'extract' },
      ]);
    });
  });
});

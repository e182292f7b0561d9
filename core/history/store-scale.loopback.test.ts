/**
 * The history store contract at size and across processes, against both stores on real
 * databases: 20,000 runs stream page by page in bounded memory, listing filters are answered
 * from indexes, retention deletes in batches, and a database keeps its runs across a restart
 * and shows one store's writes to another (two replicas). No timings: behaviours only.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../cluster/processes.ts';
import { finished } from '../../test/builders/history-run.ts';
import { BACKEND_SETUP_MS, backends, type FreshDatabase } from '../../test/history-stores.ts';
import { HistoryStoreError } from './errors.ts';
import { openPostgresStore } from './postgres.ts';
import { pruneHistory } from './retention.ts';
import { POSTGRES, SQLITE, pageQuery, type ListScope } from './sql.ts';
import type { HistoryFilter, HistoryStore, HistorySummary, RunKey, RunToArchive } from './types.ts';

const T0 = Date.UTC(2026, 10, 1);
const RUNS = 20_000;
const DAGS = 40;
const PAGE = 500;

// A full collection between pages makes the heap show what is still referenced, not garbage.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
const heapUsed = (): number => {
  collect();
  return process.memoryUsage().heapUsed;
};

/** 20,000 root runs of 40 DAGs, three created in each second (ties the order must break). */
function manyRuns(ns: string): RunToArchive[] {
  return Array.from({ length: RUNS }, (_, i) =>
    finished(ns, `dag-${String(i % DAGS).padStart(2, '0')}`, `run-${String(i).padStart(5, '0')}`)
      .at(T0 + Math.floor(i / 3) * 1_000)
      .status(i % 7 === 0 ? 2 : 4)
      .build(),
  );
}

async function putInBatches(store: HistoryStore, runs: readonly RunToArchive[], size = 1_000): Promise<void> {
  for (let i = 0; i < runs.length; i += size) await store.put(runs.slice(i, i + size));
}

/** Whether `b` comes after `a` in the listings' order: newer first, then run id, then DAG name. */
function after(a: HistorySummary, b: HistorySummary): boolean {
  const [ta, tb] = [Date.parse(a.createdAt), Date.parse(b.createdAt)];
  if (ta !== tb) return tb < ta;
  if (a.dagRunId !== b.dagRunId) return b.dagRunId > a.dagRunId;
  return b.dagName > a.dagName;
}

describe.each(backends())('the $name history store at size', (backend) => {
  let db: FreshDatabase;
  let store: HistoryStore;

  beforeAll(async () => {
    await backend.setup();
    db = await backend.fresh();
    store = await db.open();
    await putInBatches(store, manyRuns('stream'));
  }, BACKEND_SETUP_MS);
  afterAll(() => backend.teardown());

  it('streams 20,000 runs in pages of 500, in order, each fetched only when asked for, holding one page at a time', async () => {
    const baseline = heapUsed();
    let peak = 0;
    const sizes: number[] = [];
    const seen = new Set<string>();
    let previous: HistorySummary | undefined;
    let last: HistorySummary | undefined;
    for await (const page of store.list({ namespace: 'stream' }, { pageSize: PAGE })) {
      sizes.push(page.length);
      // Archived after the first page was read, and older than every run: a listing that had
      // read ahead would not show it; one that reads a page when asked shows it last.
      if (sizes.length === 1)
        await store.put([
          finished('stream', 'late', 'run-late')
            .at(T0 - 60_000)
            .build(),
        ]);
      for (const run of page) {
        if (previous !== undefined) expect(after(previous, run)).toBe(true);
        previous = run;
        seen.add(`${run.dagName}/${run.dagRunId}`);
      }
      last = page.at(-1);
      peak = Math.max(peak, heapUsed() - baseline);
    }
    expect(sizes).toEqual([...Array<number>(RUNS / PAGE).fill(PAGE), 1]);
    expect(seen.size).toBe(RUNS + 1);
    expect(last?.dagRunId).toBe('run-late');

    const held: HistorySummary[] = [];
    for await (const page of store.list({ namespace: 'stream' }, { pageSize: PAGE })) held.push(...page);
    const all = heapUsed() - baseline;
    expect(held).toHaveLength(RUNS + 1);
    // One page is 1/40 of the runs; a listing that built all of them at once would reach `all`.
    expect(peak).toBeLessThan(all / 4);
  }, 300_000);

  it.each<{ name: string; filter: Omit<HistoryFilter, 'namespace'>; index: string }>([
    { name: 'no filter', filter: {}, index: 'history_runs_created' },
    { name: 'an exact DAG name', filter: { name: 'dag-07', exactName: true }, index: 'history_runs_dag' },
    { name: 'a status', filter: { status: 2 }, index: 'history_runs_status' },
    {
      name: 'a day',
      filter: { createdFrom: T0 + 86_400_000 / 8, createdTo: T0 + 86_400_000 / 4 },
      index: 'history_runs_created',
    },
    { name: 'a part of a DAG name', filter: { name: 'g-0' }, index: 'history_runs_' },
    { name: 'a part of a run id', filter: { dagRunId: '123' }, index: 'history_runs_' },
  ])('answers a listing by $name from an index, never a scan of the table', async ({ filter, index }) => {
    const scope: ListScope = { roots: { namespace: 'stream', ...filter } };
    const dialect = backend.name === 'sqlite' ? SQLITE : POSTGRES;
    for (const cursor of [undefined, { createdMs: T0 + 3_000_000, dagRunId: 'run-09000', dagName: 'dag-00' }]) {
      const plan = await db.plan(pageQuery(dialect, scope, cursor, PAGE));
      // PostgreSQL's planner weighs its indexes by statistics (500 runs of one DAG may come
      // quicker through another index and a sort); SQLite's choice is fixed by the schema.
      expect(plan).toContain(backend.name === 'sqlite' ? index : 'history_runs_');
      expect(plan).not.toMatch(/Seq Scan|SCAN history_runs(?! USING)/);
    }
  });

  it('deletes the runs of a DAG that finished before a cutoff in batches, showing each batch before it goes', async () => {
    const cutoff = T0 + 1_100 * 60_000;
    const runs = Array.from({ length: 1_200 }, (_, i) =>
      finished('retention', 'etl', `r-${String(i).padStart(4, '0')}`)
        .at(T0)
        .finishedAt(T0 + i * 60_000)
        .build(),
    );
    const others = Array.from({ length: 50 }, (_, i) =>
      finished('retention', 'load', `r-${String(i)}`)
        .at(T0)
        .finishedAt(T0)
        .build(),
    );
    await putInBatches(store, [...runs, ...others]);
    const batches: RunKey[][] = [];
    const result = await pruneHistory(store, {
      namespace: 'retention',
      dagName: 'etl',
      finishedBefore: cutoff,
      batchSize: 500,
      beforeDelete: async (batch) => {
        batches.push([...batch]);
        // Still there: the operator removes their logs here, before the runs go.
        expect(await store.summary(batch[0] as RunKey)).toBeDefined();
        expect(await store.summary(batch.at(-1) as RunKey)).toBeDefined();
      },
    });
    expect(result).toEqual({ removed: 1_100, batches: 3 });
    expect(batches.map((b) => b.length)).toEqual([500, 500, 100]);
    expect(batches[0]?.[0]).toEqual({ namespace: 'retention', dagName: 'etl', dagRunId: 'r-0000' });
    const left = await store.runsOf('retention', 'etl', 1_000);
    expect(left).toHaveLength(100);
    expect(left.every((r) => Date.parse(r.finishedAt) >= cutoff)).toBe(true);
    expect(await store.runsOf('retention', 'load', 1_000)).toHaveLength(50);
    // Bodies go with their runs.
    expect(await db.scalar('SELECT COUNT(*) FROM history_run_bodies')).toBe(
      await db.scalar('SELECT COUNT(*) FROM history_runs'),
    );
    expect(await store.remove([])).toBe(0);
  }, 120_000);
});

describe.each(backends())('the $name history store across processes', (backend) => {
  beforeAll(() => backend.setup(), BACKEND_SETUP_MS);
  afterAll(() => backend.teardown());

  it('keeps its runs when opened again, and makes its schema once', async () => {
    const db = await backend.fresh();
    const first = await db.open();
    await first.put([finished('restart', 'etl', 'r1').at(T0).steps(20).build()]);
    await first.close();
    const again = await db.open();
    expect(
      (await again.run({ namespace: 'restart', dagName: 'etl', dagRunId: 'r1' }))?.resource.status?.nodes,
    ).toHaveLength(20);
    expect(await db.scalar('SELECT COUNT(*) FROM kubedag_history_schema')).toBe(1);
  });

  it("shows one store's writes to another on the same database, and two archiving one run at once leave one row", async () => {
    const db = await backend.fresh();
    const [a, b] = await Promise.all([db.open(), db.open()]);
    expect(await db.scalar('SELECT COUNT(*) FROM kubedag_history_schema')).toBe(1);
    await a.put([finished('shared', 'etl', 'r1').at(T0).build()]);
    expect(await b.latest('shared', 'etl')).toMatchObject({ dagRunId: 'r1' });
    expect(await b.relist('shared', 'etl', 'etl-v2')).toBe(1);
    expect(await a.latest('shared', 'etl-v2')).toMatchObject({ dagRunId: 'r1' });
    const same = finished('shared', 'load', 'r2').at(T0).steps(50);
    await Promise.all([
      a.put([same.build()]),
      b.put([same.status(2).build()]),
      a.put([same.build()]),
      b.put([same.build()]),
    ]);
    expect(await db.scalar(`SELECT COUNT(*) FROM history_runs WHERE namespace = 'shared' AND dag_name = 'load'`)).toBe(
      1,
    );
    expect(
      (await a.run({ namespace: 'shared', dagName: 'load', dagRunId: 'r2' }))?.resource.status?.nodes,
    ).toHaveLength(50);
  });

  it('refuses a database whose schema is newer than it knows, and says retrying will not help', async () => {
    const db = await backend.fresh();
    await (await db.open()).close();
    await db.exec('INSERT INTO kubedag_history_schema (version) VALUES (99)');
    const error = await db.open().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HistoryStoreError);
    expect(error).toMatchObject({ retryable: false, message: expect.stringContaining('version 99') as unknown });
  });

  it.runIf(backend.name === 'postgres')('says a server that does not answer may answer later', async () => {
    const error = await openPostgresStore({
      url: `postgres://nobody:none@127.0.0.1:${String(await freePort())}/none`,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HistoryStoreError);
    expect(error).toMatchObject({ retryable: true });
  });
});

/**
 * Archiving finished runs into the history store on the real control plane, with both stores
 * (SQLite in a temporary file, a real PostgreSQL from test/postgres-server.ts): an operator
 * started with `--history-store` and a 3 s archive window moves finished runs out of etcd, and
 * the test reads the store as the API server would.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../cluster/processes.ts';
import { openHistoryStore, type HistoryStoreConfig } from '../../core/history/open.ts';
import type { HistoryStore, HistorySummary } from '../../core/history/types.ts';
import { statusCode } from '../../core/kube/errors.ts';
import { silentLogger } from '../../core/log.ts';
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import { parseConfig } from '../../operator/config.ts';
import { Operator } from '../../operator/operator.ts';
import type { Informer } from '../../core/kube/informer.ts';
import { systemClock } from '../../core/kube/time.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { HistoryArchiver } from '../../operator/history/archiver.ts';
import { OWED_RECHECK_MS } from '../../operator/history/decide.ts';
import { RETRY_ANNOTATION } from '../../operator/run/decide/retry-status.ts';
import { dagRun } from '../builders/dag-run.ts';
import { POSTGRES_SERVER_START_MS, startPostgres, type PostgresServer } from '../postgres-server.ts';
import { finishedRun, givenDag, startOperator, storedRun, whenRun, type RunningOperator } from './operator-support.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';

const { core, kube } = clients();
const WINDOW = '3s';

const nodeNames = (
  run: { readonly status?: { readonly nodes?: readonly { readonly name: string }[] } } | undefined,
): string[] => (run?.status?.nodes ?? []).map((n) => n.name).sort();

async function drain(pages: AsyncIterable<readonly HistorySummary[]>): Promise<HistorySummary[]> {
  const all: HistorySummary[] = [];
  for await (const page of pages) all.push(...page);
  return all;
}

/** A cache that holds exactly these objects, as an informer one read behind the server would. */
function cacheOf<T extends { readonly metadata?: { readonly namespace?: string; readonly name?: string } }>(
  objects: readonly T[],
): Informer<T> {
  const cache = {
    get: (namespace: string | undefined, name: string): T | undefined =>
      objects.find((o) => o.metadata?.namespace === namespace && o.metadata?.name === name),
    list: (namespace?: string): T[] =>
      objects.filter((o) => namespace === undefined || o.metadata?.namespace === namespace),
  };
  return cache as unknown as Informer<T>;
}

interface Backend {
  readonly name: 'sqlite' | 'postgres';
  /** The flags and variables that select the store, and its configuration for the test's own reads. */
  setup(
    dir: string,
  ): Promise<{ readonly args: string[]; readonly env: Record<string, string>; readonly config: HistoryStoreConfig }>;
  teardown(): Promise<void>;
}

let postgres: PostgresServer | undefined;
const backends: Backend[] = [
  {
    name: 'sqlite',
    setup: (dir) => {
      const path = join(dir, 'history.db');
      return Promise.resolve({
        args: ['--history-store=sqlite', `--history-sqlite-path=${path}`],
        env: {},
        config: { kind: 'sqlite', path },
      });
    },
    teardown: () => Promise.resolve(),
  },
  {
    name: 'postgres',
    setup: async () => {
      postgres = await startPostgres();
      const url = await postgres.database('archive');
      return {
        args: ['--history-store=postgres'],
        env: { KUBEDAG_HISTORY_POSTGRES_URL: url },
        config: { kind: 'postgres', url },
      };
    },
    teardown: async () => {
      await postgres?.stop();
    },
  },
];

/** Whether the DAGRun is gone from the API (404). */
async function gone(namespace: string, name: string): Promise<boolean> {
  return storedRun(namespace, name).then(
    () => false,
    (error: unknown) => {
      if (statusCode(error) === 404) return true;
      throw error;
    },
  );
}

// 17 parallel steps finish close together: more than SEAL_RECORDS (16), so records are sealed.
const WIDE = [
  'type: graph',
  'steps:',
  ...Array.from(
    { length: 17 },
    (_, i) => `  - {name: s${String(i + 1).padStart(2, '0')}, command: echo ${String(i + 1)}}`,
  ),
  '  - {name: call-child, call: child}',
  '---',
  'name: child',
  'steps:',
  '  - {name: greet, command: echo hello}',
].join('\n');

describe.each(backends)('archiving into the $name history store', (backend) => {
  let ns = '';
  let dir = '';
  let operator: RunningOperator | undefined;
  let ahead: Operator | undefined;
  let store: HistoryStore | undefined;
  let selected: Awaited<ReturnType<Backend['setup']>>;
  /** The store as the test reads it, beside the operator. */
  const db = (): HistoryStore => {
    if (store === undefined) throw new Error('the store is opened in beforeAll');
    return store;
  };

  beforeAll(async () => {
    ns = await createNamespace(core, `kd-arch-${backend.name.slice(0, 2)}`);
    dir = await mkdtemp(join(tmpdir(), 'kd-archive-'));
    selected = await backend.setup(dir);
    operator = await startOperator(
      ns,
      join(dir, 'logs'),
      [...selected.args, `--archive-after=${WINDOW}`],
      true,
      selected.env,
    );
    store = await openHistoryStore(selected.config);
  }, POSTGRES_SERVER_START_MS);

  afterAll(async () => {
    await operator?.stop();
    await ahead?.stop();
    await store?.close();
    await backend.teardown();
    await deleteNamespace(core, ns);
    await rm(dir, { recursive: true, force: true });
  });

  it('moves a finished run with its sub run and sealed records to the store, every record and definition with it, and deletes its DAGRuns', async () => {
    await givenDag(ns, 'wide', WIDE);
    await whenRun(ns, 'wide-1', 'wide');
    const done = await finishedRun(ns, 'wide-1');
    const dagRunId = done.spec.dagRunId ?? '';
    const names = (done.status?.nodes ?? []).map((n) => n.name).sort();
    expect(names).toHaveLength(18);
    await waitFor('wide-1 to leave etcd', () => gone(ns, 'wide-1'), 60_000, 200);

    const archived = await db().run({ namespace: ns, dagName: 'wide', dagRunId });
    expect(archived?.statusLabel).toBe('succeeded');
    // The DAGRun had sealed records into segments (its status counts them): all are back in one list.
    expect(archived?.resource.status?.sealed ?? 0).toBeGreaterThan(0);
    expect(nodeNames(archived?.resource)).toEqual(names);
    expect(archived?.resource.spec.snapshot).toMatchObject({ type: 'graph', localDags: [{ name: 'child' }] });
    const subs = await drain(db().subRuns(ns, { name: 'wide', dagRunId }));
    expect(subs.map((s) => [s.dagName, s.statusLabel])).toEqual([['child', 'succeeded']]);
    const sub = await db().run(subs[0] as HistorySummary);
    expect(nodeNames(sub?.resource)).toEqual(['greet']);
    expect(sub?.resource.spec.definition).toMatchObject({ name: 'child' });
    const left = (await kube.runs.list(ns)).items.filter(
      (r) => r.spec.dagName === 'wide' || r.spec.dagName === 'child',
    );
    expect(left).toEqual([]);
    // Logs stay in the log store, found by the run's key as before.
    expect(existsSync(join(dir, 'logs', ns, 'wide', dagRunId))).toBe(true);
    const metrics = await (await fetch(`${operator?.url ?? ''}/metrics`)).text();
    expect(metrics).toContain('kubedag_runs_archived_total{kind="root"} 1');
    expect(metrics).toContain('kubedag_runs_archived_total{kind="sub"} 1');
  });

  it("keeps the DAG status's latest run once the run has left etcd", async () => {
    const dag = await kube.dags.get(ns, 'wide');
    // A new generation makes the DAG reconciler write its status again, now without the run in etcd.
    await kube.dags.mergePatch(ns, 'wide', {
      metadata: { annotations: { 'test/touch': '1' } },
      spec: { ...dag.spec, description: 'touched' },
    });
    await waitFor(
      'the DAG status of the new generation',
      async () => (await kube.dags.get(ns, 'wide')).status?.observedGeneration === (dag.metadata?.generation ?? 0) + 1,
      30_000,
      200,
    );
    const status = (await kube.dags.get(ns, 'wide')).status;
    expect(status?.latestRun).toMatchObject({ resourceName: 'wide-1', statusLabel: 'succeeded' });
  });

  it('keeps a finished run while a sub run of it runs or something is owed, and archives both once they are done', async () => {
    await givenDag(ns, 'holder', 'steps: ["sleep 1"]');
    // The run id given, not left to the operator: the sub run names it before the run is frozen.
    const rootId = 'holder-1';
    await whenRun(ns, 'holder-1', 'holder', { dagRunId: rootId });
    // A sub run naming the root as parent and root (not owned by it: the root's own steps would
    // take an owned run for one of their attempts).
    await kube.runs.create(
      ns,
      dagRun('holder-sub')
        .namespace(ns)
        .spec({
          definition: { steps: ['sleep 12'] },
          dagName: 'slow',
          dagRunId: 'holder-sub',
          parent: { name: 'holder', dagRunId: rootId },
          root: { name: 'holder', dagRunId: rootId },
        })
        .build(),
    );
    // A restart tick's promise is owed too: the root keeps it after the sub run ends.
    await kube.runs.mergePatch(ns, 'holder-1', {
      metadata: { annotations: { [ANNOTATIONS.restartRunId]: 'restart-x' } },
    });
    await finishedRun(ns, 'holder-1');
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(await gone(ns, 'holder-1')).toBe(false);
    expect((await storedRun(ns, 'holder-sub')).status?.finishedAt).toBeUndefined();
    await finishedRun(ns, 'holder-sub', 30_000);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(await gone(ns, 'holder-1')).toBe(false);
    expect(await db().summary({ namespace: ns, dagName: 'holder', dagRunId: rootId })).toBeUndefined();
    await kube.runs.mergePatch(ns, 'holder-1', { metadata: { annotations: { [ANNOTATIONS.restartRunId]: null } } });
    await waitFor('holder-1 to leave etcd', () => gone(ns, 'holder-1'), 30_000, 200);
    expect((await drain(db().subRuns(ns, { name: 'holder', dagRunId: rootId }))).map((s) => s.dagRunId)).toEqual([
      'holder-sub',
    ]);
  });

  it('archives a run changed after it was read without deleting it, and then waits for the retry asked for', async () => {
    // A namespace no operator watches: the archiver is driven by hand, its cache one read behind.
    const quiet = await createNamespace(core, 'kd-arch-q');
    try {
      const spec = { dagName: 'changed', dagRunId: 'changed-1', definition: { steps: ['echo hi'] } };
      await kube.runs.create(quiet, dagRun('changed-1').namespace(quiet).spec(spec).build());
      const ended = new Date().toISOString();
      const read = await kube.runs.mergePatchStatus(quiet, 'changed-1', {
        status: { status: 4, statusLabel: 'succeeded', startedAt: ended, finishedAt: ended },
      });
      // After the read, a retry is asked for: the DAGRun moves on to a new resourceVersion.
      await kube.runs.mergePatch(quiet, 'changed-1', { metadata: { annotations: { [RETRY_ANNOTATION]: 'again' } } });
      const archiver = (cached: DagRunResource): HistoryArchiver =>
        new HistoryArchiver({
          store: db(),
          runs: cacheOf([cached]),
          pods: cacheOf<V1Pod>([]),
          runClient: kube.runs,
          segmentClient: kube.segments,
          clock: systemClock,
          archiveAfterMs: 0,
          log: silentLogger,
          onArchived: () => undefined,
          countDelete: () => undefined,
        });
      expect(await archiver(read).reconcile(`${quiet}/changed-1`)).toEqual({ requeueAfterMs: 1000 });
      expect((await db().summary({ namespace: quiet, dagName: 'changed', dagRunId: 'changed-1' }))?.statusLabel).toBe(
        'succeeded',
      );
      const current = await storedRun(quiet, 'changed-1');
      expect(current.metadata?.annotations?.[RETRY_ANNOTATION]).toBe('again');
      // Read again, the run owes its retry: it waits and stays.
      expect(await archiver(current).reconcile(`${quiet}/changed-1`)).toEqual({ requeueAfterMs: OWED_RECHECK_MS });
      expect(await gone(quiet, 'changed-1')).toBe(false);
    } finally {
      await deleteNamespace(core, quiet);
    }
  });

  it('leaves one copy of a run put before a crash kept its DAGRun, as the later put has it', async () => {
    await givenDag(ns, 'twice', 'steps: ["echo once"]');
    await whenRun(ns, 'twice-1', 'twice');
    const done = await finishedRun(ns, 'twice-1');
    // What an operator killed between the store's write and the deletion leaves: the run in both.
    await db().put([{ dagName: 'twice', run: { ...done, status: { ...done.status, statusLabel: 'first-put' } } }]);
    await waitFor('twice-1 to leave etcd', () => gone(ns, 'twice-1'), 30_000, 200);
    const runs = await db().runsOf(ns, 'twice', 10);
    expect(runs.map((r) => [r.dagRunId, r.statusLabel])).toEqual([[done.spec.dagRunId, 'succeeded']]);
  });

  it('deletes archived runs and their logs once their DAG histRetentionDays have passed, and keeps the others', async () => {
    await givenDag(ns, 'brief', 'histRetentionDays: 1\nsteps: ["echo brief"]');
    await whenRun(ns, 'brief-1', 'brief');
    const brief = await finishedRun(ns, 'brief-1');
    await waitFor('brief-1 to leave etcd', () => gone(ns, 'brief-1'), 30_000, 200);
    const briefLogs = join(dir, 'logs', ns, 'brief', brief.spec.dagRunId ?? '');
    expect(existsSync(briefLogs)).toBe(true);
    await operator?.stop();
    operator = undefined;

    // Two days on: past brief's one day, inside the default 30 of the DAGs before.
    const twoDaysOn = { now: (): Date => new Date(Date.now() + 2 * 86_400_000) };
    const args = [
      `--kubeconfig=${inject('cluster').kubeconfig}`,
      `--namespaces=${ns}`,
      `--lease-namespace=${ns}`,
      `--log-dir=${join(dir, 'logs')}`,
      `--http-port=${String(await freePort())}`,
      ...selected.args,
    ];
    ahead = new Operator({ config: parseConfig(args, selected.env), clock: twoDaysOn, log: silentLogger });
    await ahead.start();
    await waitFor(
      'brief-1 to leave the store',
      async () =>
        (await db().summary({ namespace: ns, dagName: 'brief', dagRunId: brief.spec.dagRunId ?? '' })) === undefined,
      30_000,
      200,
    );
    expect(existsSync(briefLogs)).toBe(false);
    expect((await db().runsOf(ns, 'wide', 10)).length).toBe(1);
    expect((await db().runsOf(ns, 'twice', 10)).length).toBe(1);
  });
});

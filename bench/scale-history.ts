/**
 * The scale benchmark's history: R finished runs retained, spread over D DAGs, each a copy of
 * one real finished 5-step run (as issue 23's reporter made them), written straight into the
 * Kubernetes API with a finished status; nothing runs. Then what that history costs: each
 * process restarted on it (memory, time to sync), the API's history reads, etcd's database.
 */
import { performance } from 'node:perf_hooks';
import type { HistoryStore, RunToArchive } from '../core/history/types.ts';
import type { KubedagClients } from '../core/kube/client.ts';
import { loadDag } from '../core/dag/index.ts';
import { LABELS } from '../core/resources/constants.ts';
import { dagManifest } from '../core/resources/dag.ts';
import { dagRunResourceName, labelValue } from '../core/resources/names.ts';
import type { DagRunResource } from '../core/resources/types.ts';
import { namespace, percentile, pool, timeGet, type Timed } from './scale-support.ts';

/** A 5-step DAG with a little output per step, as a daily job might be. */
export const HISTORY_DAG_YAML = `description: A five-step job whose finished runs make up the benchmark's history
tags: [bench, history]
steps:
  - {name: extract, command: "echo extracted 120 rows", output: ROWS}
  - {name: validate, command: "echo validated", depends: [extract]}
  - {name: transform, command: "echo transformed", depends: [validate]}
  - {name: load, command: "echo loaded", depends: [transform]}
  - {name: report, command: "echo report sent", depends: [load]}
`;

export const historyDagName = (d: number): string => `hist-${String(d).padStart(4, '0')}`;

const ISO = /"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)"/g;

/** The run's status with every time moved back by `offsetMs`, so history spans days. */
function shiftedStatus(status: unknown, offsetMs: number): Record<string, unknown> {
  const text = JSON.stringify(status).replace(ISO, (_match, time: string) =>
    JSON.stringify(new Date(Date.parse(time) - offsetMs).toISOString()),
  );
  return JSON.parse(text) as Record<string, unknown>;
}

export interface SeedFigures {
  readonly runs: number;
  readonly dags: number;
  readonly seconds: number;
  /** The real run the copies are made of, as JSON. */
  readonly sourceRunBytes: number;
  /** JSON size of each of its finished step records (status.nodes). */
  readonly sourceRecordBytes: readonly number[];
}

export interface Seeded {
  readonly figures: SeedFigures;
  readonly source: DagRunResource;
  /** One copy, for the run-details and log reads. */
  readonly copy: { readonly dagName: string; readonly dagRunId: string };
}

/**
 * Creates D DAGs and R finished runs copied from `source` (a finished run of
 * HISTORY_DAG_YAML). Times are spread over the last week, inside the default retention of 30
 * days, so that the operator's retention keeps them all.
 */
export async function seedHistory(
  kube: KubedagClients,
  source: DagRunResource,
  runs: number,
  dags: number,
  log: (line: string) => void,
): Promise<Seeded> {
  const started = performance.now();
  const manifests = Array.from({ length: dags }, (_, d) =>
    dagManifest(historyDagName(d), loadDag(HISTORY_DAG_YAML, { fileName: historyDagName(d) }).documents, namespace),
  );
  await pool(manifests, 16, (manifest) => kube.dags.create(namespace, manifest));
  const week = 7 * 24 * 3600 * 1000;
  let lastReport = performance.now();
  await pool(
    Array.from({ length: runs }, (_, i) => i),
    32,
    async (i) => {
      const d = i % dags;
      const dagName = historyDagName(d);
      const dagRunId = `h${String(i).padStart(6, '0')}`;
      const name = dagRunResourceName(dagName, dagRunId);
      const labels = {
        ...source.metadata?.labels,
        [LABELS.dag]: labelValue(dagName),
        [LABELS.runId]: labelValue(dagRunId),
      };
      // A copy holds its definition the old way (spec.snapshot), which rules out frozenDefinition.
      const { frozenDefinition: _frozen, ...sourceSpec } = source.spec;
      const spec = {
        ...sourceSpec,
        dagRef: { name: manifests[d]?.metadata.name ?? dagName },
        dagName,
        dagRunId,
        snapshot: manifests[d]?.spec,
      };
      await kube.runs.create(namespace, { metadata: { name, namespace, labels }, spec });
      await kube.runs.mergePatchStatus(namespace, name, {
        status: shiftedStatus(source.status, Math.floor((i / runs) * week)),
      });
      if (performance.now() - lastReport > 15_000) {
        lastReport = performance.now();
        log(`  seeded ${String(i)} of ${String(runs)} runs`);
      }
    },
  );
  return seededFrom(source, { runs, dags, seconds: (performance.now() - started) / 1000, idPrefix: 'h' });
}

/** What a seeding made: its figures, the source, and the copy the reads ask for (run 1, of DAG 1). */
function seededFrom(
  source: DagRunResource,
  made: { readonly runs: number; readonly dags: number; readonly seconds: number; readonly idPrefix: string },
): Seeded {
  const { runs, dags, seconds, idPrefix } = made;
  const records = (source.status?.nodes ?? []).map((n) => Buffer.byteLength(JSON.stringify(n)));
  return {
    figures: {
      runs,
      dags,
      seconds,
      sourceRunBytes: Buffer.byteLength(JSON.stringify(source)),
      sourceRecordBytes: records,
    },
    source,
    copy: { dagName: historyDagName(1 % dags), dagRunId: `${idPrefix}${String(1).padStart(6, '0')}` },
  };
}

export interface HistoryReads {
  readonly dagsPage: Timed;
  readonly dagHistory: Timed;
  readonly runsByName: Timed;
  /** The failed runs (one in FAILED_EVERY of the store's copies), and the succeeded ones (the rest: nearly every run). */
  readonly runsFailed: Timed;
  readonly runsSucceeded: Timed;
  /** Yesterday, a whole day of the store's copies (spread over SEED_SPAN_MS), and a day 60 days back, holding none. */
  readonly runsOneDay: Timed;
  readonly runsEmptyDay: Timed;
  readonly runDetails: Timed;
  readonly runLog: Timed;
  /** A step's stdout, of the real run (the copies have no archived logs of their own). */
  readonly stepLog: Timed;
  readonly runsUnfiltered: Timed;
}

/** The history reads the targets name, each the p50 of `repeat` sequential GETs. */
export async function historyReads(api: string, seeded: Seeded, repeat: number): Promise<HistoryReads> {
  const { copy, source } = seeded;
  const dayStart = Math.floor(Date.now() / 86_400_000) * 86_400;
  const step = source.status?.nodes?.[0]?.name ?? 'extract';
  const get = (path: string, times = repeat): Promise<Timed> => timeGet(`${api}${path}`, times);
  return {
    dagsPage: await get('/dags'),
    dagHistory: await get(`/dags/${copy.dagName}/dag-runs`),
    runsByName: await get(`/dag-runs?name=${copy.dagName}`),
    runsFailed: await get('/dag-runs?status=2'),
    runsSucceeded: await get('/dag-runs?status=4', Math.max(3, Math.floor(repeat / 4))),
    runsOneDay: await get(`/dag-runs?fromDate=${String(dayStart - 86_400)}&toDate=${String(dayStart - 1)}`),
    runsEmptyDay: await get(
      `/dag-runs?fromDate=${String(dayStart - 60 * 86_400)}&toDate=${String(dayStart - 59 * 86_400 - 1)}`,
    ),
    runDetails: await get(`/dag-runs/${copy.dagName}/${copy.dagRunId}`),
    runLog: await get(`/dag-runs/${copy.dagName}/${copy.dagRunId}/log`),
    stepLog: await get(`/dag-runs/${source.spec.dagName ?? ''}/${source.spec.dagRunId ?? ''}/steps/${step}/log`),
    runsUnfiltered: await get('/dag-runs', Math.max(3, Math.floor(repeat / 4))),
  };
}

export function recordStats(sizes: readonly number[]): { min: number; median: number; max: number } {
  return {
    min: sizes.length === 0 ? 0 : Math.min(...sizes),
    median: percentile(sizes, 50),
    max: sizes.length === 0 ? 0 : Math.max(...sizes),
  };
}

/**
 * How long the store's copies are spread over by default: most of the default retention of 30
 * days (histRetentionDays), so that the operator's retention sweep keeps them all. 100,000 runs
 * over 29 days are ~3,450 a day: 1,000 DAGs each running about every seven hours.
 */
export const SEED_SPAN_MS = 29 * 24 * 3600 * 1000;

/** One copy in this many failed (its last step failed), the rest succeeded: what a status filter finds. */
export const FAILED_EVERY = 50;

/** A copy's status: the source's, as failed at its last step for every FAILED_EVERY-th copy. */
function copyStatus(status: Record<string, unknown>, i: number): Record<string, unknown> {
  if (i % FAILED_EVERY !== FAILED_EVERY - 1) return status;
  const nodes = (status.nodes as Record<string, unknown>[] | undefined) ?? [];
  const failed = { status: 2, statusLabel: 'failed', error: 'exit status 1' };
  return {
    ...status,
    ...failed,
    nodes: nodes.map((n, k) => (k === nodes.length - 1 ? { ...n, ...failed, exitCode: 1 } : n)),
  };
}

/**
 * R finished runs written straight into the history store, as the operator's archiver writes
 * them (a copy of `source` each, with every step record and its DAG's definition), in
 * transactions of `batch` runs: what months of archiving leave behind, without the months.
 * Times are spread over the last `spanMs` (SEED_SPAN_MS) before `endMs`.
 */
export interface StoreSeed {
  readonly runs: number;
  readonly dags: number;
  readonly batch?: number;
  readonly endMs?: number;
  readonly spanMs?: number;
}

export async function seedStore(
  store: HistoryStore,
  source: DagRunResource,
  options: StoreSeed,
  log: (line: string) => void,
): Promise<Seeded> {
  const { runs, dags } = options;
  const started = performance.now();
  const batch = options.batch ?? 1000;
  const endMs = options.endMs ?? Date.now();
  const span = options.spanMs ?? SEED_SPAN_MS;
  const definitions = Array.from({ length: dags }, (_, d): Record<string, unknown> => ({
    ...dagManifest(historyDagName(d), loadDag(HISTORY_DAG_YAML, { fileName: historyDagName(d) }).documents, namespace)
      .spec,
  }));
  // The API hands creationTimestamp over as text, whatever client-node's type says.
  const sourceAge = Date.parse(String(source.metadata?.creationTimestamp ?? new Date(endMs).toISOString()));
  let lastReport = performance.now();
  for (let first = 0; first < runs; first += batch) {
    const items: RunToArchive[] = [];
    for (let i = first; i < Math.min(runs, first + batch); i += 1) {
      const d = i % dags;
      const dagName = historyDagName(d);
      const dagRunId = `s${String(i).padStart(6, '0')}`;
      const createdMs = endMs - span + Math.floor((i / runs) * span);
      const offset = sourceAge - createdMs;
      const name = dagRunResourceName(dagName, dagRunId);
      const labels = {
        ...source.metadata?.labels,
        [LABELS.dag]: labelValue(dagName),
        [LABELS.runId]: labelValue(dagRunId),
      };
      const { frozenDefinition: _frozen, ...spec } = source.spec;
      const run: DagRunResource = {
        ...source,
        metadata: {
          name,
          namespace,
          uid: `bench-${dagRunId}`,
          labels,
          creationTimestamp: new Date(createdMs).toISOString().replace(/\.\d+Z$/, 'Z') as unknown as Date,
        },
        spec: { ...spec, dagRef: { name: dagName }, dagName, dagRunId },
        status: copyStatus(shiftedStatus(source.status, offset), i),
      };
      items.push({ dagName, run, definition: definitions[d] ?? {} });
    }
    await store.put(items);
    if (performance.now() - lastReport > 15_000) {
      lastReport = performance.now();
      log(`  stored ${String(first + items.length)} of ${String(runs)} runs`);
    }
  }
  return seededFrom(source, { runs, dags, seconds: (performance.now() - started) / 1000, idPrefix: 's' });
}

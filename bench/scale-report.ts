/**
 * The scale benchmark's tables: one column per big run, one row per history figure, with
 * issue 23's target beside each figure it names, so the gap reads at a glance. Per retained
 * run figures are there to be extrapolated: this machine cannot hold the target's 100,000 runs.
 */
import type { HistoryReads, SeedFigures } from './scale-history.ts';
import type { BigRunFigures } from './scale-runs.ts';
import { kib, mib, table, type Timed } from './scale-support.ts';

/** Finished runs left in etcd past the archive window, and how long the operator took to archive them all. */
export interface ArchivedFigures {
  readonly runs: number;
  readonly seconds: number;
}

export interface HistoryFigures {
  /** Where history was kept: `sqlite` (the R runs in the store) or `none` (all in etcd). */
  readonly store: string;
  readonly archived?: ArchivedFigures;
  readonly seed: SeedFigures;
  readonly sourceRecords: { readonly min: number; readonly median: number; readonly max: number };
  /** The operator that was running while the history was written. */
  readonly operatorLive: number;
  readonly operatorRestart: { readonly syncedMs: number; readonly readyMs: number; readonly rss: number };
  readonly apiRestart: { readonly readyMs: number; readonly rss: number };
  readonly apiAfterReads: number;
  readonly reads: HistoryReads;
  readonly etcdDbBefore: number;
  readonly etcdDbAfter: number;
  readonly kubeApiserverRss: number;
  readonly etcdRss: number;
}

export interface Figures {
  readonly machine: { readonly cores: number; readonly memory: number; readonly node: string };
  readonly settings: Record<string, unknown>;
  readonly idle: {
    readonly operator: number;
    readonly api: number;
    readonly operatorSyncedMs: number;
    readonly apiReadyMs: number;
    readonly etcdDb: number;
  };
  readonly singleStepRunsPerMinute?: number;
  readonly bigRuns: readonly BigRunFigures[];
  readonly history?: HistoryFigures;
}

const n = (value: number, digits = 0): string =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

function bigRunRows(runs: readonly BigRunFigures[], single: number | undefined): string[][] {
  const row = (label: string, cell: (r: BigRunFigures) => string): string[] => [label, ...runs.map(cell)];
  return [
    row('outcome', (r) => r.outcome),
    row('steps succeeded', (r) => `${n(r.succeededSteps)}/${n(r.steps)}`),
    row('time (create -> end or stuck)', (r) => `${r.seconds.toFixed(0)} s`),
    row('steps/min', (r) => n(r.stepsPerMinute)),
    row('steps/min vs single-step runs/min (target >= 80%)', (r) =>
      single === undefined ? '-' : `${n((100 * r.stepsPerMinute) / single)}%`,
    ),
    row('definition YAML', (r) => kib(r.definitionYamlBytes)),
    row('definition held by the DAGRun (JSON)', (r) => kib(r.definitionInRunBytes)),
    row('definition segment (DAGRunSegment)', (r) => kib(r.definitionSegmentBytes)),
    row('largest DAGRun seen (target <= 256 KiB)', (r) => kib(r.largestObjectBytes)),
    row('DAGRun at the end', (r) => kib(r.finalObjectBytes)),
    row('DAGRun versions seen (status writes)', (r) => n(r.statusWritesSeen)),
    row(
      'segments sealed (count / bytes / largest)',
      (r) => `${n(r.segments.count)} / ${mib(r.segments.bytes)} / ${kib(r.segments.largest)}`,
    ),
    row('bytes written (DAGRun versions + segments)', (r) => mib(r.bytesWritten)),
    row('operator API writes (all objects)', (r) => n(r.operatorApiWrites)),
    row('bytes written per finished step (target < 8 KiB)', (r) => kib(r.bytesPerFinishedStep)),
    row(
      'finished step record JSON min/median/max',
      (r) => `${String(r.record.min)}/${String(r.record.median)}/${String(r.record.max)} B`,
    ),
    row('GET /dag-runs/{name}/{id} p50 (target < 1 s)', (r) =>
      r.details === undefined ? '-' : `${n(r.details.p50Ms)} ms`,
    ),
    row('GET /dag-runs/{name}/{id} answer', (r) =>
      r.details === undefined ? '-' : `${kib(r.details.bytes)} (HTTP ${String(r.details.status)})`,
    ),
    row('stop ended it (stuck runs only)', (r) => (r.stopEnded === undefined ? '-' : r.stopEnded ? 'yes' : 'NO')),
  ];
}

const read = (t: Timed): string =>
  `${t.p50.toFixed(1)} ms, ${kib(t.bytes)}${t.status === 200 ? '' : ` (HTTP ${String(t.status)})`}`;

function historyRows(h: HistoryFigures, idle: Figures['idle']): string[][] {
  const r = h.seed.runs;
  const perRun = (after: number, before: number): string => kib((after - before) / r);
  return [
    ['retained runs / DAGs', `${n(r)} / ${n(h.seed.dags)}`, '100,000 / 1,000'],
    ['history store', h.store, 'etcd holds active runs + a window'],
    h.store === 'none'
      ? ['seeding (create + status per run)', `${h.seed.seconds.toFixed(0)} s (${n(r / h.seed.seconds)} runs/s)`, '']
      : ['seeding (straight into the store)', `${h.seed.seconds.toFixed(0)} s (${n(r / h.seed.seconds)} runs/s)`, ''],
    ...(h.archived === undefined
      ? []
      : [
          [
            'runs archived by the operator (past the window) / time',
            `${n(h.archived.runs)} / ${h.archived.seconds.toFixed(0)} s (${n(h.archived.runs / h.archived.seconds, 1)} runs/s)`,
            '',
          ],
        ]),
    ['source run (a real finished 5-step run) as JSON', kib(h.seed.sourceRunBytes), ''],
    [
      'its step records JSON min/median/max',
      `${String(h.sourceRecords.min)}/${String(h.sourceRecords.median)}/${String(h.sourceRecords.max)} B`,
      '',
    ],
    ['operator RSS idle (fresh, no runs)', mib(idle.operator), ''],
    ['operator RSS, running while history was written', mib(h.operatorLive), ''],
    ['operator RSS restarted on the history', mib(h.operatorRestart.rss), 'within 30 MiB of idle'],
    [
      'operator RSS per retained run (restarted - idle) / R',
      perRun(h.operatorRestart.rss, idle.operator),
      '<= 0.3 KiB (30 MiB / 100,000)',
    ],
    [
      'operator start -> runs informer synced',
      `${s(h.operatorRestart.syncedMs)} (idle ${s(idle.operatorSyncedMs)})`,
      '',
    ],
    ['operator start -> ready', s(h.operatorRestart.readyMs), '<= 10 s'],
    ['API server RSS idle (fresh, no runs)', mib(idle.api), ''],
    ['API server RSS restarted on the history', mib(h.apiRestart.rss), '< 256 MiB'],
    ['API server RSS after the reads', mib(h.apiAfterReads), '< 256 MiB'],
    ['API server RSS per retained run (restarted - idle) / R', perRun(h.apiRestart.rss, idle.api), ''],
    ['API server start -> caches synced and listening', `${s(h.apiRestart.readyMs)} (idle ${s(idle.apiReadyMs)})`, ''],
    ['GET /dags (page 1) p50', read(h.reads.dagsPage), '<= 50 ms'],
    ['GET /dags/{f}/dag-runs p50', read(h.reads.dagHistory), '<= 50 ms'],
    ['GET /dag-runs?name= p50', read(h.reads.runsByName), '<= 100 ms'],
    ['GET /dag-runs?status=2 (failed: 1 run in 50) p50', read(h.reads.runsFailed), '<= 100 ms'],
    ['GET /dag-runs?status=4 (succeeded: every other run) p50', read(h.reads.runsSucceeded), 'every match (contract)'],
    ['GET /dag-runs, yesterday (a day of the history) p50', read(h.reads.runsOneDay), '<= 100 ms'],
    ['GET /dag-runs, a day holding none p50', read(h.reads.runsEmptyDay), '<= 100 ms'],
    ['GET /dag-runs/{name}/{id} (a copy) p50', read(h.reads.runDetails), '<= 50 ms'],
    ['GET /dag-runs/{name}/{id}/log (a copy) p50', read(h.reads.runLog), '<= 50 ms'],
    ['GET .../steps/{step}/log (the real run) p50', read(h.reads.stepLog), '<= 50 ms'],
    ['GET /dag-runs unfiltered p50', read(h.reads.runsUnfiltered), 'streamed'],
    ['GET /dag-runs unfiltered bytes per retained run', `${n(h.reads.runsUnfiltered.bytes / r)} B`, ''],
    [
      'etcd database (etcd_mvcc_db_total_size_in_bytes)',
      `${mib(h.etcdDbAfter)} (before seeding ${mib(h.etcdDbBefore)}; at start ${mib(idle.etcdDb)})`,
      'active runs + a window',
    ],
    ['etcd database per retained run', kib((h.etcdDbAfter - h.etcdDbBefore) / r), ''],
    ['kube-apiserver RSS / etcd RSS at the end', `${mib(h.kubeApiserverRss)} / ${mib(h.etcdRss)}`, ''],
  ];
}

export function printFigures(figures: Figures): void {
  const { machine, settings, idle, bigRuns, history } = figures;
  console.log(
    `\nmachine: ${String(machine.cores)} cores, ${mib(machine.memory)}, Node.js ${machine.node}; settings ${JSON.stringify(settings)}`,
  );
  if (figures.singleStepRunsPerMinute !== undefined)
    console.log(
      `single-step runs (created at once, as the API server creates them): ${n(figures.singleStepRunsPerMinute)} runs/min`,
    );
  if (bigRuns.length > 0) {
    console.log('\nBig runs\n');
    console.log(
      table(
        ['figure', ...bigRuns.map((r) => `${r.shape} of ${n(r.steps)}`)],
        bigRunRows(bigRuns, figures.singleStepRunsPerMinute),
      ),
    );
    for (const r of bigRuns) if (r.reason !== undefined) console.log(`\n${r.shape} of ${n(r.steps)}: ${r.reason}`);
  }
  if (history !== undefined) {
    console.log('\nHistory\n');
    console.log(table(['figure', 'value', 'issue 23 target'], historyRows(history, idle)));
  }
}

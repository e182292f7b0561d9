/**
 * The scale benchmark's big runs: one run of an N-step DAG (a `type: graph` of independent
 * steps, or a chain), watched from the outside while it runs. Every new resourceVersion of
 * its DAGRun is one status write as etcd stores it, so the sum of their sizes is the bytes the
 * run made the API write (and etcd keep until compaction); the operator's own write counter
 * says how many writes of any object it made. A run ends as completed, failed (with its
 * reason) or stuck: no new resourceVersion for the stall window, or past the deadline.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Watch, type KubeConfig } from '@kubernetes/client-node';
import type { KubedagClients } from '../core/kube/client.ts';
import { loadDag } from '../core/dag/index.ts';
import { dagManifest } from '../core/resources/dag.ts';
import { readSealed } from '../core/kube/segments.ts';
import { withSealed } from '../core/resources/run-records.ts';
import type { DagRunResource } from '../core/resources/types.ts';
import { metric, namespace, percentile, timeGet, type BenchOperator } from './scale-support.ts';

export type Shape = 'graph' | 'chain';

export interface BigRunFigures {
  readonly shape: Shape;
  readonly steps: number;
  readonly outcome: 'completed' | 'failed' | 'stuck';
  /** The run's status error, or why it was called stuck (and the operator's last complaint). */
  readonly reason?: string;
  readonly succeededSteps: number;
  readonly seconds: number;
  readonly stepsPerMinute: number;
  readonly definitionYamlBytes: number;
  /** The frozen definition as JSON where the DAGRun holds it (spec.snapshot of older runs, an inline definition): 0 for a dagRef run. */
  readonly definitionInRunBytes: number;
  /** The run's definition segment (DAGRunSegment) as JSON: where a dagRef run's frozen definition is. */
  readonly definitionSegmentBytes: number;
  readonly largestObjectBytes: number;
  readonly finalObjectBytes: number;
  readonly statusWritesSeen: number;
  /** The DAGRunSegments its finished records were sealed into (immutable, written once each). */
  readonly segments: { readonly count: number; readonly bytes: number; readonly largest: number };
  /** Every DAGRun version seen plus every segment. */
  readonly bytesWritten: number;
  readonly operatorApiWrites: number;
  readonly bytesPerFinishedStep: number;
  /** JSON size of each finished step's record in status.nodes. */
  readonly record: { readonly min: number; readonly median: number; readonly max: number };
  /** Only for runs that did not end: whether `spec.stop: true` ended it within 60 s. */
  readonly stopEnded?: boolean;
  readonly details?: { readonly p50Ms: number; readonly bytes: number; readonly status: number };
}

export interface BigRunContext {
  readonly kc: KubeConfig;
  readonly kube: KubedagClients;
  readonly operator: () => BenchOperator;
  /** The API server's /api/v2 base. */
  readonly api: () => string;
  readonly deadlineMs: number;
  readonly stallMs: number;
  readonly log: (line: string) => void;
}

export function bigDagYaml(shape: Shape, steps: number): string {
  const names = Array.from({ length: steps }, (_, i) => `s${String(i + 1).padStart(5, '0')}`);
  // A chain is the default type: each step depends on the one before it.
  const header = shape === 'graph' ? ['type: graph', 'maxActiveSteps: 100'] : [];
  return `${[...header, 'steps:', ...names.map((n) => `  - {name: ${n}, command: "true"}`)].join('\n')}\n`;
}

const size = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));
const succeeded = (run: DagRunResource | undefined): number =>
  (run?.status?.nodes ?? []).filter((n) => n.statusLabel === 'succeeded').length;
/** Finished steps as the run's summary counts them: its records are mostly sealed away while it runs. */
const progressed = (run: DagRunResource | undefined): string => run?.status?.progress ?? '0/?';

/** The run with its sealed records, and what its segments weigh (bytes, count, the largest). */
async function sealedOf(
  ctx: BigRunContext,
  run: DagRunResource,
): Promise<{ run: DagRunResource; bytes: number; count: number; largest: number }> {
  const segments = (await ctx.kube.segments.list(namespace)).items.filter(
    (s) => s.metadata?.ownerReferences?.some((o) => o.uid === run.metadata?.uid) === true,
  );
  const sizes = segments.map(size);
  const full = withSealed(run, await readSealed(ctx.kube.segments, run));
  return { run: full, bytes: sizes.reduce((a, b) => a + b, 0), count: segments.length, largest: Math.max(0, ...sizes) };
}

interface Seen {
  last?: DagRunResource;
  versions: Set<string>;
  bytes: number;
  largest: number;
  changedAt: number;
}

/** Watches one DAGRun until aborted, from where it left off when the server ends a watch. */
function watchRun(kc: KubeConfig, path: string, name: string, seen: Seen): () => void {
  let stopped = false;
  let abort: AbortController | undefined;
  const start = async (): Promise<void> => {
    const from = seen.last?.metadata?.resourceVersion;
    abort = await new Watch(kc).watch(
      path,
      { fieldSelector: `metadata.name=${name}`, ...(from === undefined ? {} : { resourceVersion: from }) },
      (type, run: DagRunResource) => {
        const version = run.metadata?.resourceVersion ?? '';
        if ((type !== 'ADDED' && type !== 'MODIFIED') || seen.versions.has(version)) return;
        seen.versions.add(version);
        const bytes = size(run);
        seen.bytes += bytes;
        seen.largest = Math.max(seen.largest, bytes);
        seen.last = run;
        seen.changedAt = performance.now();
      },
      () => {
        if (!stopped) void sleep(200).then(restart);
      },
    );
  };
  // A watch that cannot start again (the cluster is going away) must not crash the benchmark
  // before its own error is told; the stall check then calls the run stuck.
  const restart = (): Promise<void> =>
    start().catch((error: unknown) => {
      if (!stopped) process.stderr.write(`[bench-scale] watch of ${name} ended: ${String(error)}\n`);
    });
  void restart();
  return () => {
    stopped = true;
    abort?.abort();
  };
}

function recordSizes(run: DagRunResource | undefined): BigRunFigures['record'] {
  const sizes = (run?.status?.nodes ?? []).filter((n) => n.finishedAt !== undefined).map(size);
  return {
    min: sizes.length === 0 ? 0 : Math.min(...sizes),
    median: percentile(sizes, 50),
    max: sizes.length === 0 ? 0 : Math.max(...sizes),
  };
}

/** Waits for the run to finish, stall or pass the deadline; says which. */
async function until(
  ctx: BigRunContext,
  name: string,
  seen: Seen,
  started: number,
): Promise<'finished' | 'stalled' | 'deadline'> {
  let lastReport = started;
  for (;;) {
    await sleep(500);
    const now = performance.now();
    if (seen.last?.status?.finishedAt !== undefined) return 'finished';
    if (now - started > ctx.deadlineMs) return 'deadline';
    if (now - seen.changedAt > ctx.stallMs) {
      // A watch that lost its way would look like a stall: ask the API before calling it one.
      const run = await ctx.kube.runs.get(namespace, name);
      if (run.status?.finishedAt === undefined) return 'stalled';
      seen.last = run;
      return 'finished';
    }
    if (now - lastReport > 30_000) {
      lastReport = now;
      ctx.log(
        `  ${progressed(seen.last)} steps done after ${((now - started) / 1000).toFixed(0)} s, ${String(seen.versions.size)} status versions, largest ${String(seen.largest)} bytes`,
      );
    }
  }
}

/** Stops a run that did not end (as the API server does: spec.stop) and says whether it ended. */
async function stopEnds(ctx: BigRunContext, name: string): Promise<boolean> {
  await ctx.kube.runs.jsonPatch(namespace, name, [{ op: 'add', path: '/spec/stop', value: true }]);
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    if ((await ctx.kube.runs.get(namespace, name)).status?.finishedAt !== undefined) return true;
    await sleep(1000);
  }
  return false;
}

/** The run's own error, or why it is called stuck and what the operator last complained of. */
function reasonOf(
  ctx: BigRunContext,
  ended: 'finished' | 'stalled' | 'deadline',
  run: DagRunResource,
  progress: string,
): string | undefined {
  if (ended === 'finished') return run.status?.error;
  const complaint = ctx.operator().errors().at(-1);
  const why = ended === 'stalled' ? `no status write for ${String(ctx.stallMs / 1000)} s` : 'deadline passed';
  return `${why} at ${progress} succeeded${complaint === undefined ? '' : `; the operator's last complaint: ${complaint}`}`;
}

/** One big run from DAG to outcome, then its run-details GET through the API server. */
export async function bigRun(ctx: BigRunContext, shape: Shape, steps: number): Promise<BigRunFigures> {
  const dagName = `big-${shape}-${String(steps)}`;
  const runName = `${dagName}-run`;
  const yaml = bigDagYaml(shape, steps);
  await ctx.kube.dags.create(
    namespace,
    dagManifest(dagName, loadDag(yaml, { fileName: dagName }).documents, namespace),
  );
  const seen: Seen = { versions: new Set(), bytes: 0, largest: 0, changedAt: performance.now() };
  const stopWatch = watchRun(ctx.kc, ctx.kube.runs.path(namespace), runName, seen);
  const writesBefore = await metric(ctx.operator().url, 'kubedag_api_writes_total');
  const started = performance.now();
  // As a kubectl user writes it: the operator freezes the definition into the spec itself.
  await ctx.kube.runs.create(namespace, {
    metadata: { name: runName, namespace },
    spec: { dagRef: { name: dagName } },
  });
  const ended = await until(ctx, runName, seen, started);
  const seconds = (performance.now() - started) / 1000;
  let stopEnded: boolean | undefined;
  if (ended !== 'finished') {
    ctx.log(`  ${ended}: asking it to stop`);
    stopEnded = await stopEnds(ctx, runName);
  }
  // Writes that follow the end (archiving, the DAG's status) belong to the run too.
  await sleep(3000);
  stopWatch();
  const writes = (await metric(ctx.operator().url, 'kubedag_api_writes_total')) - writesBefore;
  const stored = await ctx.kube.runs.get(namespace, runName);
  const sealed = await sealedOf(ctx, stored);
  const run = sealed.run;
  const done = succeeded(run);
  const reason = reasonOf(ctx, ended, run, `${String(done)}/${String(steps)}`);
  const dagRunId = run.spec.dagRunId ?? '';
  const inRun = run.spec.snapshot ?? run.spec.definition;
  const details = dagRunId === '' ? undefined : await timeGet(`${ctx.api()}/dag-runs/${dagName}/${dagRunId}`, 5);
  return {
    shape,
    steps,
    outcome: ended !== 'finished' ? 'stuck' : run.status?.statusLabel === 'succeeded' ? 'completed' : 'failed',
    ...(reason === undefined ? {} : { reason }),
    succeededSteps: done,
    seconds,
    stepsPerMinute: done / (seconds / 60),
    definitionYamlBytes: Buffer.byteLength(yaml),
    definitionInRunBytes: inRun === undefined ? 0 : size(inRun),
    definitionSegmentBytes:
      run.spec.frozenDefinition === undefined
        ? 0
        : size(await ctx.kube.segments.get(namespace, run.spec.frozenDefinition.segment)),
    largestObjectBytes: seen.largest,
    finalObjectBytes: size(stored),
    statusWritesSeen: seen.versions.size,
    segments: { count: sealed.count, bytes: sealed.bytes, largest: sealed.largest },
    bytesWritten: seen.bytes + sealed.bytes,
    operatorApiWrites: writes,
    bytesPerFinishedStep: (seen.bytes + sealed.bytes) / Math.max(1, done),
    record: recordSizes(run),
    ...(stopEnded === undefined ? {} : { stopEnded }),
    ...(details === undefined ? {} : { details: { p50Ms: details.p50, bytes: details.bytes, status: details.status } }),
  };
}

/** Deletes a big run and waits until its Pods are gone, so the next phase starts clean. */
export async function removeRun(ctx: BigRunContext, shape: Shape, steps: number): Promise<void> {
  const name = `big-${shape}-${String(steps)}-run`;
  await ctx.kube.runs.delete(namespace, name, { propagationPolicy: 'Foreground' }).catch(() => undefined);
  const deadline = performance.now() + 300_000;
  while (performance.now() < deadline) {
    const gone = await ctx.kube.runs.get(namespace, name).then(
      () => false,
      () => true,
    );
    if (gone) return;
    await sleep(1000);
  }
  ctx.log(`  ${name} still there after 5 min`);
}

/**
 * The baseline the issue compares a big run's steps/min with: bench-operator's single-step
 * runs, created at once as the API server creates them (definition already frozen).
 */
export async function singleStepRunsPerMinute(ctx: BigRunContext, runs: number): Promise<number> {
  const yaml = 'steps: ["true"]\n';
  const documents = loadDag(yaml, { fileName: 'single' }).documents;
  await ctx.kube.dags.create(namespace, dagManifest('single', documents, namespace));
  const names = Array.from({ length: runs }, (_, i) => `single-${String(i)}`);
  const started = performance.now();
  await Promise.all(
    names.map((name) =>
      ctx.kube.runs.create(namespace, {
        metadata: { name, namespace },
        spec: { dagRef: { name: 'single' }, snapshot: documents[0], dagName: 'single', dagRunId: name },
      }),
    ),
  );
  for (;;) {
    const list = await ctx.kube.runs.list(namespace);
    const singles = list.items.filter((r) => r.metadata?.name?.startsWith('single-') === true);
    // A run no longer in etcd was archived (the bench's short archive window), which only a finished run is.
    const done = singles.filter((r) => r.status?.finishedAt !== undefined).length + (runs - singles.length);
    if (done >= runs || performance.now() - started > ctx.deadlineMs)
      return done / ((performance.now() - started) / 60_000);
    await sleep(250);
  }
}

export async function removeSingleRuns(ctx: BigRunContext, runs: number): Promise<void> {
  await Promise.all(
    Array.from({ length: runs }, (_, i) =>
      ctx.kube.runs.delete(namespace, `single-${String(i)}`).catch(() => undefined),
    ),
  );
}

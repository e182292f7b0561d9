/**
 * Operator benchmark on a fresh local control plane (figures, not a test): step-to-step gap
 * p50/p99, single-step runs per minute, API writes per step, operator CPU seconds and memory
 * (RSS idle, and at the peak of a burst of 200 runs). The operator runs as the image and the
 * chart run it: bundled (build/bundles.ts), with the chart's flags and malloc cap.
 * Targets: gap p50 <= 50 ms (a Pod terminated -> the next Pod created), <= 4 writes per step,
 * >= 1,000 runs/min, RSS idle <= 120 MiB and at the burst's peak <= 180 MiB.
 * Run with `make bench-operator` (`BENCH_WORKSPACE=false` for runs without a workspace,
 * `BENCH_LOG_STORE=s3` for the S3 log store on a MinIO started for the benchmark,
 * `BENCH_REAL_NODE=1` as root for one real kubelet on containerd instead of two node agents
 * (cluster/real-node; Pods of its busybox image, so the cost of real sandboxes and containers
 * shows). Timings on a 2-core machine that also runs the control plane and every step process are
 * noisy; compare runs of this script with each other.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CustomObjectsApi, Watch, type V1ContainerState, type V1Pod } from '@kubernetes/client-node';
import { loadDag } from '../core/dag/index.ts';
import { dagManifest } from '../core/resources/dag.ts';
import type { DagRunResource } from '../core/resources/types.ts';
import { ensureBinaries } from '../cluster/binaries.ts';
import { startCluster, stopCluster } from '../cluster/cluster.ts';
import { readLedger } from '../cluster/node-agent/ledger.ts';
import { STEP_IMAGE } from '../cluster/real-node/images.ts';
import { freePort, waitFor } from '../cluster/processes.ts';
import { kubeConfig } from '../cluster/setup.ts';
import { bundleOperator, chartOperatorLaunch } from '../build/bundles.ts';
import { startS3Server } from '../cluster/s3-server.ts';

const group = 'kubedag.io';
const version = 'v1alpha1';
const namespace = 'default';

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(name) && !line.startsWith('#'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

/** A process's resident set (VmRSS) in bytes, or 0 once it has gone. Linux only, as the cluster is. */
function rssOf(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** RSS samples of `pid` every 200 ms while `work` runs (a burst's peak lasts seconds). */
async function rssWhile(pid: number, work: () => Promise<unknown>): Promise<number[]> {
  const samples = [rssOf(pid)];
  const timer = setInterval(() => {
    samples.push(rssOf(pid));
  }, 200);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return [...samples, rssOf(pid)];
}

/** CPU seconds (user and system) a process has used: less noisy than rates on a shared machine. */
function cpuSecondsOf(pid: number): number {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields =
      readFileSync(`/proc/${String(pid)}/stat`, 'utf8')
        .split(') ')[1]
        ?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/**
 * When this process first saw each step of the chain run's Pod added, its container running (or
 * already ended) and terminated. Where no node agent keeps a ledger (the real node), the running
 * mark stands in for the ledger's start.
 */
const chainMarks = {
  added: new Map<number, number>(),
  running: new Map<number, number>(),
  terminated: new Map<number, number>(),
};

const containerState = (pod: V1Pod): V1ContainerState => pod.status?.containerStatuses?.[0]?.state ?? {};

function markChainPod(type: string, pod: V1Pod): void {
  const step = Number(/^chain-1-cmd-(\d+)-0-/.exec(pod.metadata?.name ?? '')?.[1] ?? NaN);
  if (Number.isNaN(step)) return;
  const container = containerState(pod);
  const ended = container.terminated !== undefined;
  const seen = [
    ...(type === 'ADDED' ? [chainMarks.added] : []),
    ...(ended || container.running !== undefined ? [chainMarks.running] : []),
    ...(ended ? [chainMarks.terminated] : []),
  ];
  for (const marks of seen) if (!marks.has(step)) marks.set(step, Date.now());
}

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

const dir = await mkdtemp(join(tmpdir(), 'kubedag-bench-'));
const realNode = process.env.BENCH_REAL_NODE === '1';
const state = await startCluster({
  dir,
  binaries: await ensureBinaries(),
  ...(realNode ? { realNode: true } : { nodes: [{ name: 'bench-1' }, { name: 'bench-2' }] }),
});
const kc = kubeConfig(state.kubeconfig);
const custom = kc.makeApiClient(CustomObjectsApi);
const port = await freePort();
// The operator as the image and the chart run it: bundled, with the chart's flags and malloc cap.
// Under the repository, as the image keeps it under /app: the AWS SDK of the S3 log store, left
// out of the bundle, is found in the node_modules beside it.
const repo = join(import.meta.dirname, '..');
await mkdir(join(repo, 'dist'), { recursive: true });
const bundleDir = await mkdtemp(join(repo, 'dist', 'bench-bundle-'));
const bundle = join(bundleDir, 'operator.mjs');
await bundleOperator(bundle);
const launch = chartOperatorLaunch();
const profile =
  process.env.BENCH_PROFILE === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`];
// BENCH_WORKSPACE=false measures runs without their workspace claim (one PVC, PV and binding less per run).
const workspace = process.env.BENCH_WORKSPACE === undefined ? [] : [`--workspace=${process.env.BENCH_WORKSPACE}`];
// BENCH_LOG_STORE=s3: logs go to a bucket of a MinIO on loopback instead of a directory.
const s3 = process.env.BENCH_LOG_STORE === 's3' ? await startS3Server() : undefined;
const logStore = s3 === undefined ? [`--log-dir=${join(dir, 'logs')}`] : s3.operatorFlags();
const operator = spawn(
  process.execPath,
  [
    ...profile,
    ...launch.flags,
    bundle,
    ...workspace,
    ...(realNode ? [`--default-step-image=${STEP_IMAGE}`] : []),
    `--kubeconfig=${state.kubeconfig}`,
    ...logStore,
    `--http-port=${String(port)}`,
    '--lease-duration-seconds=5',
  ],
  {
    env: { ...process.env, ...launch.env, ...s3?.env },
    stdio: ['ignore', 'pipe', process.env.BENCH_TRACE === undefined ? 'ignore' : 'inherit'],
  },
);
// Its log says when the informers have synced: idle memory is measured from then on.
let output = '';
operator.stdout.on('data', (chunk: Buffer) => {
  output = `${output}${chunk.toString()}`.slice(-4096);
});
const url = `http://127.0.0.1:${String(port)}`;
const pid = operator.pid ?? 0;
try {
  await waitFor('the operator', () => fetch(`${url}/readyz`).then((r) => r.ok), 30_000, 100);
  await waitFor('the informers', () => Promise.resolve(output.includes('informer runs synced')), 30_000, 100);
  const apply = async (name: string, yaml: string): Promise<void> => {
    const load = loadDag(yaml, { fileName: name });
    await custom.createNamespacedCustomObject({
      group,
      version,
      namespace,
      plural: 'dags',
      body: dagManifest(name, load.documents, namespace),
    });
  };
  const run = (name: string, dag: string): Promise<unknown> =>
    custom.createNamespacedCustomObject({
      group,
      version,
      namespace,
      plural: 'dagruns',
      body: { apiVersion: `${group}/${version}`, kind: 'DAGRun', metadata: { name }, spec: { dagRef: { name: dag } } },
    });
  const finished = async (names: readonly string[], timeoutMs: number): Promise<void> => {
    await waitFor(
      `${String(names.length)} runs`,
      async () => {
        const list = (await custom.listNamespacedCustomObject({ group, version, namespace, plural: 'dagruns' })) as {
          items: DagRunResource[];
        };
        const done = new Set(list.items.filter((r) => r.status?.finishedAt !== undefined).map((r) => r.metadata?.name));
        return names.every((n) => done.has(n));
      },
      timeoutMs,
      250,
    );
  };

  // 0. Memory: idle once synced (nothing cached), then the peak of a burst of single-step runs,
  // created as kubectl users do (the definition frozen by the operator: the costlier path).
  // Idle is what it holds once startup garbage has been collected: the median of the last 5 s.
  await sleep(10_000);
  const idleRss = percentile(await rssWhile(pid, () => sleep(5000)), 50);
  const singleYaml = 'steps: ["true"]\n';
  await apply('single', singleYaml);
  const BURST = 200;
  const burstNames = Array.from({ length: BURST }, (_, i) => `burst-${String(i)}`);
  const burstStarted = Date.now();
  const burstRss = Math.max(
    ...(await rssWhile(pid, async () => {
      await Promise.all(burstNames.map((n) => run(n, 'single')));
      await finished(burstNames, 600_000);
      // Finished runs' Pods are archived and deleted just after: that belongs to the burst too.
      await sleep(2500);
    })),
  );
  const burstPerMinute = BURST / ((Date.now() - burstStarted - 2500) / 60_000);

  // 1. Step-to-step gap along a chain, from the node agents' ledgers (ms precision).
  const STEPS = 40;
  await apply('chain', `steps:\n${Array.from({ length: STEPS }, () => '  - "true"').join('\n')}\n`);
  // The operator's own share of each gap, seen from the API: a step's Pod shows terminated ->
  // the next step's Pod exists. The rest of the gap is the scheduler and the node agents.
  const { added: addedAt, running: runningAt, terminated: terminatedAt } = chainMarks;
  const podWatch = await new Watch(kc).watch(
    `/api/v1/namespaces/${namespace}/pods`,
    {},
    (type, pod: V1Pod) => {
      markChainPod(type, pod);
    },
    () => undefined,
  );
  const chainWritesBefore = await metric(url, 'kubedag_api_writes_total');
  await run('chain-1', 'chain');
  await finished(['chain-1'], 300_000);
  await sleep(2500);
  const chainWritesPerStep = ((await metric(url, 'kubedag_api_writes_total')) - chainWritesBefore) / STEPS;
  podWatch.abort();
  const shares = Array.from(
    { length: STEPS - 1 },
    (_, i) => (addedAt.get(i + 2) ?? NaN) - (terminatedAt.get(i + 1) ?? NaN),
  ).filter((v) => !Number.isNaN(v));
  const ledger = state.nodes.flatMap((n) => readLedger(n.ledger)).sort((a, b) => a.time.localeCompare(b.time));
  const gaps: number[] = [];
  for (let i = 1; i < STEPS; i += 1) {
    // The chain's own Pods only: the burst before it ran Pods named `burst-N-cmd-1-0-...`.
    const previousExit = ledger.find((e) => e.event === 'exit' && e.pod.startsWith(`chain-1-cmd-${String(i)}-0-`));
    const nextStart = ledger.find((e) => e.event === 'start' && e.pod.startsWith(`chain-1-cmd-${String(i + 1)}-0-`));
    if (previousExit !== undefined && nextStart !== undefined)
      gaps.push(Date.parse(nextStart.time) - Date.parse(previousExit.time));
    else if (realNode && runningAt.has(i + 1) && terminatedAt.has(i))
      gaps.push((runningAt.get(i + 1) ?? 0) - (terminatedAt.get(i) ?? 0));
  }
  const operatorGapSum = await metric(url, 'kubedag_step_gap_seconds_sum');
  const operatorGapCount = await metric(url, 'kubedag_step_gap_seconds_count');

  // 2. Throughput of single-step runs: first as kubectl users write them (the operator freezes
  // the definition into the spec: one patch more), then as the API server and the scheduler
  // create them, with the definition, DAG name and run id already in the spec.
  const snapshot = loadDag(singleYaml, { fileName: 'single' }).documents[0] as Record<string, unknown>;
  const frozen = (name: string): Promise<unknown> =>
    custom.createNamespacedCustomObject({
      group,
      version,
      namespace,
      plural: 'dagruns',
      body: {
        apiVersion: `${group}/${version}`,
        kind: 'DAGRun',
        metadata: { name },
        spec: { dagRef: { name: 'single' }, snapshot, dagName: 'single', dagRunId: name },
      },
    });
  const RUNS = 150;
  const phase = async (
    prefix: string,
    create: (name: string) => Promise<unknown>,
  ): Promise<{ perMinute: number; writesPerStep: number }> => {
    const names = Array.from({ length: RUNS }, (_, i) => `${prefix}-${String(i)}`);
    const [writesBefore, stepsBefore] = [
      await metric(url, 'kubedag_api_writes_total'),
      await metric(url, 'kubedag_steps_started_total'),
    ];
    const started = Date.now();
    await Promise.all(names.map((n) => create(n)));
    await finished(names, 600_000);
    const perMinute = RUNS / ((Date.now() - started) / 60_000);
    // DAG status is written two seconds after the last run change; let it land before counting.
    await sleep(2500);
    const [writesAfter, stepsAfter] = [
      await metric(url, 'kubedag_api_writes_total'),
      await metric(url, 'kubedag_steps_started_total'),
    ];
    return { perMinute, writesPerStep: (writesAfter - writesBefore) / Math.max(1, stepsAfter - stepsBefore) };
  };
  const kubectlStyle = await phase('kubectl', (n) => run(n, 'single'));
  const apiStyle = await phase('api', frozen);

  const writes = await metric(url, 'kubedag_api_writes_total');
  const steps = await metric(url, 'kubedag_steps_started_total');
  const memory = await metric(url, 'process_resident_memory_bytes');
  const cpuSeconds = cpuSecondsOf(pid);
  const gapSource = realNode
    ? 'API: container terminated -> next container running'
    : 'ledger: step exit -> next step start';
  console.log(`node: ${realNode ? 'one real kubelet on containerd and runc (cluster/real-node)' : 'two node agents'}`);
  console.log(
    `step-to-step gap (${gapSource}, ${String(gaps.length)} gaps): p50 ${String(percentile(gaps, 50))} ms, p99 ${String(percentile(gaps, 99))} ms (end to end, through the scheduler and the node agents)`,
  );
  console.log(
    `operator share of the gap (API: Pod terminated -> next Pod created, ${String(shares.length)} gaps): p50 ${String(percentile(shares, 50))} ms, p99 ${String(percentile(shares, 99))} ms (the issue's gap: target p50 <= 50 ms)`,
  );
  console.log(
    `API writes per step of the ${String(STEPS)}-step chain (kubectl-created): ${chainWritesPerStep.toFixed(2)}`,
  );
  console.log(
    `operator reaction (decision -> next Pod created and status written, from its metrics): mean ${((operatorGapSum / Math.max(1, operatorGapCount)) * 1000).toFixed(0)} ms over ${String(operatorGapCount)} steps`,
  );
  console.log(
    `single-step runs created as by the API server/scheduler: ${String(RUNS)} at ${apiStyle.perMinute.toFixed(0)} runs/min, ${apiStyle.writesPerStep.toFixed(2)} API writes per step (targets >= 1,000 runs/min, <= 4 writes)`,
  );
  console.log(
    `single-step runs created as by kubectl (dagRef only): ${String(RUNS)} at ${kubectlStyle.perMinute.toFixed(0)} runs/min, ${kubectlStyle.writesPerStep.toFixed(2)} API writes per step`,
  );
  console.log(
    `API writes per step over the whole benchmark: ${(writes / Math.max(1, steps)).toFixed(2)} (${String(writes)} writes, ${String(steps)} steps)`,
  );
  const byVerb = (await (await fetch(`${url}/metrics`)).text())
    .split('\n')
    .filter((l) => l.startsWith('kubedag_api_writes_total{'))
    .map((l) => `${/verb="([^"]+)"/.exec(l)?.[1] ?? '?'} ${l.split(' ').at(-1) ?? ''}`);
  console.log(`API writes by verb: ${byVerb.join(', ')}`);
  console.log(`log store: ${s3 === undefined ? 'directory' : `S3 (MinIO at ${s3.endpoint})`}`);
  console.log(
    `operator: bundled, started as the chart does (node ${launch.flags.join(' ')}; ${Object.entries(launch.env)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')})`,
  );
  console.log(
    `operator CPU over the whole benchmark: ${cpuSeconds.toFixed(1)} s (${((cpuSeconds * 1000) / Math.max(1, steps)).toFixed(1)} ms per step)`,
  );
  console.log(`operator RSS idle (after informers synced, no runs): ${mib(idleRss)} (target <= 120 MiB)`);
  console.log(
    `operator RSS peak during a burst of ${String(BURST)} single-step runs: ${mib(burstRss)} (target <= 180 MiB; the burst ran at ${burstPerMinute.toFixed(0)} runs/min)`,
  );
  console.log(`operator RSS at the end of the benchmark (its own process_resident_memory_bytes): ${mib(memory)}`);
} finally {
  operator.kill('SIGTERM');
  await sleep(500);
  await stopCluster(state);
  await s3?.stop();
  await rm(dir, { recursive: true, force: true });
  await rm(bundleDir, { recursive: true, force: true });
}

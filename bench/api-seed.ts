/**
 * What the API server benchmark (api.bench.ts) serves: 1,000 DAGs of a few shapes and 10
 * finished runs each, written straight into the Kubernetes API through the typed client.
 */
import { performance } from 'node:perf_hooks';
import type { KubedagClients } from '../core/kube/client.ts';
import { loadDag } from '../core/dag/index.ts';
import { LABELS } from '../core/resources/constants.ts';
import { dagManifest } from '../core/resources/dag.ts';
import { dagResourceName, dagRunResourceName, labelValue } from '../core/resources/names.ts';

export const DAGS = 1000;
export const RUNS_PER_DAG = 10;
const CONCURRENCY = 32;
const namespace = 'default';

export interface SeededDag {
  readonly fileName: string;
  readonly name: string;
  readonly resource: string;
  readonly steps: readonly string[];
  readonly spec: Record<string, unknown>;
  readonly manifest: ReturnType<typeof dagManifest>;
}

export interface SeededRun {
  readonly dag: SeededDag;
  readonly id: string;
  readonly index: number;
}

const KINDS = ['etl', 'report', 'ml', 'ops', 'backup'] as const;

function dagYaml(i: number): string {
  const steps = 2 + (i % 4);
  const lines = [
    `description: Benchmark DAG number ${String(i)}, ${KINDS[i % KINDS.length] ?? 'etl'} work`,
    `tags: [team-${String(i % 7)}, ${KINDS[i % KINDS.length] ?? 'etl'}]`,
  ];
  if (i % 3 === 0) lines.push(`schedule: "${String(i % 60)} ${String(i % 24)} * * *"`);
  if (i % 5 === 0) lines.push('params: REGION=eu DAYS=7');
  lines.push('steps:');
  for (let s = 1; s <= steps; s += 1) {
    lines.push(`  - name: step-${String(s)}`, `    command: echo "step ${String(s)} of DAG ${String(i)}" && sleep 1`);
    if (s > 1) lines.push(`    depends: [step-${String(s - 1)}]`);
  }
  return `${lines.join('\n')}\n`;
}

/** Every tenth file name is not a DNS label, so its resource name is a derived one. */
const fileNameOf = (i: number): string =>
  i % 10 === 0 ? `Bench_Dag_${String(i).padStart(4, '0')}` : `bench-dag-${String(i).padStart(4, '0')}`;

async function pool<T>(items: readonly T[], work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) {
        const item = items[next] as T;
        next += 1;
        await work(item);
      }
    }),
  );
}

const iso = (time: number): string => new Date(time).toISOString().replace(/\.\d{3}Z$/, 'Z');

function finishedStatus(run: SeededRun): Record<string, unknown> {
  const failed = run.index % 7 === 3;
  const begin = Date.UTC(2026, 10, 1) + run.index * 60_000;
  const nodes = run.dag.steps.map((name, s) => {
    const last = s === run.dag.steps.length - 1;
    const status = failed && last ? 2 : 4;
    return {
      name,
      status,
      statusLabel: status === 2 ? 'failed' : 'succeeded',
      startedAt: iso(begin + s * 2000),
      finishedAt: iso(begin + s * 2000 + 1500),
      exitCode: status === 2 ? 1 : 0,
      ...(status === 2 ? { error: 'exit status 1' } : {}),
    };
  });
  return {
    status: failed ? 2 : 4,
    statusLabel: failed ? 'failed' : 'succeeded',
    startedAt: iso(begin),
    finishedAt: iso(begin + run.dag.steps.length * 2000),
    nodes,
    ...(failed ? { error: 'step-failed' } : {}),
  };
}

export async function seed(kube: KubedagClients): Promise<{ dags: SeededDag[]; runs: SeededRun[] }> {
  const dags = Array.from({ length: DAGS }, (_, i): SeededDag => {
    const fileName = fileNameOf(i);
    const load = loadDag(dagYaml(i), { fileName });
    const manifest = dagManifest(fileName, load.documents, namespace);
    return {
      fileName,
      name: load.dag.name,
      resource: dagResourceName(fileName),
      steps: load.dag.steps.map((s) => s.name),
      spec: manifest.spec,
      manifest,
    };
  });
  const started = performance.now();
  await pool(dags, (d) => kube.dags.create(namespace, d.manifest));
  const dagMs = performance.now() - started;
  const runs = dags.flatMap((dag, d) =>
    Array.from({ length: RUNS_PER_DAG }, (_, r): SeededRun => ({
      dag,
      id: `run-${String(r).padStart(2, '0')}-${String(d).padStart(4, '0')}`,
      index: d * RUNS_PER_DAG + r,
    })),
  );
  await pool(runs, async (run) => {
    const name = dagRunResourceName(run.dag.name, run.id);
    const metadata = {
      name,
      namespace,
      labels: { [LABELS.dag]: labelValue(run.dag.name), [LABELS.runId]: labelValue(run.id) },
    };
    const spec = {
      dagRef: { name: run.dag.resource },
      dagName: run.dag.name,
      dagRunId: run.id,
      snapshot: run.dag.spec,
      trigger: 'api' as const,
    };
    await kube.runs.create(namespace, { metadata, spec });
    await kube.runs.mergePatchStatus(namespace, name, { status: finishedStatus(run) });
  });
  const total = performance.now() - started;
  console.log(
    `seeded ${String(DAGS)} DAGs in ${(dagMs / 1000).toFixed(1)} s and ${String(runs.length)} finished runs (create + status) in ${((total - dagMs) / 1000).toFixed(1)} s: ${(total / 1000).toFixed(1)} s in all, ${((DAGS + runs.length * 2) / (total / 1000)).toFixed(0)} writes/s at ${String(CONCURRENCY)} in flight`,
  );
  return { dags, runs };
}

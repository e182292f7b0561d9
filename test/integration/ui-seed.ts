/**
 * Finished runs for the web UI's scale tests, written straight into the Kubernetes API with
 * the typed client (as bench/api-seed.ts does): running 10,000 Pods would take many minutes on
 * this machine, and the pages only read what a finished run leaves. A big run's step records
 * are sealed into DAGRunSegments exactly as the operator seals them (compactNodes), so the API
 * server reads them back the way it reads a real one. No operator runs beside these: nothing
 * may pick a run up between its create and its status write.
 */
import type { KubedagClients } from '../../core/kube/client.ts';
import { loadDag } from '../../core/dag/index.ts';
import { API_VERSION, LABELS } from '../../core/resources/constants.ts';
import { dagManifest } from '../../core/resources/dag.ts';
import { dagResourceName, dagRunResourceName, labelValue, stepSegmentName } from '../../core/resources/names.ts';
import { compactNodes, NOTHING_SEALED } from '../../core/resources/run-records.ts';
import type { DagRunStatus, RunNode } from '../../core/resources/schemas.ts';
import { dagRun } from '../builders/dag-run.ts';

const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
export const stepName = (i: number): string => `s${String(i).padStart(5, '0')}`;

/** A graph of `steps` independent steps with a failure handler: about 360 KB of YAML at 10,000. */
export function bigGraphYaml(steps: number): string {
  const lines = [
    'description: Thousands of independent steps, for the UI at scale',
    'type: graph',
    'maxActiveSteps: 100',
    'handlerOn:',
    '  failure: {command: "echo cleaning up"}',
    'steps:',
  ];
  for (let i = 1; i <= steps; i += 1) lines.push(`  - {name: ${stepName(i)}, command: "true"}`);
  return `${lines.join('\n')}\n`;
}

/** The DAG of `yaml` as a DAG resource; its resource name and its snapshot for runs. */
async function createDag(
  kube: KubedagClients,
  ns: string,
  fileName: string,
  yaml: string,
): Promise<{ resource: string; snapshot: Record<string, unknown> }> {
  const manifest = dagManifest(fileName, loadDag(yaml, { fileName }).documents, ns);
  await kube.dags.create(ns, manifest);
  return { resource: dagResourceName(fileName), snapshot: manifest.spec };
}

async function createRun(
  kube: KubedagClients,
  ns: string,
  dag: { name: string; resource: string; snapshot: Record<string, unknown> },
  dagRunId: string,
): Promise<{ name: string; uid: string }> {
  const name = dagRunResourceName(dag.name, dagRunId);
  const run = dagRun(name)
    .namespace(ns)
    .label({ [LABELS.dag]: labelValue(dag.name), [LABELS.runId]: labelValue(dagRunId) })
    .spec({ dagRef: { name: dag.resource }, dagName: dag.name, dagRunId, snapshot: dag.snapshot, trigger: 'api' })
    .build();
  const created = await kube.runs.create(ns, run);
  return { name, uid: created.metadata?.uid ?? '' };
}

/** Step i's record: every 1,000th failed, every 250th otherwise skipped, the rest succeeded. */
function record(i: number, begin: number): RunNode {
  const name = stepName(i);
  const start = begin + i * 300;
  if (i % 1000 === 0)
    return {
      name,
      status: 2,
      statusLabel: 'failed',
      startedAt: iso(start),
      finishedAt: iso(start + 2000),
      exitCode: 1,
      error: 'exit status 1',
      retryCount: 0,
      doneCount: 1,
    };
  if (i % 250 === 0) return { name, status: 5, statusLabel: 'skipped', retryCount: 0, doneCount: 0 };
  return {
    name,
    status: 4,
    statusLabel: 'succeeded',
    startedAt: iso(start),
    finishedAt: iso(start + 1000),
    exitCode: 0,
    retryCount: 0,
    doneCount: 1,
  };
}

export interface BigRun {
  readonly dagName: string;
  readonly dagRunId: string;
  readonly steps: number;
  readonly failed: number;
  readonly skipped: number;
  readonly segments: number;
}

/** A finished (failed) run of a `steps`-step graph, its records sealed in segments, its failure handler run. */
export async function seedBigRun(kube: KubedagClients, ns: string, steps: number, now = Date.now()): Promise<BigRun> {
  const dagName = 'big';
  const dagRunId = 'r1';
  const dag = { name: dagName, ...(await createDag(kube, ns, dagName, bigGraphYaml(steps))) };
  const run = await createRun(kube, ns, dag, dagRunId);
  const begin = now - steps * 300 - 60_000;
  const records = Array.from({ length: steps }, (_, i) => record(i + 1, begin));
  const { nodes, seal } = compactNodes(records, NOTHING_SEALED);
  const owner = { apiVersion: API_VERSION, kind: 'DAGRun', name: run.name, uid: run.uid, controller: true };
  for (const [index, batch] of seal.entries()) {
    await kube.segments.create(ns, {
      metadata: {
        name: stepSegmentName(run.name, index),
        labels: { [LABELS.run]: labelValue(run.name) },
        ownerReferences: [owner],
      },
      spec: { run: run.name, index, nodes: batch },
    });
  }
  const end = begin + steps * 300 + 5000;
  const status: DagRunStatus = {
    status: 2,
    statusLabel: 'failed',
    startedAt: iso(begin),
    finishedAt: iso(end),
    progress: `${String(steps)}/${String(steps)}`,
    error: 'step-failed',
    nodes,
    ...(seal.length === 0 ? {} : { sealed: seal.length }),
    onFailure: {
      name: 'onFailure',
      status: 4,
      statusLabel: 'succeeded',
      startedAt: iso(end - 2000),
      finishedAt: iso(end - 1000),
      exitCode: 0,
      retryCount: 0,
      doneCount: 1,
    },
  };
  await kube.runs.mergePatchStatus(ns, run.name, { status });
  return {
    dagName,
    dagRunId,
    steps,
    failed: records.filter((r) => r.status === 2).length,
    skipped: records.filter((r) => r.status === 5).length,
    segments: seal.length,
  };
}

/** `count` finished runs of a small DAG, a minute apart, newest `h000`; their ids newest first. */
export async function seedHistory(
  kube: KubedagClients,
  ns: string,
  dagName: string,
  count: number,
  now = Date.now(),
): Promise<string[]> {
  const dag = {
    name: dagName,
    ...(await createDag(
      kube,
      ns,
      dagName,
      'steps:\n  - {name: extract, command: "true"}\n  - {name: load, command: "true", depends: [extract]}\n',
    )),
  };
  const ids = Array.from({ length: count }, (_, i) => `h${String(i).padStart(3, '0')}`);
  // A few at a time: enough to be quick, few enough not to crowd the control plane.
  for (let at = 0; at < ids.length; at += 8) {
    await Promise.all(
      ids.slice(at, at + 8).map(async (dagRunId, k) => {
        const i = at + k;
        const begin = now - (i + 1) * 60_000;
        const failed = i % 7 === 3;
        const run = await createRun(kube, ns, dag, dagRunId);
        const nodes: RunNode[] = ['extract', 'load'].map((name, s) => {
          const status = failed && s === 1 ? 2 : 4;
          return {
            name,
            status,
            statusLabel: status === 2 ? 'failed' : 'succeeded',
            startedAt: iso(begin + s * 2000),
            finishedAt: iso(begin + s * 2000 + 1000),
            exitCode: status === 2 ? 1 : 0,
            retryCount: 0,
            doneCount: 1,
          };
        });
        const status: DagRunStatus = {
          status: failed ? 2 : 4,
          statusLabel: failed ? 'failed' : 'succeeded',
          startedAt: iso(begin),
          finishedAt: iso(begin + 4000),
          progress: '2/2',
          nodes,
        };
        await kube.runs.mergePatchStatus(ns, run.name, { status });
      }),
    );
  }
  return ids;
}

/**
 * End-to-end support: an operator process per test file, scoped to the file's namespace, and
 * Given/When/Then helpers over DAG files and runs.
 */
import type { CoreV1Event } from '@kubernetes/client-node';
import { afterAll, beforeAll, inject } from 'vitest';
import { readLedger, type LedgerEntry } from '../../cluster/node-agent/ledger.ts';
import { loadDag } from '../../core/dag/index.ts';
import { readSealed } from '../../core/kube/segments.ts';
import { dagManifest } from '../../core/resources/dag.ts';
import { withSealed } from '../../core/resources/run-records.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { DirectoryLogStore } from '../../operator/logs/store.ts';
import { RETRY_ANNOTATION } from '../../operator/run/decide/retry-status.ts';
import { launchOperator, type RunningOperator } from '../operator-process.ts';
import { dagRun } from '../builders/dag-run.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';

export type { RunningOperator };

/**
 * Starts `node operator/main.ts` against the suite's cluster, watching one namespace. With
 * `--log-store=s3` among the extra flags it gets no log directory (logDir is then unused), and
 * `env` adds variables such as the S3 store's AWS credentials.
 */
export async function startOperator(
  namespace: string,
  logDir?: string,
  extraArgs: readonly string[] = [],
  waitToLead = true,
  env: Readonly<Record<string, string>> = {},
): Promise<RunningOperator> {
  return launchOperator({ kubeconfig: inject('cluster').kubeconfig, namespace, logDir, extraArgs, waitToLead, env });
}

/**
 * Gives the tests of one file a namespace of their own with an operator watching it: made before
 * them and handed to `use`, the operator stopped and the namespace deleted after them. `args`
 * are the operator's extra flags.
 */
export function withOperatorNamespace(
  prefix: string,
  use: (made: { ns: string; operator: RunningOperator }) => void,
  args: readonly string[] = [],
): void {
  const { core } = clients();
  let made: { ns: string; operator: RunningOperator } | undefined;
  beforeAll(async () => {
    const ns = await createNamespace(core, prefix);
    made = { ns, operator: await startOperator(ns, undefined, args) };
    use(made);
  });
  afterAll(async () => {
    if (made === undefined) return;
    await made.operator.stop();
    await deleteNamespace(core, made.ns);
  });
}

/** Given: a DAG file's text applied as a DAG resource, as `kubedag render | kubectl apply` would. */
export async function givenDag(namespace: string, fileName: string, yaml: string): Promise<void> {
  const load = loadDag(yaml, { fileName });
  if (load.errors.length > 0) throw new Error(`fixture ${fileName} is invalid: ${JSON.stringify(load.errors)}`);
  await clients().kube.dags.create(namespace, dagManifest(fileName, load.documents, namespace));
}

/** When: a DAGRun of that DAG is created, as a kubectl user would write it. */
export async function whenRun(
  namespace: string,
  name: string,
  dag: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await clients().kube.runs.create(
    namespace,
    dagRun(name)
      .namespace(namespace)
      .spec({ dagRef: { name: dag }, ...extra })
      .build(),
  );
}

/** Stops a run as kubectl or the API server does: `spec.stop: true`. */
export async function stopRun(namespace: string, name: string): Promise<void> {
  await clients().kube.runs.jsonPatch(namespace, name, [{ op: 'add', path: '/spec/stop', value: true }]);
}

/** Asks for an in-place retry of a finished run, as the API server does: a new retry token. */
export async function askRetry(namespace: string, name: string, token: string): Promise<void> {
  await clients().kube.runs.jsonPatch(namespace, name, [
    { op: 'add', path: '/metadata/annotations', value: { [RETRY_ANNOTATION]: token } },
  ]);
}

/** A run as the API stores it: its status holds only the step records not sealed into segments. */
export async function storedRun(namespace: string, name: string): Promise<DagRunResource> {
  return clients().kube.runs.get(namespace, name);
}

/** A run with every step's record in its status, sealed ones included (as the API server shows it). */
export async function getRun(namespace: string, name: string): Promise<DagRunResource> {
  return withSealedRecords(await storedRun(namespace, name));
}

export async function withSealedRecords(run: DagRunResource): Promise<DagRunResource> {
  return withSealed(run, await readSealed(clients().kube.segments, run));
}

/** The root and child runs of one DAG name in a namespace, read from the API (not a cache). */
export async function runsOf(namespace: string, dagName: string): Promise<DagRunResource[]> {
  return (await clients().kube.runs.list(namespace)).items.filter((r) => r.spec.dagName === dagName);
}

/** Then: waits for the run to finish and returns it. */
export async function finishedRun(namespace: string, name: string, timeoutMs = 60_000): Promise<DagRunResource> {
  let run: DagRunResource | undefined;
  await waitFor(
    `run ${name} to finish`,
    async () => {
      run = await storedRun(namespace, name);
      return run.status?.finishedAt !== undefined;
    },
    timeoutMs,
    100,
  );
  return withSealedRecords(run as DagRunResource);
}

/** Waits until a step runs; a run that ends first, or a timeout, fails with what the run shows. */
export async function runningStep(
  namespace: string,
  name: string,
  step: string,
  timeoutMs = 30_000,
): Promise<DagRunResource> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await getRun(namespace, name);
    if (run.status?.nodes?.find((n) => n.name === step)?.statusLabel === 'running') return run;
    if (run.status?.finishedAt !== undefined || Date.now() > deadline) {
      const seen = {
        statusLabel: run.status?.statusLabel,
        error: run.status?.error,
        steps: stepStates(run),
        prepared: run.status?.prepared !== undefined,
      };
      throw new Error(
        `step ${step} of ${name} did not run within ${String(timeoutMs / 1000)} s: ${JSON.stringify(seen)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The status of each step that has a record; a step that never started has none (core/resources/run-records.ts). */
export const stepStates = (run: DagRunResource): Record<string, string> =>
  Object.fromEntries((run.status?.nodes ?? []).map((n) => [n.name, n.statusLabel]));

/** A step attempt's archived log, read through the operator's own log store. */
export async function stepLog(
  operator: RunningOperator,
  run: DagRunResource,
  step: string,
  stream: 'stdout' | 'stderr' = 'stdout',
  attempt = 0,
): Promise<string | undefined> {
  const store = new DirectoryLogStore(operator.logDir);
  const ref = {
    namespace: run.metadata?.namespace ?? '',
    dagName: run.spec.dagName ?? '',
    dagRunId: run.spec.dagRunId ?? '',
    step,
    attempt,
  };
  // Logs nobody needed for a decision are archived just after the status is written.
  await waitFor(`the log of ${step}`, () => store.exists(ref), 10_000, 50).catch(() => undefined);
  return store.read(ref, stream);
}

/** What the node agents' ledgers recorded for one Pod of a namespace: each start and exit, with its node. */
export function ledgerOf(namespace: string, pod: string): LedgerEntry[] {
  return inject('cluster')
    .nodes.flatMap((node) => readLedger(node.ledger))
    .filter((e) => e.namespace === namespace && e.pod === pod);
}

/**
 * Most step processes of a namespace (and, with `pods`, only those Pods) running at the same
 * moment, from the node agents' ledgers: what really ran, not what a status said.
 */
export function peakConcurrency(namespace: string, pods: (pod: string) => boolean = () => true): number {
  const events = inject('cluster')
    .nodes.flatMap((node) => readLedger(node.ledger))
    .filter((e) => e.namespace === namespace && pods(e.pod) && (e.event === 'start' || e.event === 'exit'))
    .sort((a, b) => a.time.localeCompare(b.time) || (a.event === 'exit' ? -1 : 1));
  let running = 0;
  let peak = 0;
  for (const e of events) {
    running += e.event === 'start' ? 1 : -1;
    peak = Math.max(peak, running);
  }
  return peak;
}

/** The Event of this reason on a run (a Warning the operator recorded), once it is there. */
export async function warningOf(namespace: string, run: string, reason: string): Promise<CoreV1Event> {
  let warning: CoreV1Event | undefined;
  await waitFor(
    `the ${reason} Event of ${run}`,
    async () => {
      const events = await clients().core.listNamespacedEvent({
        namespace,
        fieldSelector: `involvedObject.name=${run}`,
      });
      warning = events.items.find((e) => e.reason === reason);
      return warning !== undefined;
    },
    60_000,
    250,
  );
  return warning as CoreV1Event;
}

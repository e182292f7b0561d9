/**
 * Traces of runs (issue 13) end to end: a traced run with a chain, a failing step that retries
 * and a sub-DAG call exports one trace to a real OpenTelemetry Collector (built from its Go
 * modules, test/otel-collector.ts) from its telemetry Pods, never from the operator; each step
 * attempt has its own span under the step's, which its Pod sees as TRACEPARENT and under which
 * a sub-run hangs; a restarted operator sends nothing twice.
 * The telemetry Pods run `kubedag-step telemetry`, which the local cluster puts on the node
 * agents' PATH (cluster/step-runner.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DagRunResource } from '../../core/resources/types.ts';
import { startCollector, type Collector, type ReceivedSpan } from '../otel-collector.ts';
import { finishedRun, givenDag, runsOf, startOperator, whenRun, type RunningOperator } from './operator-support.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';

const { core } = clients();

let ns = '';
let operator: RunningOperator;
let collector: Collector;

beforeAll(async () => {
  collector = await startCollector();
  ns = await createNamespace(core, 'otel');
  operator = await startOperator(ns);
}, 600_000);

afterAll(async () => {
  await operator.stop();
  await collector.stop();
  await deleteNamespace(core, ns);
});

const dagYaml = (endpoint: string): string => `
type: graph
otel: {enabled: true, endpoint: "${endpoint}", timeout: 5s, resource: {team: data}}
steps:
  - name: extract
    command: printenv TRACEPARENT
    output: TP
  - name: load
    depends: extract
    command: exit 3
    retryPolicy: {limit: 1, intervalSec: 1}
  - name: sub
    depends: extract
    call: child
---
name: child
otel: {enabled: true, endpoint: "${endpoint}"}
steps:
  - name: inner
    command: printenv TRACEPARENT
    output: TP
`;

const exported = (run: DagRunResource): boolean => run.status?.telemetry !== undefined;
const byName = (spans: ReceivedSpan[], name: string): ReceivedSpan | undefined => spans.find((s) => s.name === name);

/** Waits for both runs to record their export; on a timeout, says what the runs, Pods and collector show. */
async function recorded(): Promise<void> {
  const runs = async (): Promise<DagRunResource[]> => [...(await runsOf(ns, 'traced')), ...(await runsOf(ns, 'child'))];
  try {
    await waitFor(
      'both runs to record their export',
      async () => {
        const all = await runs();
        return all.length === 2 && all.every(exported);
      },
      60_000,
      200,
    );
  } catch (error) {
    const pods = await core.listNamespacedPod({ namespace: ns });
    const shown = {
      runs: (await runs()).map((r) => ({
        name: r.metadata?.name,
        status: r.status?.statusLabel,
        error: r.status?.error,
        nodes: r.status?.nodes?.map((n) => [n.name, n.statusLabel, n.error]),
        telemetry: r.status?.telemetry,
      })),
      pods: pods.items.map((p) => ({
        name: p.metadata?.name,
        phase: p.status?.phase,
        state: p.status?.containerStatuses?.[0]?.state,
      })),
      spans: collector.spans().map((x) => x.name),
      operator: operator
        .output()
        .split('\n')
        .filter((l) => /telemetry|error|warn/i.test(l))
        .slice(-20),
    };
    throw new Error(`${(error as Error).message}: ${JSON.stringify(shown, null, 1)}`, { cause: error });
  }
}

const SPANS = 11;

/** One trace: names, parents, status codes, attributes, resource, and the TRACEPARENT each attempt saw. */
function expectTrace(spans: ReceivedSpan[], root: DagRunResource | undefined, child: DagRunResource | undefined): void {
  const steps = ['Step: extract', 'Step: inner', 'Step: load', 'Step: sub'];
  expect(spans.map((s) => s.name).sort()).toEqual([
    ...Array<string>(4).fill('Attempt 0'),
    'Attempt 1',
    'DAG: child',
    'DAG: traced',
    ...steps,
  ]);
  expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
  const span = (name: string): ReceivedSpan => {
    const found = byName(spans, name);
    if (found === undefined) throw new Error(`no span ${name}`);
    return found;
  };
  const attempt = (step: string, n: number): ReceivedSpan => {
    const found = spans.find((s) => s.name === `Attempt ${String(n)}` && s.attributes['step.name'] === step);
    if (found === undefined) throw new Error(`no span of attempt ${String(n)} of ${step}`);
    return found;
  };
  const [run, childRun, load] = [span('DAG: traced'), span('DAG: child'), span('Step: load')];
  expect(run.parentSpanId).toBe('');
  expect(['Step: extract', 'Step: load', 'Step: sub'].map((n) => span(n).parentSpanId)).toEqual([
    run.spanId,
    run.spanId,
    run.spanId,
  ]);
  expect(childRun.parentSpanId).toBe(attempt('sub', 0).spanId);
  expect(span('Step: inner').parentSpanId).toBe(childRun.spanId);
  // Each attempt under its step; the retried step's two attempts one after the other, inside it.
  for (const [step, n] of [
    ['extract', 0],
    ['load', 0],
    ['load', 1],
    ['sub', 0],
    ['inner', 0],
  ] as const)
    expect(attempt(step, n).parentSpanId).toBe(span(`Step: ${step}`).spanId);
  const [first, second] = [attempt('load', 0), attempt('load', 1)];
  expect([load.startMs <= first.startMs, first.endMs <= second.startMs, second.endMs <= load.endMs]).toEqual([
    true,
    true,
    true,
  ]);
  expect([first.attributes, second.attributes]).toEqual([
    { 'step.name': 'load', 'step.attempt': 0, 'step.status': 'failed', 'step.exit_code': 3 },
    { 'step.name': 'load', 'step.attempt': 1, 'step.status': 'failed', 'step.exit_code': 3 },
  ]);
  expect([first.status.code, second.status.code, attempt('extract', 0).status.code]).toEqual([2, 2, 1]);
  // Status codes: 2 error, 1 ok.
  expect([run.status.code, load.status.code, span('Step: extract').status.code, childRun.status.code]).toEqual([
    2, 2, 1, 1,
  ]);
  expect(load.attributes).toEqual({
    'step.name': 'load',
    'step.status': 'failed',
    'step.exit_code': 3,
    'step.retry_count': 1,
  });
  expect(run.attributes).toEqual({ 'dag.name': 'traced', 'dag.run_id': root?.spec.dagRunId, 'dag.status': 'failed' });
  expect(childRun.attributes).toMatchObject({
    'dag.name': 'child',
    'dag.parent_name': 'traced',
    'dag.parent_run_id': root?.spec.dagRunId,
  });
  expect(run.resource).toEqual({ 'service.name': 'dagu', team: 'data' });
  const seen = (r: DagRunResource | undefined, step: string): string | undefined =>
    r?.status?.nodes?.find((n) => n.name === step)?.outputs?.TP;
  expect(seen(root, 'extract')).toBe(`00-${run.traceId}-${attempt('extract', 0).spanId}-01`);
  expect(seen(child, 'inner')).toBe(`00-${run.traceId}-${attempt('inner', 0).spanId}-01`);
}

describe('a traced run', () => {
  it('exports one trace: the run, its steps, a span per attempt (two for the retried step) and the sub-run under its calling attempt, each attempt seeing its own span as TRACEPARENT', async () => {
    await givenDag(ns, 'traced', dagYaml(`http://${collector.http}/v1/traces`));
    await whenRun(ns, 'traced-1', 'traced');
    const parent = await finishedRun(ns, 'traced-1', 90_000);
    expect(parent.status?.statusLabel).toBe('failed');
    await recorded();
    const [root] = await runsOf(ns, 'traced');
    const [child] = await runsOf(ns, 'child');
    expect([root?.status?.telemetry?.state, child?.status?.telemetry?.state]).toEqual(['exported', 'exported']);

    await expect.poll(() => collector.spans().length, { timeout: 10_000 }).toBe(SPANS);
    expectTrace(collector.spans(), root, child);
  });

  it('is not exported again by a restarted operator, and its telemetry Pods are gone', async () => {
    await waitFor(
      'the telemetry Pods to be removed',
      async () => {
        const pods = await core.listNamespacedPod({ namespace: ns, labelSelector: 'kubedag.io/telemetry' });
        return pods.items.length === 0;
      },
      30_000,
      200,
    );
    await operator.stop();
    operator = await startOperator(ns);
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const pods = await core.listNamespacedPod({ namespace: ns, labelSelector: 'kubedag.io/telemetry' });
    expect(pods.items.map((p) => p.metadata?.name)).toEqual([]);
    expect(collector.spans().length).toBe(SPANS);
  });
});

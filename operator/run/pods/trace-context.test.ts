import { describe, expect, it } from 'vitest';
import { loadDag } from '../../../core/dag/index.ts';
import { ANNOTATIONS } from '../../../core/resources/constants.ts';
import type { DagRunStatus } from '../../../core/resources/schemas.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import { dagRun } from '../../../test/builders/dag-run.ts';
import {
  attemptSpanId,
  attemptTraceparent,
  boundedSpans,
  parseTraceparent,
  runSpanId,
  runSpans,
  SPANS_BYTES,
  stepSpanId,
  telemetrySpec,
  traceOf,
  traceparent,
} from './trace-context.ts';

const PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

function run(
  status: DagRunStatus,
  extra: { uid?: string; annotations?: Record<string, string>; parent?: boolean } = {},
): DagRunResource {
  const built = dagRun('etl-1')
    .namespace('default')
    .uid(extra.uid ?? 'uid-1')
    .spec({ dagName: 'etl', dagRunId: 'r1' })
    .status(status);
  if (extra.annotations !== undefined) built.annotate(extra.annotations);
  if (extra.parent === true) built.child(['main', 'p1']);
  return built.build();
}

const finished: DagRunStatus = {
  status: 2,
  statusLabel: 'failed',
  startedAt: '2026-11-24T10:00:00Z',
  finishedAt: '2026-11-24T10:00:09Z',
  error: 'step load failed',
  nodes: [
    {
      name: 'extract',
      status: 4,
      statusLabel: 'succeeded',
      startedAt: '2026-11-24T10:00:01Z',
      finishedAt: '2026-11-24T10:00:02Z',
      exitCode: 0,
    },
    {
      name: 'load',
      status: 2,
      statusLabel: 'failed',
      startedAt: '2026-11-24T10:00:02Z',
      finishedAt: '2026-11-24T10:00:08Z',
      exitCode: 3,
      retryCount: 1,
      error: 'exit status 3',
      attempt: 1,
      attempts: [
        { attempt: 0, startedAt: '2026-11-24T10:00:02Z', finishedAt: '2026-11-24T10:00:03Z', status: 2, exitCode: 3 },
        { attempt: 1, startedAt: '2026-11-24T10:00:05Z', finishedAt: '2026-11-24T10:00:08Z', status: 2, exitCode: 3 },
      ],
    },
    { name: 'report', status: 5, statusLabel: 'skipped' },
  ],
  onExit: {
    name: 'onExit',
    status: 4,
    statusLabel: 'succeeded',
    startedAt: '2026-11-24T10:00:08Z',
    finishedAt: '2026-11-24T10:00:09Z',
  },
};

describe('trace and span ids are derived from the run', () => {
  const cases: { name: string; got: () => unknown; want: unknown }[] = [
    {
      name: 'the same run gives the same trace id every time',
      got: () => traceOf(run(finished)).traceId === traceOf(run(finished)).traceId,
      want: true,
    },
    {
      name: 'another run gives another trace id',
      got: () => traceOf(run(finished)).traceId === traceOf(run(finished, { uid: 'uid-2' })).traceId,
      want: false,
    },
    {
      name: 'a retry in place gives a new trace',
      got: () => traceOf(run(finished)).traceId === traceOf(run({ ...finished, retryToken: 't1' })).traceId,
      want: false,
    },
    {
      name: 'a trace id is 32 hex digits',
      got: () => /^[0-9a-f]{32}$/.test(traceOf(run(finished)).traceId),
      want: true,
    },
    {
      name: 'span ids are 16 hex digits and differ by step',
      got: () => {
        const [a, b] = [stepSpanId(traceOf(run(finished)), 'a'), stepSpanId(traceOf(run(finished)), 'b')];
        return [/^[0-9a-f]{16}$/.test(a), /^[0-9a-f]{16}$/.test(b), a === b];
      },
      want: [true, true, false],
    },
    {
      name: 'a sub-run joins the trace its parent passed on',
      got: () => traceOf(run(finished, { annotations: { [ANNOTATIONS.traceparent]: PARENT } })),
      want: { traceId: '0af7651916cd43dd8448eb211c80319c', parentSpanId: 'b7ad6b7169203331', seed: 'uid-1/' },
    },
    {
      name: 'an invalid traceparent on a run is not joined',
      got: () =>
        traceOf(run(finished, { annotations: { [ANNOTATIONS.traceparent]: '00-zz-b7ad6b7169203331-01' } }))
          .parentSpanId,
      want: undefined,
    },
    {
      name: 'an attempt sees its own span as TRACEPARENT',
      got: () =>
        attemptTraceparent(run(finished), 'load', 1) ===
        traceparent(traceOf(run(finished)).traceId, attemptSpanId(traceOf(run(finished)), 'load', 1)),
      want: true,
    },
    {
      name: 'attempts of a step have spans of their own, apart from the step span',
      got: () =>
        new Set([
          stepSpanId(traceOf(run(finished)), 'load'),
          attemptSpanId(traceOf(run(finished)), 'load', 0),
          attemptSpanId(traceOf(run(finished)), 'load', 1),
        ]).size,
      want: 3,
    },
  ];
  it.each(cases)('$name', ({ got, want }) => {
    expect(got()).toEqual(want);
  });
});

describe('parseTraceparent reads W3C trace context', () => {
  const cases: { name: string; text: string | undefined; want: unknown }[] = [
    {
      name: 'a sampled traceparent gives its ids',
      text: PARENT,
      want: { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' },
    },
    {
      name: 'an all-zero trace id is invalid',
      text: '00-00000000000000000000000000000000-b7ad6b7169203331-01',
      want: undefined,
    },
    { name: 'upper-case hex is invalid', text: PARENT.toUpperCase(), want: undefined },
    { name: 'nothing is nothing', text: undefined, want: undefined },
  ];
  it.each(cases)('$name', ({ text, want }) => {
    expect(parseTraceparent(text)).toEqual(want);
  });
});

describe('runSpans turns a finished run into Dagu-named spans', () => {
  const spans = runSpans(run(finished));
  const child = runSpans(
    run({ ...finished, nodes: [] }, { annotations: { [ANNOTATIONS.traceparent]: PARENT }, parent: true }),
  );
  const trace = traceOf(run(finished));
  const byName = (name: string): (typeof spans)[number] | undefined => spans.find((s) => s.name === name);
  const cases: { name: string; got: () => unknown; want: unknown }[] = [
    {
      name: 'a span for the run, each step or handler that started and each attempt it recorded, none for a skipped step',
      got: () => spans.map((s) => s.name),
      want: ['DAG: etl', 'Step: extract', 'Step: load', 'Attempt 0', 'Attempt 1', 'Step: onExit'],
    },
    {
      name: 'each attempt span hangs under its step span with its own times, status and exit code',
      got: () =>
        spans
          .filter((s) => s.name.startsWith('Attempt'))
          .map((s) => [s.spanId, s.parentSpanId, s.startMs, s.endMs, s.attributes, s.outcome, s.message]),
      want: [
        [
          attemptSpanId(trace, 'load', 0),
          stepSpanId(trace, 'load'),
          Date.parse('2026-11-24T10:00:02Z'),
          Date.parse('2026-11-24T10:00:03Z'),
          { 'step.name': 'load', 'step.attempt': 0, 'step.status': 'failed', 'step.exit_code': 3 },
          'error',
          undefined,
        ],
        [
          attemptSpanId(trace, 'load', 1),
          stepSpanId(trace, 'load'),
          Date.parse('2026-11-24T10:00:05Z'),
          Date.parse('2026-11-24T10:00:08Z'),
          { 'step.name': 'load', 'step.attempt': 1, 'step.status': 'failed', 'step.exit_code': 3 },
          'error',
          'exit status 3',
        ],
      ],
    },
    {
      name: 'an attempt whose end was never recorded ends with its step',
      got: () =>
        runSpans(
          run({
            ...finished,
            nodes: [
              {
                name: 'x',
                status: 4,
                statusLabel: 'succeeded',
                startedAt: '2026-11-24T10:00:01Z',
                finishedAt: '2026-11-24T10:00:04Z',
                attempts: [{ attempt: 0, startedAt: '2026-11-24T10:00:01Z', status: 1 }],
              },
            ],
          }),
        )[2]?.endMs,
      want: Date.parse('2026-11-24T10:00:04Z'),
    },
    {
      name: 'a step that dropped early attempts says how many',
      got: () =>
        runSpans(
          run({
            ...finished,
            nodes: [
              {
                name: 'x',
                status: 4,
                statusLabel: 'succeeded',
                startedAt: '2026-11-24T10:00:01Z',
                finishedAt: '2026-11-24T10:00:04Z',
                attemptsDropped: 5,
              },
            ],
          }),
        )[1]?.attributes['step.attempts_dropped'],
      want: 5,
    },
    {
      name: 'the run span is the root, with the run attributes and an error status when the run failed',
      got: () => byName('DAG: etl'),
      want: {
        name: 'DAG: etl',
        traceId: trace.traceId,
        spanId: runSpanId(trace),
        startMs: Date.parse('2026-11-24T10:00:00Z'),
        endMs: Date.parse('2026-11-24T10:00:09Z'),
        attributes: { 'dag.name': 'etl', 'dag.run_id': 'r1', 'dag.status': 'failed' },
        outcome: 'error',
        message: 'step load failed',
      },
    },
    {
      name: 'a failed step that retried carries its exit code, retries and error under the run span',
      got: () => byName('Step: load'),
      want: {
        name: 'Step: load',
        traceId: trace.traceId,
        spanId: stepSpanId(trace, 'load'),
        parentSpanId: runSpanId(trace),
        startMs: Date.parse('2026-11-24T10:00:02Z'),
        endMs: Date.parse('2026-11-24T10:00:08Z'),
        attributes: { 'step.name': 'load', 'step.status': 'failed', 'step.exit_code': 3, 'step.retry_count': 1 },
        outcome: 'error',
        message: 'exit status 3',
      },
    },
    {
      name: 'a succeeded step ends ok without an exit code attribute',
      got: () => [byName('Step: extract')?.outcome, byName('Step: extract')?.attributes],
      want: ['ok', { 'step.name': 'extract', 'step.status': 'succeeded' }],
    },
    {
      name: 'a sub-run span hangs under the calling step and names its parent',
      got: () => [
        child[0]?.traceId,
        child[0]?.parentSpanId,
        child[0]?.attributes['dag.parent_run_id'],
        child[0]?.attributes['dag.parent_name'],
      ],
      want: ['0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331', 'p1', 'main'],
    },
  ];
  it.each(cases)('$name', ({ got, want }) => {
    expect(got()).toEqual(want);
  });
});

describe('telemetrySpec carries the exporter settings of a traced DAG only', () => {
  const dagOf = (otel: string): ReturnType<typeof loadDag>['dag'] =>
    loadDag(`otel: ${otel}\nsteps:\n  - command: make\n`, { fileName: 'etl' }).dag;
  const cases: { name: string; otel: string; want: unknown }[] = [
    { name: 'a disabled block exports nothing', otel: '{enabled: false, endpoint: "c:4317"}', want: undefined },
    {
      name: 'an enabled block gives the URL, headers, timeout and resource with service.name dagu unless the DAG says otherwise',
      otel: '{enabled: true, endpoint: "c:4318/v1/traces", insecure: true, timeout: 5s, headers: {x-tenant: sre}, resource: {team: data}}',
      want: {
        protocol: 'http',
        url: 'http://c:4318/v1/traces',
        headers: { 'x-tenant': 'sre' },
        timeoutMs: 5000,
        resource: { 'service.name': 'dagu', team: 'data' },
        spans: runSpans(run(finished)),
      },
    },
    {
      name: 'the DAG may name the service',
      otel: '{enabled: true, endpoint: "c:4317", resource: {service.name: etl}}',
      want: expect.objectContaining({ resource: { 'service.name': 'etl' } }),
    },
  ];
  it.each(cases)('$name', ({ otel, want }) => {
    expect(telemetrySpec(dagOf(otel), run(finished))).toEqual(want);
  });
});

describe('boundedSpans keeps a big run exportable from one environment variable', () => {
  const step = (i: number): DagRunStatus['nodes'] => [
    {
      name: `s${String(i).padStart(5, '0')}`,
      status: 4,
      statusLabel: 'succeeded',
      startedAt: new Date(Date.parse('2026-11-24T10:00:01Z') + i * 1000).toISOString(),
      finishedAt: '2026-11-24T12:00:00Z',
      attempts: [{ attempt: 0, startedAt: '2026-11-24T10:00:01Z', status: 4 }],
    },
  ];
  const big = run({ ...finished, nodes: Array.from({ length: 3000 }, (_, i) => step(3000 - i) ?? []).flat() });

  it('keeps every span of a run that fits', () => {
    expect(boundedSpans(runSpans(run(finished)))).toEqual(runSpans(run(finished)));
  });

  it('keeps the run span and the earliest steps with their attempts within the limit, and counts what it left out', () => {
    const all = runSpans(big);
    const kept = boundedSpans(all);
    expect(JSON.stringify(all).length).toBeGreaterThan(SPANS_BYTES * 3);
    expect(JSON.stringify(kept).length).toBeLessThanOrEqual(SPANS_BYTES);
    expect(kept[0]?.spanId).toBe(all[0]?.spanId);
    expect(kept[0]?.attributes['kubedag.spans_dropped']).toBe(all.length - kept.length);
    expect(kept[1]?.name).toBe('Step: s00001');
    const stepIds = new Set(kept.map((s) => s.spanId));
    expect(kept.slice(1).every((s) => s.parentSpanId === kept[0]?.spanId || stepIds.has(s.parentSpanId ?? ''))).toBe(
      true,
    );
    expect(
      telemetrySpec(
        loadDag('otel: {enabled: true, endpoint: "http://c:4318/v1/traces"}\nsteps: [echo]', { fileName: 'etl' }).dag,
        big,
      )?.spans,
    ).toEqual(kept);
  });
});

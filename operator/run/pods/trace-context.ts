/**
 * A run's trace, decided from data so that nothing about it has to be remembered: the trace
 * and span ids are hashes of the run's uid (and the retry it is in), so every step Pod gets its
 * TRACEPARENT before its span exists, and the spans exported after the run come out the same
 * however often they are rebuilt. A sub-run joins its parent's trace through the traceparent
 * its parent wrote on it (the calling step's span), as a Dagu sub-DAG does through TRACEPARENT
 * in its environment. One span per run ("DAG: <name>") and one per step that started
 * ("Step: <name>", covering its retries and repeats), named and attributed as Dagu 1.24 does;
 * under each step span, one per attempt the node still records ("Attempt <n>", attempt-records.ts),
 * which is what the attempt's Pod or child run sees as its parent. Pure.
 */
import { createHash } from 'node:crypto';
import type { Dag, OtelAttribute } from '../../../core/dag/index.ts';
import { ANNOTATIONS } from '../../../core/resources/constants.ts';
import type { AttemptRecord, DagRunStatus, RunNode } from '../../../core/resources/schemas.ts';
import { RunStatus, StepStatus, stepStatusLabel } from '../../../core/resources/status.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import type { SpanOutcome, TelemetrySpan, TelemetrySpec } from '../../../core/runner/telemetry.ts';

export interface TraceContext {
  readonly traceId: string;
  /** The span this run's span hangs under: the parent run's calling step, for a sub-run. */
  readonly parentSpanId?: string;
  /** What the run's own span ids derive from. */
  readonly seed: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
const ZERO = /^0+$/;

function hex(text: string, digits: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, digits);
}

/** A W3C traceparent (version 00, sampled), the form Dagu hands a sub-DAG as TRACEPARENT. */
export function traceparent(traceId: string, spanId: string): string {
  return `00-${traceId}-${spanId}-01`;
}

/** A traceparent's ids, or undefined when it is not a valid one. */
export function parseTraceparent(text: string | undefined): { traceId: string; spanId: string } | undefined {
  const match = TRACEPARENT.exec(text?.trim() ?? '');
  if (match === null) return undefined;
  const [, traceId = '', spanId = ''] = match;
  return ZERO.test(traceId) || ZERO.test(spanId) ? undefined : { traceId, spanId };
}

/**
 * The run's trace: its parent's, when its parent traced and passed the calling step's context
 * on; else one of its own. A retry in place is a new execution, so it gets new ids.
 */
export function traceOf(run: DagRunResource): TraceContext {
  const seed = `${run.metadata?.uid ?? ''}/${run.status?.retryToken ?? ''}`;
  const parent = parseTraceparent(run.metadata?.annotations?.[ANNOTATIONS.traceparent]);
  return parent === undefined
    ? { traceId: hex(`trace/${seed}`, 32), seed }
    : { traceId: parent.traceId, parentSpanId: parent.spanId, seed };
}

export function runSpanId(trace: TraceContext): string {
  return hex(`run/${trace.seed}`, 16);
}

export function stepSpanId(trace: TraceContext, step: string): string {
  return hex(`step/${trace.seed}/${step}`, 16);
}

export function attemptSpanId(trace: TraceContext, step: string, attempt: number): string {
  return hex(`attempt/${trace.seed}/${step}/${String(attempt)}`, 16);
}

/**
 * What an attempt of a step of a traced run sees as TRACEPARENT (its Pod's environment, or its
 * child run's annotation): the attempt's own span, known before the attempt starts.
 */
export function attemptTraceparent(run: DagRunResource, step: string, attempt: number): string {
  const trace = traceOf(run);
  return traceparent(trace.traceId, attemptSpanId(trace, step, attempt));
}

/** Whether the run exports a trace. */
export function traced(dag: Dag): boolean {
  return dag.otel?.enabled === true && dag.otel.url !== undefined;
}

const ms = (time: string | undefined): number | undefined => (time === undefined ? undefined : Date.parse(time));

function runOutcome(status: DagRunStatus): { outcome: SpanOutcome; message?: string } {
  if (status.status === RunStatus.Failed)
    return { outcome: 'error', ...(status.error === undefined ? {} : { message: status.error }) };
  return {
    outcome: status.status === RunStatus.Succeeded || status.status === RunStatus.PartiallySucceeded ? 'ok' : 'unset',
  };
}

function stepOutcome(status: number, error?: string): { outcome: SpanOutcome; message?: string } {
  if (status === StepStatus.Failed) return { outcome: 'error', ...(error === undefined ? {} : { message: error }) };
  return { outcome: status === StepStatus.Succeeded || status === StepStatus.PartiallySucceeded ? 'ok' : 'unset' };
}

/** Every node of the status that can have run: steps, then handlers. */
function nodesOf(status: DagRunStatus): RunNode[] {
  const handlers = [status.onInit, status.onWait, status.onSuccess, status.onFailure, status.onCancel, status.onExit];
  return [...(status.nodes ?? []), ...handlers.filter((n): n is RunNode => n !== undefined)];
}

/** The spans of a finished run: its own, then one per step or handler that started. */
export function runSpans(run: DagRunResource): TelemetrySpan[] {
  const status = run.status ?? {};
  const trace = traceOf(run);
  const end = ms(status.finishedAt) ?? ms(status.startedAt) ?? 0;
  const start = ms(status.startedAt) ?? end;
  const parent = run.spec.parent;
  const runSpan: TelemetrySpan = {
    name: `DAG: ${run.spec.dagName ?? ''}`,
    traceId: trace.traceId,
    spanId: runSpanId(trace),
    ...(trace.parentSpanId === undefined ? {} : { parentSpanId: trace.parentSpanId }),
    startMs: start,
    endMs: end,
    attributes: {
      'dag.name': run.spec.dagName ?? '',
      'dag.run_id': run.spec.dagRunId ?? '',
      ...(parent === undefined ? {} : { 'dag.parent_run_id': parent.dagRunId, 'dag.parent_name': parent.name }),
      'dag.status': status.statusLabel ?? '',
    },
    ...runOutcome(status),
  };
  const steps = nodesOf(status)
    .filter((node) => node.startedAt !== undefined)
    .flatMap((node) => {
      const stepStart = ms(node.startedAt) ?? start;
      const stepEnd = Math.max(stepStart, ms(node.finishedAt) ?? end);
      const stepSpan: TelemetrySpan = {
        name: `Step: ${node.name}`,
        traceId: trace.traceId,
        spanId: stepSpanId(trace, node.name),
        parentSpanId: runSpan.spanId,
        startMs: stepStart,
        endMs: stepEnd,
        attributes: {
          'step.name': node.name,
          'step.status': node.statusLabel,
          ...(node.exitCode === undefined || node.exitCode === 0 ? {} : { 'step.exit_code': node.exitCode }),
          ...(node.retryCount === undefined || node.retryCount === 0 ? {} : { 'step.retry_count': node.retryCount }),
          ...(node.attemptsDropped === undefined ? {} : { 'step.attempts_dropped': node.attemptsDropped }),
        },
        ...stepOutcome(node.status, node.error),
      };
      const attempts = (node.attempts ?? []).map((record) => attemptSpan(trace, node, record, stepSpan));
      return [stepSpan, ...attempts];
    });
  return [runSpan, ...steps];
}

/**
 * One attempt, under its step's span; one whose end was never recorded ends with the step's
 * span. Only the last attempt carries the step's error text (the node keeps no other); the
 * earlier ones say how they failed by status and exit code.
 */
function attemptSpan(trace: TraceContext, node: RunNode, record: AttemptRecord, step: TelemetrySpan): TelemetrySpan {
  const startMs = Math.max(step.startMs, ms(record.startedAt) ?? step.startMs);
  const last = record.attempt === (node.attempt ?? 0);
  return {
    name: `Attempt ${String(record.attempt)}`,
    traceId: trace.traceId,
    spanId: attemptSpanId(trace, node.name, record.attempt),
    parentSpanId: step.spanId,
    startMs,
    endMs: Math.max(startMs, ms(record.finishedAt) ?? step.endMs),
    attributes: {
      'step.name': node.name,
      'step.attempt': record.attempt,
      'step.status': stepStatusLabel(record.status),
      ...(record.exitCode === undefined || record.exitCode === 0 ? {} : { 'step.exit_code': record.exitCode }),
    },
    ...stepOutcome(record.status, last ? node.error : undefined),
  };
}

/**
 * Most bytes of spans a telemetry Pod is given: they travel in one environment variable, and
 * Linux refuses an environment string over 128 KiB. A run of thousands of steps exports its
 * run span and its first spans in start order up to this, and says how many it left out.
 */
export const SPANS_BYTES = 96 * 1024;

/** The spans within SPANS_BYTES: the run's own first, then steps by start; the run span counts the rest. */
export function boundedSpans(spans: readonly TelemetrySpan[], limit = SPANS_BYTES): TelemetrySpan[] {
  const [runSpan, ...rest] = spans;
  if (runSpan === undefined) return [];
  let used = JSON.stringify(runSpan).length + 64;
  const kept: TelemetrySpan[] = [];
  // A step's span and its attempts go together, so an attempt never hangs under a missing step.
  const groups: TelemetrySpan[][] = [];
  for (const span of rest) {
    if (span.parentSpanId === runSpan.spanId || groups.length === 0) groups.push([span]);
    else groups.at(-1)?.push(span);
  }
  groups.sort((a, b) => (a[0]?.startMs ?? 0) - (b[0]?.startMs ?? 0));
  let dropped = 0;
  for (const group of groups) {
    const bytes = group.reduce((sum, span) => sum + JSON.stringify(span).length + 1, 0);
    if (used + bytes > limit) {
      dropped += group.length;
      continue;
    }
    used += bytes;
    kept.push(...group);
  }
  return dropped === 0
    ? [runSpan, ...kept]
    : [{ ...runSpan, attributes: { ...runSpan.attributes, 'kubedag.spans_dropped': dropped } }, ...kept];
}

/**
 * What the telemetry Pod exports: the DAG's exporter settings and the run's spans. The resource
 * names the service `dagu`, as Dagu does, unless the DAG's own attributes say otherwise.
 */
export function telemetrySpec(dag: Dag, run: DagRunResource): TelemetrySpec | undefined {
  const otel = dag.otel;
  if (otel === undefined || !traced(dag) || otel.url === undefined) return undefined;
  const resource: Record<string, OtelAttribute> = { 'service.name': 'dagu', ...otel.resource };
  return {
    protocol: otel.protocol,
    url: otel.url,
    headers: otel.headers,
    ...(otel.timeoutMs === undefined ? {} : { timeoutMs: otel.timeoutMs }),
    resource,
    spans: boundedSpans(runSpans(run)),
  };
}

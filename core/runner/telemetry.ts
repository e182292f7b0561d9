/**
 * What the operator hands the step runner's `telemetry` command (`kubedag-step telemetry`,
 * step/telemetry.ts) in a run's telemetry Pod: where to export (the DAG's `otel` block, its
 * `${VAR}` references kept for the Pod to expand from its own environment, so secret values never
 * appear in the Pod spec) and the run's finished spans, every id and time already decided by the
 * operator from the run's status. Plain JSON in one environment variable.
 */
import type { OtelAttribute, OtelProtocol } from '../dag/index.ts';

/** The environment variable that carries a TelemetrySpec as JSON. */
export const TELEMETRY_ENV = 'KUBEDAG_TELEMETRY';

/** How a span ended: OpenTelemetry's status codes by name. */
export type SpanOutcome = 'unset' | 'ok' | 'error';

export interface TelemetrySpan {
  readonly name: string;
  /** 32 lower-case hex digits. */
  readonly traceId: string;
  /** 16 lower-case hex digits. */
  readonly spanId: string;
  /** The parent's span id; absent on a trace's root span. */
  readonly parentSpanId?: string;
  /** Milliseconds since the epoch. */
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Readonly<Record<string, OtelAttribute>>;
  readonly outcome: SpanOutcome;
  /** With outcome `error`: why. */
  readonly message?: string;
}

export interface TelemetrySpec {
  readonly protocol: OtelProtocol;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  /** Resource attributes, `service.name` first (the DAG's own win). */
  readonly resource: Readonly<Record<string, OtelAttribute>>;
  readonly spans: readonly TelemetrySpan[];
}

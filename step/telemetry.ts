/**
 * `kubedag-step telemetry`: exports a finished run's spans (a TelemetrySpec in
 * $KUBEDAG_TELEMETRY, core/runner/telemetry.ts) with OpenTelemetry's OTLP exporters, over HTTP or
 * gRPC as the DAG's endpoint says. The operator decided every id and time from the run's status;
 * this only hands them to the SDK as finished spans and reports whether the collector took them.
 * `${VAR}` in the URL, headers and resource attributes expands from the Pod's environment (the
 * run's variables and secrets), as Dagu evaluates its otel block.
 */
import { credentials, Metadata } from '@grpc/grpc-js';
import { SpanKind, SpanStatusCode, TraceFlags, type SpanStatus } from '@opentelemetry/api';
import { ExportResultCode, millisToHrTime, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as HttpExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import type { OtelAttribute } from '../core/dag/index.ts';
import { TELEMETRY_ENV, type SpanOutcome, type TelemetrySpan, type TelemetrySpec } from '../core/runner/telemetry.ts';
import { expandSetting, type StepIO } from './io.ts';

const SCOPE = { name: 'github.com/dagu-org/dagu' };
const CODES: Readonly<Record<SpanOutcome, SpanStatusCode>> = {
  unset: SpanStatusCode.UNSET,
  ok: SpanStatusCode.OK,
  error: SpanStatusCode.ERROR,
};

/** The spec from its variable; a clear error when it is missing or not a spec. */
export function parseTelemetrySpec(text: string | undefined): TelemetrySpec {
  if (text === undefined || text === '') throw new Error(`${TELEMETRY_ENV} is not set`);
  const spec = JSON.parse(text) as Partial<TelemetrySpec> | null;
  if (
    spec === null ||
    typeof spec.url !== 'string' ||
    (spec.protocol !== 'http' && spec.protocol !== 'grpc') ||
    !Array.isArray(spec.spans)
  ) {
    throw new Error(`${TELEMETRY_ENV} is not a telemetry spec (protocol, url and spans are required)`);
  }
  return spec as TelemetrySpec;
}

/** A span that already ended, with the ids and times it was given: what exporters read. */
export function readableSpan(span: TelemetrySpan, resource: Resource): ReadableSpan {
  const context = { traceId: span.traceId, spanId: span.spanId, traceFlags: TraceFlags.SAMPLED };
  const status: SpanStatus = {
    code: CODES[span.outcome],
    ...(span.outcome === 'error' && span.message !== undefined ? { message: span.message } : {}),
  };
  const startTime = millisToHrTime(span.startMs);
  const endTime = millisToHrTime(span.endMs);
  return {
    name: span.name,
    kind: SpanKind.INTERNAL,
    spanContext: () => context,
    ...(span.parentSpanId === undefined
      ? {}
      : {
          parentSpanContext: {
            traceId: span.traceId,
            spanId: span.parentSpanId,
            traceFlags: TraceFlags.SAMPLED,
            isRemote: true,
          },
        }),
    startTime,
    endTime,
    duration: millisToHrTime(Math.max(0, span.endMs - span.startMs)),
    status,
    attributes: span.attributes,
    links: [],
    events: [],
    ended: true,
    resource,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

function expanded(
  values: Readonly<Record<string, OtelAttribute>>,
  env: Readonly<Record<string, string>>,
): Record<string, OtelAttribute> {
  return Object.fromEntries(
    Object.entries(values).map(([k, v]) => [k, typeof v === 'string' ? expandSetting(v, env) : v]),
  );
}

function exporterFor(spec: TelemetrySpec, env: Readonly<Record<string, string>>): SpanExporter {
  const url = expandSetting(spec.url, env);
  const headers = Object.fromEntries(Object.entries(spec.headers).map(([k, v]) => [k, expandSetting(v, env)]));
  const timeout = spec.timeoutMs === undefined ? {} : { timeoutMillis: spec.timeoutMs };
  if (spec.protocol === 'http') return new HttpExporter({ url, headers, ...timeout });
  const metadata = new Metadata();
  for (const [k, v] of Object.entries(headers)) metadata.set(k, v);
  const secure = url.startsWith('https://');
  return new GrpcExporter({
    url,
    metadata,
    credentials: secure ? credentials.createSsl() : credentials.createInsecure(),
    ...timeout,
  });
}

function exported(exporter: SpanExporter, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise((resolve) => {
    exporter.export(spans, resolve);
  });
}

/** Exports the spans; 0 when the collector took them, 1 (with the reason on stderr) when not. */
export async function runTelemetry(io: StepIO): Promise<number> {
  const spec = parseTelemetrySpec(io.env[TELEMETRY_ENV]);
  const resource = resourceFromAttributes(expanded(spec.resource, io.env));
  const exporter = exporterFor(spec, io.env);
  try {
    const result = await exported(
      exporter,
      spec.spans.map((span) => readableSpan(span, resource)),
    );
    if (result.code !== ExportResultCode.SUCCESS) {
      io.stderr.write(
        `kubedag-step telemetry: export to ${spec.url} failed: ${result.error?.message ?? 'unknown error'}\n`,
      );
      return 1;
    }
    io.stdout.write(
      `exported ${String(spec.spans.length)} spans of trace ${spec.spans[0]?.traceId ?? '-'} to ${spec.url}\n`,
    );
    return 0;
  } finally {
    await exporter.shutdown();
  }
}

/**
 * A real OpenTelemetry Collector on loopback for tests of trace export (cluster/otelcol.ts builds
 * it): OTLP over gRPC and HTTP in, OTLP/HTTP JSON out to a small sink in the test, where the
 * spans it forwarded are read back. The collector parses and re-encodes what it is sent, so a
 * span the SDK encoded wrongly never reaches the sink.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureCollector } from '../cluster/otelcol.ts';
import { freePort } from '../cluster/processes.ts';

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };

export interface ReceivedSpan {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly status: { readonly code: number; readonly message?: string };
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  readonly resource: Readonly<Record<string, string | number | boolean>>;
}

export interface Collector {
  /** host:port of the OTLP/gRPC receiver. */
  readonly grpc: string;
  /** host:port of the OTLP/HTTP receiver (send to `http://<it>/v1/traces`). */
  readonly http: string;
  /** Every span forwarded so far. */
  readonly spans: () => ReceivedSpan[];
  /** The collector's log. */
  readonly output: () => string;
  stop(): Promise<void>;
}

function value(v: AnyValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  return v.doubleValue ?? '';
}

function attributes(list: { key: string; value: AnyValue }[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, value(a.value)]));
}

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: AnyValue }[] };
    scopeSpans?: {
      spans?: {
        name: string;
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        startTimeUnixNano: string;
        endTimeUnixNano: string;
        status?: { code?: number; message?: string };
        attributes?: { key: string; value: AnyValue }[];
      }[];
    }[];
  }[];
}

function spansOf(request: ExportRequest): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((rs) =>
    (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        name: s.name,
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? '',
        startMs: Number(BigInt(s.startTimeUnixNano) / 1_000_000n),
        endMs: Number(BigInt(s.endTimeUnixNano) / 1_000_000n),
        status: {
          code: s.status?.code ?? 0,
          ...(s.status?.message === undefined ? {} : { message: s.status.message }),
        },
        attributes: attributes(s.attributes),
        resource: attributes(rs.resource?.attributes),
      })),
    ),
  );
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}

async function ready(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the collector exited:\n${output()}`);
    const answered = await fetch(`http://127.0.0.1:${String(port)}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    }).then(
      (r) => r.ok,
      () => false,
    );
    if (answered) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the collector did not answer within 30 s:\n${output()}`);
}

/** Starts a collector on free loopback ports. */
export async function startCollector(): Promise<Collector> {
  const binary = await ensureCollector();
  const received: ReceivedSpan[] = [];
  const sink = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push(...spansOf(JSON.parse(body) as ExportRequest));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const sinkPort = await listen(sink);
  const [grpcPort, httpPort] = [await freePort(), await freePort()];
  const dir = await mkdtemp(join(tmpdir(), 'kubedag-otelcol-'));
  const config = {
    receivers: {
      otlp: {
        protocols: {
          grpc: { endpoint: `127.0.0.1:${String(grpcPort)}` },
          http: { endpoint: `127.0.0.1:${String(httpPort)}`, include_metadata: true },
        },
      },
    },
    exporters: {
      otlp_http: {
        endpoint: `http://127.0.0.1:${String(sinkPort)}`,
        encoding: 'json',
        compression: 'none',
        retry_on_failure: { enabled: false },
      },
    },
    service: {
      pipelines: { traces: { receivers: ['otlp'], exporters: ['otlp_http'] } },
      // No metrics server: its default port would collide with other collectors on the machine.
      telemetry: { metrics: { level: 'none' }, logs: { level: 'info' } },
    },
  };
  await writeFile(join(dir, 'config.yaml'), JSON.stringify(config));
  const child = spawn(binary, [`--config=${join(dir, 'config.yaml')}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await ready(httpPort, child, () => output);
  return {
    grpc: `127.0.0.1:${String(grpcPort)}`,
    http: `127.0.0.1:${String(httpPort)}`,
    spans: () => [...received],
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      await new Promise((r) => sink.close(r));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

import { createServer, type IncomingHttpHeaders } from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TELEMETRY_ENV, type TelemetrySpec } from '../core/runner/telemetry.ts';
import { startCollector, type Collector } from '../test/otel-collector.ts';
import { runTelemetry } from './telemetry.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const spans: TelemetrySpec['spans'] = [
  {
    name: 'DAG: etl',
    traceId: TRACE,
    spanId: '00f067aa0ba902b7',
    startMs: 1_700_000_000_000,
    endMs: 1_700_000_009_000,
    attributes: { 'dag.name': 'etl', 'dag.status': 'failed' },
    outcome: 'error',
    message: 'step load failed',
  },
  {
    name: 'Step: load',
    traceId: TRACE,
    spanId: '1111111111111111',
    parentSpanId: '00f067aa0ba902b7',
    startMs: 1_700_000_001_000,
    endMs: 1_700_000_008_000,
    attributes: { 'step.name': 'load', 'step.exit_code': 3 },
    outcome: 'error',
    message: 'exit status 3',
  },
  {
    name: 'Step: extract',
    traceId: TRACE,
    spanId: '2222222222222222',
    parentSpanId: '00f067aa0ba902b7',
    startMs: 1_700_000_000_500,
    endMs: 1_700_000_001_000,
    attributes: { 'step.name': 'extract' },
    outcome: 'ok',
  },
];

function sink(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream, text: () => text };
}

async function run(
  spec: Partial<TelemetrySpec> & Pick<TelemetrySpec, 'protocol' | 'url'>,
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const [out, err] = [sink(), sink()];
  const full: TelemetrySpec = { headers: {}, resource: { 'service.name': 'dagu' }, spans, ...spec };
  const code = await runTelemetry({
    stdout: out.stream,
    stderr: err.stream,
    env: { ...env, [TELEMETRY_ENV]: JSON.stringify(full) },
    cwd: '/',
    signal: new AbortController().signal,
  });
  return { code, stdout: out.text(), stderr: err.text() };
}

describe('kubedag-step telemetry exports the spans it is given to a real collector', () => {
  let collector: Collector;
  beforeAll(async () => {
    collector = await startCollector();
  }, 600_000);
  afterAll(async () => {
    await collector.stop();
  });

  const cases: { name: string; protocol: 'http' | 'grpc'; url: () => string; trace: string }[] = [
    { name: 'over OTLP/HTTP', protocol: 'http', url: () => `http://${collector.http}/v1/traces`, trace: TRACE },
    {
      name: 'over OTLP/gRPC',
      protocol: 'grpc',
      url: () => `http://${collector.grpc}`,
      trace: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    },
  ];
  it.each(cases)(
    '$name, with their ids, parents, times, status and attributes, and the resource with variables expanded',
    async ({ protocol, url, trace }) => {
      const own = spans.map((s) => ({ ...s, traceId: trace }));
      const result = await run(
        {
          protocol,
          url: url(),
          spans: own,
          resource: { 'service.name': 'dagu', team: '${DAG_NAME}-owners', replicas: 2 },
        },
        { DAG_NAME: 'etl' },
      );
      expect(result).toEqual({ code: 0, stdout: `exported 3 spans of trace ${trace} to ${url()}\n`, stderr: '' });
      await expect.poll(() => collector.spans().filter((s) => s.traceId === trace).length, { timeout: 10_000 }).toBe(3);
      const got = collector.spans().filter((s) => s.traceId === trace);
      expect(
        got.map(({ name, spanId, parentSpanId, startMs, endMs, status, attributes }) => ({
          name,
          spanId,
          parentSpanId,
          startMs,
          endMs,
          status,
          attributes,
        })),
      ).toEqual([
        {
          name: 'DAG: etl',
          spanId: '00f067aa0ba902b7',
          parentSpanId: '',
          startMs: 1_700_000_000_000,
          endMs: 1_700_000_009_000,
          status: { code: 2, message: 'step load failed' },
          attributes: { 'dag.name': 'etl', 'dag.status': 'failed' },
        },
        {
          name: 'Step: load',
          spanId: '1111111111111111',
          parentSpanId: '00f067aa0ba902b7',
          startMs: 1_700_000_001_000,
          endMs: 1_700_000_008_000,
          status: { code: 2, message: 'exit status 3' },
          attributes: { 'step.name': 'load', 'step.exit_code': 3 },
        },
        {
          name: 'Step: extract',
          spanId: '2222222222222222',
          parentSpanId: '00f067aa0ba902b7',
          startMs: 1_700_000_000_500,
          endMs: 1_700_000_001_000,
          status: { code: 1 },
          attributes: { 'step.name': 'extract' },
        },
      ]);
      expect(got[0]?.resource).toEqual({ 'service.name': 'dagu', team: 'etl-owners', replicas: 2 });
    },
  );

  it('fails with the reason when nothing listens at the endpoint', async () => {
    const result = await run({ protocol: 'http', url: 'http://127.0.0.1:9/v1/traces', timeoutMs: 2000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^kubedag-step telemetry: export to http:\/\/127\.0\.0\.1:9\/v1\/traces failed: .+/);
  });
});

describe("kubedag-step telemetry sends the DAG's headers", () => {
  it('with ${VAR} expanded from its environment', async () => {
    let headers: IncomingHttpHeaders = {};
    const server = createServer((request, response) => {
      headers = request.headers;
      request.resume();
      request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const result = await run(
        {
          protocol: 'http',
          url: `http://127.0.0.1:${String(port)}/v1/traces`,
          headers: { 'x-tenant': 'sre', authorization: 'Bearer ${OTEL_TOKEN}' },
        },
        { OTEL_TOKEN: 's3cret' },
      );
      expect(result.code).toBe(0);
      expect([headers['x-tenant'], headers.authorization]).toEqual(['sre', 'Bearer s3cret']);
    } finally {
      server.close();
    }
  });
});

import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';
import { durationMs } from './otel.ts';

const withOtel = (block: string): string => `otel: ${block}\nsteps:\n  - command: make\n`;
const load = (block: string): ReturnType<typeof loadDag> => loadDag(withOtel(block), { fileName: 'traced' });

describe('the otel block becomes exporter settings', () => {
  const cases: { name: string; block: string; want: Record<string, unknown> }[] = [
    {
      name: 'a host and port without /v1/traces is OTLP/gRPC over TLS, as in Dagu',
      block: '{enabled: true, endpoint: "collector:4317"}',
      want: {
        enabled: true,
        endpoint: 'collector:4317',
        protocol: 'grpc',
        url: 'https://collector:4317',
        headers: {},
        insecure: false,
        resource: {},
      },
    },
    {
      name: 'insecure turns a bare endpoint into plain http',
      block: '{enabled: true, endpoint: "collector:4317", insecure: true}',
      want: {
        enabled: true,
        endpoint: 'collector:4317',
        protocol: 'grpc',
        url: 'http://collector:4317',
        headers: {},
        insecure: true,
        resource: {},
      },
    },
    {
      name: 'an endpoint ending in /v1/traces is OTLP/HTTP and a full URL is kept as written',
      block: '{enabled: true, endpoint: "http://collector:4318/v1/traces", timeout: 1m30s}',
      want: {
        enabled: true,
        endpoint: 'http://collector:4318/v1/traces',
        protocol: 'http',
        url: 'http://collector:4318/v1/traces',
        headers: {},
        insecure: false,
        timeoutMs: 90_000,
        resource: {},
      },
    },
    {
      name: 'header values written as numbers become text and resource attributes keep their types',
      block:
        '{enabled: true, endpoint: "c:4317", headers: {x-tenant: sre, x-id: 7}, resource: {service.name: api, replicas: 3, canary: false}}',
      want: {
        enabled: true,
        endpoint: 'c:4317',
        protocol: 'grpc',
        url: 'https://c:4317',
        headers: { 'x-tenant': 'sre', 'x-id': '7' },
        insecure: false,
        resource: { 'service.name': 'api', replicas: 3, canary: false },
      },
    },
    {
      name: 'a disabled block needs no endpoint',
      block: '{enabled: false}',
      want: { enabled: false, protocol: 'grpc', headers: {}, insecure: false, resource: {} },
    },
  ];
  it.each(cases)('$name', ({ block, want }) => {
    const loaded = load(block);
    expect(loaded.errors.map(formatIssue)).toEqual([]);
    expect(loaded.dag.otel).toEqual(want);
  });
});

describe('a bad otel block is refused with its path', () => {
  const cases: { name: string; block: string; want: string[] }[] = [
    {
      name: 'enabled without an endpoint',
      block: '{enabled: true}',
      want: ['otel.endpoint: is required when otel is enabled'],
    },
    {
      name: 'a timeout that is no duration',
      block: '{timeout: soon}',
      want: ['otel.timeout: "soon" is not a duration such as 30s or 1m30s'],
    },
    {
      name: 'a timeout without a unit',
      block: '{timeout: "10"}',
      want: ['otel.timeout: "10" is not a duration such as 30s or 1m30s'],
    },
    {
      name: 'an endpoint with a scheme other than http',
      block: '{endpoint: "grpc://c:4317"}',
      want: ['otel.endpoint: "grpc://c:4317" has the scheme "grpc"; use host:port, or an http:// or https:// URL'],
    },
    {
      name: 'an endpoint that is no URL',
      block: '{endpoint: "c:notaport"}',
      want: ['otel.endpoint: "c:notaport" is neither host:port nor a URL'],
    },
    {
      name: 'a header name HTTP does not allow',
      block: '{headers: {"x tenant": a}}',
      want: ['otel.headers["x tenant"]: "x tenant" is not a valid HTTP header name'],
    },
    {
      name: 'a header without a value',
      block: '{headers: {x-tenant: null}}',
      want: ['otel.headers.x-tenant: needs a value'],
    },
    {
      name: 'a resource attribute that is a list',
      block: '{resource: {team: [a, b]}}',
      want: ['otel.resource.team: must be a string, number or boolean'],
    },
  ];
  it.each(cases)('$name', ({ block, want }) => {
    expect(load(block).errors.map(formatIssue)).toEqual(want);
  });
});

describe('durationMs reads Go durations', () => {
  const cases: { name: string; text: string; want: number | undefined }[] = [
    { name: 'seconds', text: '10s', want: 10_000 },
    { name: 'minutes and seconds together', text: '1m30s', want: 90_000 },
    { name: 'milliseconds', text: '250ms', want: 250 },
    { name: 'a fraction of an hour', text: '0.5h', want: 1_800_000 },
    { name: 'a bare zero', text: '0', want: 0 },
    { name: 'a number without a unit is not one', text: '5', want: undefined },
    { name: 'an empty text is not one', text: '', want: undefined },
    { name: 'a unit Go does not know is not one', text: '1d', want: undefined },
  ];
  it.each(cases)('$name', ({ text, want }) => {
    expect(durationMs(text)).toBe(want);
  });
});

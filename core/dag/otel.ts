/**
 * The DAG's `otel` block: tracing settings, checked and reduced to what an exporter needs.
 * Dagu 1.24 chooses the protocol from the endpoint (one ending in `/v1/traces` is OTLP/HTTP,
 * anything else OTLP/gRPC) and expects `host:port` without a scheme, the scheme following
 * `insecure`; Kubedag reads the same forms and also takes a full `http(s)://` URL. Pure.
 */
import { childPath, issue, type DagIssue } from './issues.ts';
import type { DagFile } from './schema.ts';
import { optional } from './optional.ts';
import type { OtelAttribute, OtelProtocol, OtelSettings } from './otel-model.ts';

const HTTP_PATH = '/v1/traces';
const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};
const DURATION = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;

/** A Go duration (`10s`, `1m30s`, `500ms`, `0`) in milliseconds, or undefined when it is not one. */
export function durationMs(text: string): number | undefined {
  if (text === '0') return 0;
  let rest = text;
  let total = 0;
  while (rest !== '') {
    const match = DURATION.exec(rest);
    if (match === null) return undefined;
    total += Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? 0);
    rest = rest.slice(match[0].length);
  }
  return text === '' ? undefined : total;
}

/** The protocol Dagu picks for an endpoint. */
export function otelProtocol(endpoint: string): OtelProtocol {
  return endpoint.endsWith(HTTP_PATH) ? 'http' : 'grpc';
}

/** The URL an exporter sends to, or an error message. */
export function otelUrl(endpoint: string, insecure: boolean): { url: string } | { error: string } {
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(endpoint)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'http' && scheme !== 'https')
    return { error: `"${endpoint}" has the scheme "${scheme}"; use host:port, or an http:// or https:// URL` };
  const url = scheme === undefined ? `${insecure ? 'http' : 'https'}://${endpoint}` : endpoint;
  try {
    const parsed = new URL(url);
    if (parsed.hostname === '') return { error: `"${endpoint}" names no host` };
    return { url };
  } catch {
    return { error: `"${endpoint}" is neither host:port nor a URL` };
  }
}

export function otelFromFile(input: NonNullable<DagFile['otel']>, errors: DagIssue[]): OtelSettings {
  const enabled = input.enabled === true;
  const insecure = input.insecure === true;
  const endpoint = nonEmpty(input.endpoint);
  if (endpoint === undefined && enabled)
    errors.push(issue(childPath('otel', 'endpoint'), 'is required when otel is enabled'));
  const url = endpoint === undefined ? undefined : urlOf(endpoint, insecure, errors);
  const timeoutMs = timeoutOf(input.timeout, errors);
  return {
    enabled,
    ...optional('endpoint', endpoint),
    protocol: otelProtocol(endpoint ?? ''),
    ...optional('url', url),
    headers: headersOf(input.headers ?? {}, errors),
    insecure,
    ...optional('timeoutMs', timeoutMs === 0 ? undefined : timeoutMs),
    resource: resourceOf(input.resource ?? {}, errors),
  };
}

function urlOf(endpoint: string, insecure: boolean, errors: DagIssue[]): string | undefined {
  const resolved = otelUrl(endpoint, insecure);
  if ('url' in resolved) return resolved.url;
  errors.push(issue(childPath('otel', 'endpoint'), resolved.error));
  return undefined;
}

function nonEmpty(text: string | undefined): string | undefined {
  const trimmed = text?.trim();
  return trimmed === '' ? undefined : trimmed;
}

function timeoutOf(text: string | undefined, errors: DagIssue[]): number | undefined {
  if (text === undefined) return undefined;
  const ms = durationMs(text.trim());
  if (ms === undefined)
    errors.push(issue(childPath('otel', 'timeout'), `"${text}" is not a duration such as 30s or 1m30s`));
  return ms;
}

/** Header values are text; a number or boolean written bare is taken as its text. */
function headersOf(input: Readonly<Record<string, unknown>>, errors: DagIssue[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(input)) {
    const path = childPath(childPath('otel', 'headers'), name);
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
      errors.push(issue(path, `"${name}" is not a valid HTTP header name`));
    else if (value === null || value === undefined) errors.push(issue(path, 'needs a value'));
    else out[name] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return out;
}

/** Attribute values are strings, numbers or booleans, as OpenTelemetry's are; Dagu drops others, Kubedag says so. */
function resourceOf(input: Readonly<Record<string, unknown>>, errors: DagIssue[]): Record<string, OtelAttribute> {
  const out: Record<string, OtelAttribute> = {};
  for (const [name, value] of Object.entries(input)) {
    if (
      typeof value === 'string' ||
      typeof value === 'boolean' ||
      (typeof value === 'number' && Number.isFinite(value))
    )
      out[name] = value;
    else errors.push(issue(childPath(childPath('otel', 'resource'), name), 'must be a string, number or boolean'));
  }
  return out;
}

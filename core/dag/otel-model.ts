/**
 * What a DAG's `otel` block is reduced to (otel.ts reads it): types only, so that the DAG model
 * can name them without importing the reader.
 */
export type OtelProtocol = 'http' | 'grpc';
export type OtelAttribute = string | number | boolean;

export interface OtelSettings {
  readonly enabled: boolean;
  /** The endpoint as written. */
  readonly endpoint?: string;
  readonly protocol: OtelProtocol;
  /** The URL the exporter sends to: the endpoint with its scheme (from `insecure` when it had none). */
  readonly url?: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly insecure: boolean;
  /** The export timeout; unset means the exporter's default (10 s), as in Dagu. */
  readonly timeoutMs?: number;
  /** Resource attributes; string values may name `${DAG_NAME}`, expanded when a run exports. */
  readonly resource: Readonly<Record<string, OtelAttribute>>;
}

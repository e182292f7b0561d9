/**
 * A minimal OpenTelemetry Collector (OTLP receiver; debug and OTLP/HTTP exporters) for tests of
 * trace export, built from the collector's Go modules (cluster/tools/otelcol: main.go, go.mod
 * and go.sum pin it) into the per-user cache like the control plane (go-tool.ts).
 */
import { ensureGoTool } from './go-tool.ts';

/** The collector binary, built into the cache when missing (a few minutes the first time). */
export function ensureCollector(env: NodeJS.ProcessEnv = process.env, log?: (line: string) => void): Promise<string> {
  return ensureGoTool({ folder: 'otelcol', name: 'otelcol', title: 'the OpenTelemetry Collector', pkg: '.' }, env, log);
}

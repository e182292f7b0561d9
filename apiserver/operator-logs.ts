/**
 * The client of the operator's internal log endpoint, where step logs are read: archived
 * attempts from the log store, running ones live from their Pod. The API server never reads
 * the log store itself, so it needs no volume and no store credentials.
 */
import type { LogChunk, LogQuery } from '../core/logs/chunk.ts';
import type { LogReader, LogRef } from './cluster.ts';
import { ApiError } from './errors.ts';

export class OperatorLogs implements LogReader {
  private readonly baseUrl: string;
  private readonly namespace: string;

  constructor(baseUrl: string, namespace: string) {
    this.baseUrl = baseUrl.replace(/\/$/, '');
    this.namespace = namespace;
  }

  async read(ref: LogRef, query: LogQuery): Promise<LogChunk | undefined> {
    const path = [this.namespace, ref.dagName, ref.dagRunId, ref.step, String(ref.attempt)]
      .map(encodeURIComponent)
      .join('/');
    const search = new URLSearchParams({ stream: ref.stream });
    for (const [key, value] of Object.entries(query)) if (typeof value === 'number') search.set(key, String(value));
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}/logs/${path}?${search.toString()}`, {
        signal: AbortSignal.timeout(10_000),
      });
    } catch (error) {
      throw new ApiError(
        'service_unavailable',
        `the operator's log endpoint is unreachable: ${(error as Error).message}`,
      );
    }
    if (response.status === 404) return undefined;
    // The operator's answer says what went wrong (say, its log store's error): passed on whole.
    if (!response.ok) {
      const reason = (await response.text().catch(() => '')).trim().slice(0, 500);
      throw new ApiError(
        'internal_error',
        `the operator's log endpoint answered ${String(response.status)}${reason === '' ? '' : `: ${reason}`}`,
      );
    }
    return (await response.json()) as LogChunk;
  }
}

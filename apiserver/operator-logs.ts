/**
 * The client of the operator's internal log endpoint, where step logs are read: archived
 * attempts from the log store, running ones live from their Pod. The API server never reads
 * the log store itself, so it needs no volume and no store credentials.
 */
import type { LogChunk, LogQuery } from '../core/logs/chunk.ts';
import type { ArtifactReader, ArtifactRunRef, LogReader, LogRef } from './cluster.ts';
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
    const response = await ask(`${this.baseUrl}/logs/${path}?${search.toString()}`);
    return response === undefined ? undefined : ((await response.json()) as LogChunk);
  }
}

/** The operator's answer, undefined for its 404; any other failure as the API's error. */
async function ask(url: string): Promise<Response | undefined> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
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
  return response;
}

/** A run's artifacts through the operator's endpoint (operator/logs/artifacts-route.ts). */
export class OperatorArtifacts implements ArtifactReader {
  private readonly baseUrl: string;
  private readonly namespace: string;

  constructor(baseUrl: string, namespace: string) {
    this.baseUrl = baseUrl.replace(/\/$/, '');
    this.namespace = namespace;
  }

  private url(run: ArtifactRunRef): string {
    const path = [this.namespace, run.dagName, run.dagRunId].map(encodeURIComponent).join('/');
    return `${this.baseUrl}/artifacts/${path}`;
  }

  async list(run: ArtifactRunRef): Promise<readonly { readonly path: string; readonly size: number }[]> {
    const response = await ask(this.url(run));
    if (response === undefined) return [];
    return ((await response.json()) as { files: { path: string; size: number }[] }).files;
  }

  async read(run: ArtifactRunRef, path: string): Promise<Buffer | undefined> {
    const response = await ask(`${this.url(run)}?${new URLSearchParams({ path }).toString()}`);
    return response === undefined ? undefined : Buffer.from(await response.arrayBuffer());
  }
}

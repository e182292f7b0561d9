/**
 * The API server's side of the history protocol (protocol.ts): a HistoryReader that asks the
 * operator's internal endpoint, for the embedded SQLite store that only the operator opens.
 * Failures are HistoryStoreErrors, as a store's own are, so that callers treat both alike.
 */
import { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import { HistoryStoreError } from '../errors.ts';
import type {
  HistoryFilter,
  HistoryReader,
  HistoryRun,
  HistorySummary,
  PageOptions,
  RunKey,
  RunName,
} from '../types.ts';
import { historyPath, MAX_BATCH_RUNS, type ErrorBody, type StreamLine } from './protocol.ts';

/** How long a request may wait for the operator's answer to begin. */
const ANSWER_TIMEOUT_MS = 10_000;

export class HistoryClient implements HistoryReader {
  private readonly baseUrl: string;

  constructor(operatorUrl: string) {
    this.baseUrl = operatorUrl.replace(/\/$/, '');
  }

  summary(key: RunKey): Promise<HistorySummary | undefined> {
    return this.optional(historyPath(key.namespace, 'runs', key.dagName, key.dagRunId));
  }

  run(key: RunKey): Promise<HistoryRun | undefined> {
    return this.optional(`${historyPath(key.namespace, 'runs', key.dagName, key.dagRunId)}/full`);
  }

  /** One request a MAX_BATCH_RUNS of keys. */
  async runs(namespace: string, keys: readonly RunName[]): Promise<(HistoryRun | undefined)[]> {
    const batches: RunName[][] = [];
    for (let i = 0; i < keys.length; i += MAX_BATCH_RUNS)
      batches.push(keys.slice(i, i + MAX_BATCH_RUNS).map(({ name, dagRunId }) => ({ name, dagRunId })));
    const answers = await Promise.all(
      batches.map((runs) =>
        this.json<(HistoryRun | null)[]>(`${historyPath(namespace)}/runs-read`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ runs }),
        }),
      ),
    );
    return answers.flat().map((run) => run ?? undefined);
  }

  withRunId(namespace: string, dagRunId: string): Promise<HistorySummary[]> {
    return this.json(historyPath(namespace, 'run-ids', dagRunId));
  }

  latest(namespace: string, dagName: string): Promise<HistorySummary | undefined> {
    return this.optional(`${historyPath(namespace, 'dags', dagName)}/latest`);
  }

  runsOf(namespace: string, dagName: string, limit: number): Promise<HistorySummary[]> {
    return this.json(`${historyPath(namespace, 'dags', dagName)}/runs?limit=${String(Math.max(1, Math.floor(limit)))}`);
  }

  list(filter: HistoryFilter, options?: PageOptions): AsyncIterable<readonly HistorySummary[]> {
    const { namespace, ...rest } = filter;
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries({ ...rest, pageSize: options?.pageSize }))
      if (value !== undefined) query.set(key, String(value));
    return this.pages(`${historyPath(namespace, 'runs')}?${query.toString()}`);
  }

  subRuns(namespace: string, root: RunName, options?: PageOptions): AsyncIterable<readonly HistorySummary[]> {
    const query = options?.pageSize === undefined ? '' : `?pageSize=${String(options.pageSize)}`;
    return this.pages(`${historyPath(namespace, 'sub-runs', root.name, root.dagRunId)}${query}`);
  }

  async relist(namespace: string, from: string, to: string): Promise<number> {
    const answer = await this.json<{ moved: number }>(`${historyPath(namespace)}/relist`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from, to }),
    });
    return answer.moved;
  }

  /** Nothing to close: each request is its own. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  private async request(
    path: string,
    init: RequestInit = {},
    signal: AbortSignal = AbortSignal.timeout(ANSWER_TIMEOUT_MS),
  ): Promise<Response> {
    try {
      return await fetch(`${this.baseUrl}${path}`, { ...init, signal });
    } catch (error) {
      throw new HistoryStoreError(`the operator's history endpoint is unreachable: ${(error as Error).message}`, {
        retryable: true,
        cause: error,
      });
    }
  }

  private async failure(response: Response): Promise<HistoryStoreError> {
    const text = await response.text().catch(() => '');
    let body: Partial<ErrorBody>;
    try {
      body = JSON.parse(text) as Partial<ErrorBody>;
    } catch {
      body = { message: text.trim().slice(0, 500) };
    }
    const message = `the operator's history endpoint answered ${String(response.status)}${body.message === undefined || body.message === '' ? '' : `: ${body.message}`}`;
    return new HistoryStoreError(message, { retryable: body.retryable ?? response.status >= 500 });
  }

  private async json<T>(path: string, init?: RequestInit): Promise<T> {
    const response = await this.request(path, init);
    if (!response.ok) throw await this.failure(response);
    return (await response.json()) as T;
  }

  private async optional<T>(path: string): Promise<T | undefined> {
    const response = await this.request(path);
    if (response.status === 404) {
      await response.body?.cancel();
      return undefined;
    }
    if (!response.ok) throw await this.failure(response);
    return (await response.json()) as T;
  }

  /**
   * A streamed listing, page by page. The answer must begin within the timeout; after that the
   * stream runs as long as the consumer reads. A consumer that stops early aborts the request,
   * which ends the operator's reading too.
   */
  private async *pages(path: string): AsyncGenerator<readonly HistorySummary[]> {
    const abort = new AbortController();
    const timer = setTimeout(() => {
      abort.abort(new Error(`no answer within ${String(ANSWER_TIMEOUT_MS)} ms`));
    }, ANSWER_TIMEOUT_MS);
    let ended = false;
    let input: Readable | undefined;
    try {
      const response = await this.request(path, {}, abort.signal);
      clearTimeout(timer);
      if (!response.ok) throw await this.failure(response);
      if (response.body === null)
        throw new HistoryStoreError("the operator's history endpoint answered no listing", { retryable: true });
      input = Readable.fromWeb(response.body);
      const lines = createInterface({ input, crlfDelay: Infinity });
      for await (const text of lines) {
        if (text === '') continue;
        const line = JSON.parse(text) as StreamLine;
        if ('page' in line) yield line.page;
        else if ('end' in line) {
          ended = true;
          return;
        } else
          throw new HistoryStoreError(`history store (through the operator): ${line.error}`, {
            retryable: line.retryable,
          });
      }
      throw new HistoryStoreError("the operator's history listing ended before its end (the operator restarted?)", {
        retryable: true,
      });
    } catch (error) {
      if (error instanceof HistoryStoreError) throw error;
      throw new HistoryStoreError(`the operator's history listing failed: ${(error as Error).message}`, {
        retryable: true,
        cause: error,
      });
    } finally {
      clearTimeout(timer);
      // A listing left early: destroying the body cancels it, which closes the connection and
      // so ends the operator's reading; before an answer there is only the request to abort.
      if (!ended) {
        if (input === undefined) abort.abort();
        else input.destroy();
      }
    }
  }
}

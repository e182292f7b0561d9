/** The queues (GET /queues, polled) and the dequeue action (GET .../dequeue, as the contract has it). */
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { data, type ApiClient } from '../../api/client.ts';
import { POLL_INTERVAL_MS } from '../../api/queries.ts';
import { RUNS_KEY } from '../runs/queries.ts';

export type QueueList = Awaited<ReturnType<typeof listQueues>>;
export type Queue = QueueList['queues'][number];
export type QueuedRun = Queue['queuedDAGRuns'][number];

function listQueues(client: ApiClient, signal: AbortSignal) {
  return data(client.GET('/api/v2/queues', { signal }));
}

export const QUEUES_KEY = 'queues';

export const queuesQuery = (client: ApiClient) =>
  queryOptions({
    queryKey: [QUEUES_KEY],
    queryFn: ({ signal }) => listQueues(client, signal),
    refetchInterval: POLL_INTERVAL_MS,
  });

/** Takes a queued run out of its queue; then every list that may hold it is read again. */
export async function dequeue(
  client: ApiClient,
  queries: QueryClient,
  run: { readonly name: string; readonly dagRunId: string },
): Promise<void> {
  const answer = await client.GET('/api/v2/dag-runs/{name}/{dagRunId}/dequeue', {
    params: { path: { name: run.name, dagRunId: run.dagRunId } },
  });
  const { response } = answer;
  if (!response.ok) {
    // The document declares no error answers here, but every error is the contract's {code, message}.
    const error: unknown = answer.error;
    const message =
      typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string'
        ? error.message
        : `${String(response.status)} ${response.statusText}`;
    throw new Error(response.status === 404 ? `it is no longer queued (${message})` : message);
  }
  await Promise.all([
    queries.invalidateQueries({ queryKey: [QUEUES_KEY] }),
    queries.invalidateQueries({ queryKey: [RUNS_KEY] }),
  ]);
}

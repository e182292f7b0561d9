/** The workers: the cluster's nodes with their heartbeat health and the runs on them (GET /workers). */
import { queryOptions } from '@tanstack/react-query';
import { data, type ApiClient } from '../../api/client.ts';
import { POLL_INTERVAL_MS } from '../../api/queries.ts';

export type WorkerList = Awaited<ReturnType<typeof listWorkers>>;
export type Worker = WorkerList['workers'][number];
export type RunningTask = Worker['running_tasks'][number];

function listWorkers(client: ApiClient, signal: AbortSignal) {
  return data(client.GET('/api/v2/workers', { signal }));
}

export const workersQuery = (client: ApiClient) =>
  queryOptions({
    queryKey: ['workers'],
    queryFn: ({ signal }) => listWorkers(client, signal),
    refetchInterval: POLL_INTERVAL_MS,
  });

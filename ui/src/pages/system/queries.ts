/**
 * The system page's reads, all polled: health (public; a 503 still carries the health object,
 * which is what the page shows), the scheduler leader (the operator's Lease holder), and the
 * metrics text.
 */
import { queryOptions } from '@tanstack/react-query';
import { ApiFailure, data, type ApiClient } from '../../api/client.ts';
import { POLL_INTERVAL_MS } from '../../api/queries.ts';
import type { paths } from '../../api/schema';
import { parseMetrics } from './metrics.ts';

export type Health = paths['/api/v2/health']['get']['responses'][200]['content']['application/json'];

async function health(client: ApiClient, signal: AbortSignal): Promise<Health> {
  const answer = await client.GET('/api/v2/health', { signal });
  if (answer.data !== undefined) return answer.data;
  // A 503 carries the health object; the other errors (a 500) the contract's error object.
  if (answer.response.status === 503 && 'status' in answer.error) return answer.error;
  throw new ApiFailure(
    answer.response.status,
    `http_${String(answer.response.status)}`,
    `${String(answer.response.status)} ${answer.response.statusText}`.trim(),
  );
}

async function metrics(client: ApiClient, signal: AbortSignal) {
  const text = await data(
    client.GET('/api/v2/metrics', { signal, parseAs: 'text', headers: { Accept: 'text/plain' } }),
  );
  return parseMetrics(text);
}

export const healthQuery = (client: ApiClient) =>
  queryOptions({
    queryKey: ['system', 'health'],
    queryFn: ({ signal }) => health(client, signal),
    refetchInterval: POLL_INTERVAL_MS,
  });

export const schedulerQuery = (client: ApiClient) =>
  queryOptions({
    queryKey: ['system', 'scheduler'],
    queryFn: ({ signal }) => data(client.GET('/api/v2/services/scheduler', { signal })),
    refetchInterval: POLL_INTERVAL_MS,
  });

export const metricsQuery = (client: ApiClient) =>
  queryOptions({
    queryKey: ['system', 'metrics'],
    queryFn: ({ signal }) => metrics(client, signal),
    refetchInterval: POLL_INTERVAL_MS,
  });

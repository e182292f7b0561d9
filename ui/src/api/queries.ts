/**
 * What the pages ask the API for, as TanStack Query options: one place for query keys, so
 * that a page and anything that invalidates its data agree on them.
 */
import { keepPreviousData, queryOptions, type QueryClient } from '@tanstack/react-query';
import { ApiFailure, data, type ApiClient } from './client.ts';
import type { paths } from './schema';

/**
 * How often a live page asks again. TanStack Query pauses interval refetches while the tab is
 * hidden and refetches when it is shown again, so a background tab costs nothing.
 */
export const POLL_INTERVAL_MS = 5_000;

export type DagListQuery = NonNullable<paths['/api/v2/dags']['get']['parameters']['query']>;
export type DagList = Awaited<ReturnType<typeof listDags>>;
export type DagListItem = DagList['dags'][number];

function listDags(client: ApiClient, query: DagListQuery, signal: AbortSignal) {
  return data(client.GET('/api/v2/dags', { params: { query }, signal }));
}

export const dagListQuery = (client: ApiClient, query: DagListQuery) =>
  queryOptions({
    queryKey: ['dags', 'list', query],
    queryFn: ({ signal }) => listDags(client, query, signal),
    // A new page or filter keeps the old rows on screen until the new ones arrive.
    placeholderData: keepPreviousData,
    refetchInterval: POLL_INTERVAL_MS,
  });

export const dagTagsQuery = (client: ApiClient) =>
  queryOptions({
    queryKey: ['dags', 'tags'],
    queryFn: ({ signal }) => data(client.GET('/api/v2/dags/tags', { signal })),
    staleTime: 30_000,
  });

/** Client errors are answers, not accidents: asking again would get the same one. */
function retry(failures: number, error: Error): boolean {
  if (error instanceof ApiFailure && error.status >= 400 && error.status < 500) return false;
  return failures < 2;
}

export function configureQueries(client: QueryClient): QueryClient {
  client.setDefaultOptions({ queries: { retry, staleTime: 2_000 } });
  return client;
}

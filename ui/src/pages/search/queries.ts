/**
 * Search over DAG specs (GET /dags/search?q=). Specs change rarely next to runs, so results
 * are asked again every half minute rather than at the live pages' pace.
 */
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { data, type ApiClient } from '../../api/client.ts';

export type SearchAnswer = Awaited<ReturnType<typeof searchDags>>;
export type SearchResult = SearchAnswer['results'][number];

function searchDags(client: ApiClient, q: string, signal: AbortSignal) {
  return data(client.GET('/api/v2/dags/search', { params: { query: { q } }, signal }));
}

export const searchQuery = (client: ApiClient, q: string) =>
  queryOptions({
    queryKey: ['dags', 'search', q],
    queryFn: ({ signal }) => searchDags(client, q, signal),
    enabled: q !== '',
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });

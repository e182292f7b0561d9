/**
 * What the run pages of the operations views ask the API: the runs list (GET /dag-runs, all
 * matches newest first, no paging), a DAG's runs (GET /dag-runs/{name}, the same for one DAG
 * name, for its history tab) and a run's details, for the step that failed.
 *
 * Keys start with 'dag-runs', so an action on a run (dequeue) invalidates them in one call.
 */
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { data, type ApiClient } from '../../api/client.ts';
import { POLL_INTERVAL_MS } from '../../api/queries.ts';
import type { paths } from '../../api/schema';

export type RunListQuery = NonNullable<paths['/api/v2/dag-runs']['get']['parameters']['query']>;
export type RunSummary = Awaited<ReturnType<typeof listRuns>>['dagRuns'][number];
export type RunDetails = Awaited<ReturnType<typeof runDetails>>;

function listRuns(client: ApiClient, query: RunListQuery, signal: AbortSignal) {
  return data(client.GET('/api/v2/dag-runs', { params: { query }, signal }));
}

function listRunsOf(client: ApiClient, name: string, signal: AbortSignal) {
  return data(client.GET('/api/v2/dag-runs/{name}', { params: { path: { name } }, signal }));
}

async function runDetails(client: ApiClient, name: string, dagRunId: string, signal: AbortSignal) {
  const answer = await data(
    client.GET('/api/v2/dag-runs/{name}/{dagRunId}', { params: { path: { name, dagRunId } }, signal }),
  );
  return answer.dagRunDetails;
}

export const RUNS_KEY = 'dag-runs';

export const runListQuery = (client: ApiClient, query: RunListQuery) =>
  queryOptions({
    queryKey: [RUNS_KEY, 'list', query],
    queryFn: ({ signal }) => listRuns(client, query, signal),
    // A new filter keeps the old rows on screen until the new ones arrive.
    placeholderData: keepPreviousData,
    refetchInterval: POLL_INTERVAL_MS,
  });

/** Every run of one DAG name, newest first, as the runs list has them. */
export const dagRunListQuery = (client: ApiClient, name: string) =>
  queryOptions({
    queryKey: [RUNS_KEY, 'of', name],
    queryFn: ({ signal }) => listRunsOf(client, name, signal),
    refetchInterval: POLL_INTERVAL_MS,
  });

/**
 * A finished run's details change only when it is retried, which a list poll shows as a new
 * status; so they are read once and kept a minute rather than polled.
 */
export const runDetailsQuery = (client: ApiClient, name: string, dagRunId: string) =>
  queryOptions({
    queryKey: [RUNS_KEY, 'details', name, dagRunId],
    queryFn: ({ signal }) => runDetails(client, name, dagRunId, signal),
    staleTime: 60_000,
  });

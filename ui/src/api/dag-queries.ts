/**
 * What the DAG page asks the API for, and what it changes, beside queries.ts. Every key starts
 * with 'dags', as the list's do, so invalidating ['dags'] after a change refreshes the list
 * and every DAG page at once.
 */
import { queryOptions } from '@tanstack/react-query';
import { data, type ApiClient } from './client.ts';
import { POLL_INTERVAL_MS } from './queries.ts';

export type DagDetails = Awaited<ReturnType<typeof getDetails>>;
export type DagDefinition = DagDetails['dag'];
export type DagStepObject = DagDefinition['steps'][number];
export type DagRunDetails = Awaited<ReturnType<typeof getRun>>['dagRun'];
export type RunNode = DagRunDetails['nodes'][number];
export type DagHistory = Awaited<ReturnType<typeof getHistory>>;

const path = (fileName: string) => ({ params: { path: { fileName } } });

function getDetails(client: ApiClient, fileName: string, signal: AbortSignal) {
  return data(client.GET('/api/v2/dags/{fileName}', { ...path(fileName), signal }));
}

function getRun(client: ApiClient, fileName: string, dagRunId: string, signal: AbortSignal) {
  return data(
    client.GET('/api/v2/dags/{fileName}/dag-runs/{dagRunId}', { params: { path: { fileName, dagRunId } }, signal }),
  );
}

function getHistory(client: ApiClient, fileName: string, signal: AbortSignal) {
  return data(client.GET('/api/v2/dags/{fileName}/dag-runs', { ...path(fileName), signal }));
}

export const dagKeys = {
  all: ['dags'] as const,
  details: (fileName: string) => ['dags', 'details', fileName] as const,
  spec: (fileName: string) => ['dags', 'spec', fileName] as const,
  run: (fileName: string, dagRunId: string) => ['dags', 'run', fileName, dagRunId] as const,
  history: (fileName: string) => ['dags', 'history', fileName] as const,
};

export const dagDetailsQuery = (client: ApiClient, fileName: string) =>
  queryOptions({
    queryKey: dagKeys.details(fileName),
    queryFn: ({ signal }) => getDetails(client, fileName, signal),
    refetchInterval: POLL_INTERVAL_MS,
  });

/** A run of the DAG with its nodes: the latest, for the graph's statuses. */
export const dagRunQuery = (client: ApiClient, fileName: string, dagRunId: string) =>
  queryOptions({
    queryKey: dagKeys.run(fileName, dagRunId),
    queryFn: ({ signal }) => getRun(client, fileName, dagRunId, signal).then((answer) => answer.dagRun),
    refetchInterval: POLL_INTERVAL_MS,
  });

/** The recent runs with their nodes and the server's grid of step statuses (gridData). */
export const dagHistoryQuery = (client: ApiClient, fileName: string) =>
  queryOptions({
    queryKey: dagKeys.history(fileName),
    queryFn: ({ signal }) => getHistory(client, fileName, signal),
    refetchInterval: POLL_INTERVAL_MS,
  });

/**
 * The spec as stored. Read once per visit and not polled: the editor holds the user's text,
 * and a refetch under it would only raise the question of whose text wins.
 */
export const dagSpecQuery = (client: ApiClient, fileName: string) =>
  queryOptions({
    queryKey: dagKeys.spec(fileName),
    queryFn: ({ signal }) => data(client.GET('/api/v2/dags/{fileName}/spec', { ...path(fileName), signal })),
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });

/** For answers without a body (200 empty, 204): nothing when it succeeded, else the ApiFailure. */
async function done(call: Promise<{ error?: unknown; response: Response }>): Promise<void> {
  const { error, response } = await call;
  if (!response.ok) await data(Promise.resolve({ error, response }));
}

export interface StartRequest {
  /** The contract's params string (a JSON object); absent to run with the defaults. */
  readonly params?: string;
  readonly dagRunId?: string;
  /** Queue the run instead of starting it now. */
  readonly enqueue: boolean;
}

/** What the DAG page and the DAG list change. */
export const dagActions = (client: ApiClient) => ({
  start: async (fileName: string, request: StartRequest): Promise<string> => {
    const body = {
      ...(request.params === undefined ? {} : { params: request.params }),
      ...(request.dagRunId === undefined ? {} : { dagRunId: request.dagRunId }),
    };
    const answer = request.enqueue
      ? client.POST('/api/v2/dags/{fileName}/enqueue', { ...path(fileName), body })
      : client.POST('/api/v2/dags/{fileName}/start', { ...path(fileName), body });
    return (await data(answer)).dagRunId;
  },
  stopAll: async (fileName: string): Promise<string[]> =>
    (await data(client.POST('/api/v2/dags/{fileName}/stop-all', path(fileName)))).errors,
  suspend: (fileName: string, suspend: boolean): Promise<void> =>
    done(client.POST('/api/v2/dags/{fileName}/suspend', { ...path(fileName), body: { suspend } })),
  create: async (name: string, spec: string): Promise<string> =>
    (await data(client.POST('/api/v2/dags', { body: { name, spec } }))).name,
  /** The server's problems with the spec; empty when it was saved. */
  saveSpec: async (fileName: string, spec: string): Promise<string[]> =>
    (await data(client.PUT('/api/v2/dags/{fileName}/spec', { ...path(fileName), body: { spec } }))).errors,
  validate: (spec: string, name: string, signal: AbortSignal) =>
    data(client.POST('/api/v2/dags/validate', { body: { spec, name }, signal })),
  rename: (fileName: string, newFileName: string): Promise<void> =>
    done(client.POST('/api/v2/dags/{fileName}/rename', { ...path(fileName), body: { newFileName } })),
  remove: (fileName: string): Promise<void> => done(client.DELETE('/api/v2/dags/{fileName}', path(fileName))),
});

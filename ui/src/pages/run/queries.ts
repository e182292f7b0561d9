/**
 * What the run and log pages ask the API, and the actions they take. A sub-run is read through
 * its root's `sub-dag-runs` paths. Query keys start with ['runs', 'run', name, id, sub], so an
 * action invalidates everything about one run at once.
 */
import { queryOptions } from '@tanstack/react-query';
import { ApiFailure, data, type ApiClient } from '../../api/client.ts';
import type { LogChunk, LogQuery } from '../../components/logs/paging.ts';
import { isActive, type RunAddress } from './address.ts';

/**
 * A run page polls faster than the app's lists (5 s): steps start and end within seconds, and
 * one small request every 2 s is still well under "a few per second" for a page.
 */
export const RUN_POLL_MS = 2_000;

async function details(client: ApiClient, at: RunAddress, signal: AbortSignal) {
  const path = { name: at.name, dagRunId: at.dagRunId };
  const answer =
    at.subDagRunId === undefined
      ? await data(client.GET('/api/v2/dag-runs/{name}/{dagRunId}', { params: { path }, signal }))
      : await data(
          client.GET('/api/v2/dag-runs/{name}/{dagRunId}/sub-dag-runs/{subDAGRunId}', {
            params: { path: { ...path, subDAGRunId: at.subDagRunId } },
            signal,
          }),
        );
  return answer.dagRunDetails;
}

export type RunDetails = Awaited<ReturnType<typeof details>>;
export type RunNode = RunDetails['nodes'][number];

/** The key prefix of everything read about one run. */
export const runKey = (at: RunAddress): readonly ['runs', 'run', string, string, string] => [
  'runs',
  'run',
  at.name,
  at.dagRunId,
  at.subDagRunId ?? '',
];

export const runDetailsQuery = (client: ApiClient, at: RunAddress) =>
  queryOptions({
    queryKey: [...runKey(at), 'details'],
    queryFn: ({ signal }) => details(client, at, signal),
    // Live while the run may still change; a finished run is asked again only after an action,
    // and a run that is gone (dequeued, deleted) not at all.
    refetchInterval: (query) => {
      const { data: run, error } = query.state;
      if (error instanceof ApiFailure && error.status === 404) return false;
      return run !== undefined && isActive(run) ? RUN_POLL_MS : false;
    },
  });

async function origin(client: ApiClient, at: RunAddress, signal: AbortSignal) {
  const path = { name: at.name, dagRunId: at.dagRunId };
  return at.subDagRunId === undefined
    ? data(client.GET('/api/v2/dag-runs/{name}/{dagRunId}/origin', { params: { path }, signal }))
    : data(
        client.GET('/api/v2/dag-runs/{name}/{dagRunId}/sub-dag-runs/{subDAGRunId}/origin', {
          params: { path: { ...path, subDAGRunId: at.subDagRunId } },
          signal,
        }),
      );
}

export type RunOrigin = Awaited<ReturnType<typeof origin>>;

/**
 * Who started the run and who last changed it: Kubedag's own endpoint, since the contract's run
 * details cannot carry it (docs/decisions/2026-11-29-audit.md). Under the run's key, so an
 * action (a stop) refreshes it with everything else.
 */
export const runOriginQuery = (client: ApiClient, at: RunAddress) =>
  queryOptions({ queryKey: [...runKey(at), 'origin'], queryFn: ({ signal }) => origin(client, at, signal) });

/**
 * After a retry in place: waits (up to `timeoutMs`) until the run shows it, active again or
 * started anew. The API answers once the request is recorded; the operator restarts the run a
 * moment later, and a page that polled only active runs would not see it.
 */
export async function untilRetried(
  client: ApiClient,
  at: RunAddress,
  before: { readonly startedAt: string; readonly finishedAt: string },
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const run = await details(client, at, AbortSignal.timeout(5_000));
    if (isActive(run) || run.startedAt !== before.startedAt || run.finishedAt !== before.finishedAt) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** A log of a run: the run's own, or a step's stdout or stderr. */
export type LogSource =
  { readonly kind: 'run' } | { readonly kind: 'step'; readonly stepName: string; readonly stream: 'stdout' | 'stderr' };

/** One chunk of a log, as the contract cuts it. */
export function readLog(
  client: ApiClient,
  at: RunAddress,
  source: LogSource,
  query: LogQuery,
  signal?: AbortSignal,
): Promise<LogChunk> {
  const run = { name: at.name, dagRunId: at.dagRunId };
  const init = { signal };
  if (source.kind === 'run') {
    return at.subDagRunId === undefined
      ? data(client.GET('/api/v2/dag-runs/{name}/{dagRunId}/log', { params: { path: run, query }, ...init }))
      : data(
          client.GET('/api/v2/dag-runs/{name}/{dagRunId}/sub-dag-runs/{subDAGRunId}/log', {
            params: { path: { ...run, subDAGRunId: at.subDagRunId }, query },
            ...init,
          }),
        );
  }
  const step = { ...query, stream: source.stream };
  return at.subDagRunId === undefined
    ? data(
        client.GET('/api/v2/dag-runs/{name}/{dagRunId}/steps/{stepName}/log', {
          params: { path: { ...run, stepName: source.stepName }, query: step },
          ...init,
        }),
      )
    : data(
        client.GET('/api/v2/dag-runs/{name}/{dagRunId}/sub-dag-runs/{subDAGRunId}/steps/{stepName}/log', {
          params: { path: { ...run, subDAGRunId: at.subDagRunId, stepName: source.stepName }, query: step },
          ...init,
        }),
      );
}

/** An answer without a body: only whether it succeeded (an ApiFailure thrown if not). */
async function done(call: Promise<{ error?: unknown; response: Response }>): Promise<void> {
  await data(call.then(({ error, response }) => ({ data: true, error, response })));
}

const runPath = (at: RunAddress): { path: { name: string; dagRunId: string } } => ({
  path: { name: at.name, dagRunId: at.dagRunId },
});

export const runCommands = {
  stop: (client: ApiClient, at: RunAddress): Promise<void> =>
    done(client.POST('/api/v2/dag-runs/{name}/{dagRunId}/stop', { params: runPath(at) })),
  /** Without `dagRunId` (or with the run's own) in place; with another id, a new run. */
  retry: (client: ApiClient, at: RunAddress, body: { dagRunId?: string; stepName?: string }): Promise<void> =>
    done(client.POST('/api/v2/dag-runs/{name}/{dagRunId}/retry', { params: runPath(at), body })),
  reschedule: (client: ApiClient, at: RunAddress, dagRunId?: string): Promise<{ dagRunId: string; queued: boolean }> =>
    data(
      client.POST('/api/v2/dag-runs/{name}/{dagRunId}/reschedule', {
        params: runPath(at),
        body: dagRunId === undefined ? {} : { dagRunId },
      }),
    ),
  dequeue: (client: ApiClient, at: RunAddress): Promise<void> =>
    done(client.GET('/api/v2/dag-runs/{name}/{dagRunId}/dequeue', { params: runPath(at) })),
  setStepStatus: (client: ApiClient, at: RunAddress, stepName: string, status: number): Promise<void> =>
    at.subDagRunId === undefined
      ? done(
          client.PATCH('/api/v2/dag-runs/{name}/{dagRunId}/steps/{stepName}/status', {
            params: { path: { ...runPath(at).path, stepName } },
            body: { status },
          }),
        )
      : done(
          client.PATCH('/api/v2/dag-runs/{name}/{dagRunId}/sub-dag-runs/{subDAGRunId}/steps/{stepName}/status', {
            params: { path: { ...runPath(at).path, subDAGRunId: at.subDagRunId, stepName } },
            body: { status },
          }),
        ),
};

/**
 * A run's approval steps, read and answered through /api/v1: /api/v2 (Dagu 1.24) shows a step
 * that waits for a person as running and cannot answer it (docs/decisions/2026-11-29-approval.md).
 * Under the run's query key, so an answer refreshes everything about the run.
 */
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { data, type ApiClient } from '../../api/client.ts';
import type { RunAddress } from './address.ts';
import { RUN_POLL_MS, runKey } from './queries.ts';

async function v1Details(client: ApiClient, at: RunAddress, signal: AbortSignal) {
  const path = { name: at.name, dagRunId: at.dagRunId };
  const answer =
    at.subDagRunId === undefined
      ? await data(client.GET('/api/v1/dag-runs/{name}/{dagRunId}', { params: { path }, signal }))
      : await data(
          client.GET('/api/v1/dag-runs/{name}/{dagRunId}/sub-dag-runs/{subDAGRunId}', {
            params: { path: { ...path, subDAGRunId: at.subDagRunId } },
            signal,
          }),
        );
  return answer.dagRunDetails;
}

export type V1Node = Awaited<ReturnType<typeof v1Details>>['nodes'][number];

/**
 * The run's steps with their raw statuses (7 waiting, 8 rejected) and answers. Asked only for a
 * run whose definition has an approval step (`enabled`), as often as the run page while it is
 * `live`; a run that ended is read once. The run's status (as the page's own run query last
 * saw it) is part of the key, so that the run ending between two polls is read once more: the
 * answer that ended a wait is then shown, not the wait as the last poll before the end saw it.
 * The previous answer stays on screen while that read is under way.
 */
export const approvalStepsQuery = (
  client: ApiClient,
  at: RunAddress,
  run: { readonly enabled: boolean; readonly live: boolean; readonly status: number },
) =>
  queryOptions({
    queryKey: [...runKey(at), 'approvals', run.status],
    queryFn: async ({ signal }) => (await v1Details(client, at, signal)).nodes,
    enabled: run.enabled,
    refetchInterval: run.live ? RUN_POLL_MS : false,
    placeholderData: keepPreviousData,
  });

export type Answer =
  | { readonly action: 'approve'; readonly inputs: Record<string, string> }
  | { readonly action: 'push-back'; readonly inputs: Record<string, string> }
  | { readonly action: 'reject'; readonly reason: string };

/** Sends a person's answer to a waiting step; an ApiFailure (with the server's message) if refused. */
export async function answerStep(client: ApiClient, at: RunAddress, stepName: string, answer: Answer): Promise<void> {
  const run = { name: at.name, dagRunId: at.dagRunId, stepName };
  const sub = at.subDagRunId === undefined ? undefined : { ...run, subDAGRunId: at.subDagRunId };
  const body =
    answer.action === 'reject' ? (answer.reason === '' ? {} : { reason: answer.reason }) : { inputs: answer.inputs };
  const steps = '/api/v1/dag-runs/{name}/{dagRunId}/steps/{stepName}';
  const subSteps = '/api/v1/dag-runs/{name}/{dagRunId}/sub-dag-runs/{subDAGRunId}/steps/{stepName}';
  switch (answer.action) {
    case 'approve':
      await data(
        sub === undefined
          ? client.POST(`${steps}/approve`, { params: { path: run }, body })
          : client.POST(`${subSteps}/approve`, { params: { path: sub }, body }),
      );
      return;
    case 'push-back':
      await data(
        sub === undefined
          ? client.POST(`${steps}/push-back`, { params: { path: run }, body })
          : client.POST(`${subSteps}/push-back`, { params: { path: sub }, body }),
      );
      return;
    case 'reject':
      await data(
        sub === undefined
          ? client.POST(`${steps}/reject`, { params: { path: run }, body })
          : client.POST(`${subSteps}/reject`, { params: { path: sub }, body }),
      );
  }
}

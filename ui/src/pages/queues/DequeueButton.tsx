/**
 * Taking a run out of its queue, in two presses: the first asks (naming the run), the second
 * does it. Escape or "Keep" goes back. A failure is said beside the button.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useApi } from '../../api/context.tsx';
import { actionFailure } from '../../api/failure.ts';
import { dequeue, type QueuedRun } from './queries.ts';

export function DequeueButton({ run }: { readonly run: QueuedRun }): ReactNode {
  const client = useApi();
  const queries = useQueryClient();
  const [asking, setAsking] = useState(false);
  const action = useMutation({ mutationFn: () => dequeue(client, queries, run) });
  if (!asking) {
    return (
      <button
        type="button"
        className="button button-small"
        onClick={() => {
          setAsking(true);
        }}
        aria-label={`Dequeue ${run.dagRunId}`}
      >
        Dequeue
      </button>
    );
  }
  return (
    <div
      className="confirm"
      role="group"
      aria-label={`Dequeue ${run.dagRunId}?`}
      onKeyDown={(event) => {
        if (event.key === 'Escape') setAsking(false);
      }}
    >
      <span className="confirm-question">Remove from the queue?</span>
      <button
        type="button"
        className="button button-small button-danger"
        disabled={action.isPending}
        onClick={() => {
          action.mutate();
        }}
        autoFocus
      >
        {action.isPending ? 'Dequeuing…' : 'Dequeue'}
      </button>
      <button
        type="button"
        className="button button-small button-quiet"
        onClick={() => {
          setAsking(false);
          action.reset();
        }}
      >
        Keep
      </button>
      {action.isError ? (
        <span className="confirm-problem" role="alert">
          {actionFailure('dequeue', action.error)}
        </span>
      ) : null}
    </div>
  );
}

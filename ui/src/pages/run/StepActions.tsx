/**
 * Per-step actions of an ended run: retry that step alone (in place: the API's retry with a
 * step name), and set its status before retrying the run (succeeded or skipped steps are kept
 * by a retry, failed, cancelled and not-started ones run again).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useApi } from '../../api/context.tsx';
import { Icon } from '../../components/Icon.tsx';
import type { RunActions, RunAddress } from './address.ts';
import { Dialog } from './Dialog.tsx';
import { runCommands, untilRetried, type RunNode } from './queries.ts';

/** The run's times before a retry, to see when the retry has begun. */
interface RunTimes {
  readonly startedAt: string;
  readonly finishedAt: string;
}

/** Step statuses one may set (the contract's 0-5 but running, which nothing would end). */
const SETTABLE: readonly (readonly [number, string])[] = [
  [4, 'Succeeded'],
  [2, 'Failed'],
  [5, 'Skipped'],
  [3, 'Cancelled'],
  [0, 'Not started'],
];

interface StepActionsProps {
  readonly node: RunNode;
  readonly address: RunAddress;
  readonly run: RunTimes;
  readonly can: RunActions;
}

function useStepMutation(fn: () => Promise<void>, done: () => void) {
  const queries = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: ['runs'] });
      done();
    },
  });
}

function RetryStepDialog({
  node,
  address,
  run,
  onClose,
}: {
  readonly node: RunNode;
  readonly address: RunAddress;
  readonly run: RunTimes;
  readonly onClose: () => void;
}): ReactNode {
  const client = useApi();
  const retry = useStepMutation(async () => {
    await runCommands.retry(client, address, { stepName: node.step.name });
    await untilRetried(client, address, run);
  }, onClose);
  return (
    <Dialog
      open
      title={`Retry step ${node.step.name}?`}
      confirm="Retry step"
      busy={retry.isPending}
      problem={retry.error?.message}
      onConfirm={() => {
        retry.mutate();
      }}
      onClose={onClose}
    >
      <p>
        The run goes on with this step alone, under the same run id: the step runs once more (its retry policy does not
        apply), other steps keep their results.
      </p>
    </Dialog>
  );
}

function StatusDialog({
  node,
  address,
  onClose,
}: {
  readonly node: RunNode;
  readonly address: RunAddress;
  readonly onClose: () => void;
}): ReactNode {
  const client = useApi();
  const [status, setStatus] = useState(node.status === 4 ? 2 : 4);
  const edit = useStepMutation(() => runCommands.setStepStatus(client, address, node.step.name, status), onClose);
  return (
    <Dialog
      open
      title={`Set the status of ${node.step.name}`}
      confirm="Set status"
      busy={edit.isPending}
      problem={edit.error?.message}
      onConfirm={() => {
        edit.mutate();
      }}
      onClose={onClose}
    >
      <label className="field">
        <span>New status</span>
        <select
          className="select"
          value={status}
          onChange={(event) => {
            setStatus(Number(event.target.value));
          }}
        >
          {SETTABLE.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <p className="muted">
        Only this step’s status changes, not the run’s. A retry of the run then keeps succeeded and skipped steps and
        runs failed, cancelled and not-started ones again.
      </p>
    </Dialog>
  );
}

export function StepActions({ node, address, run, can }: StepActionsProps): ReactNode {
  const [open, setOpen] = useState<'retry' | 'status' | undefined>();
  const close = (): void => {
    setOpen(undefined);
  };
  return (
    <div className="step-actions">
      {can.retryStep ? (
        <button
          type="button"
          className="button button-quiet button-icon"
          onClick={() => {
            setOpen('retry');
          }}
          aria-label={`Retry step ${node.step.name}`}
          title="Retry this step alone"
        >
          <Icon name="retry" size={16} />
        </button>
      ) : null}
      {can.editStep ? (
        <button
          type="button"
          className="button button-quiet button-icon"
          onClick={() => {
            setOpen('status');
          }}
          aria-label={`Set the status of ${node.step.name}`}
          title="Set this step's status before a retry"
        >
          <Icon name="edit" size={16} />
        </button>
      ) : null}
      {open === 'retry' ? <RetryStepDialog node={node} address={address} run={run} onClose={close} /> : null}
      {open === 'status' ? <StatusDialog node={node} address={address} onClose={close} /> : null}
    </div>
  );
}

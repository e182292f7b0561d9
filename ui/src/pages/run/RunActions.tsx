/**
 * What can be done with a whole run, each behind a dialog that says what will happen: stop
 * (running), dequeue (queued), retry (ended: as a new run, or in place) and reschedule (a new
 * run from the same definition and params). A new run opens its page.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { useApi } from '../../api/context.tsx';
import { Icon } from '../../components/Icon.tsx';
import { links } from '../../lib/links.ts';
import { runActions, type RunAddress } from './address.ts';
import { Dialog } from './Dialog.tsx';
import { runCommands, untilRetried, type RunDetails } from './queries.ts';
import { newRunId, runIdProblem } from './run-id.ts';

type Action = 'stop' | 'retry' | 'reschedule' | 'dequeue';

interface ActionsProps {
  readonly address: RunAddress;
  readonly run: RunDetails;
  /** The run no longer exists (dequeued): the page says so instead of polling for it. */
  readonly onGone: (message: string) => void;
}

/**
 * A mutation whose failure shows in its dialog and whose success ends it, after everything read
 * about runs is marked stale (this run's page, and any list of runs, show the change).
 */
function useRunMutation<T>(fn: () => Promise<T>, done: (value: T) => void) {
  const queries = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: async (value) => {
      await queries.invalidateQueries({ queryKey: ['runs'] });
      done(value);
    },
  });
}

function NewIdField({
  value,
  onChange,
}: {
  readonly value: string;
  readonly onChange: (value: string) => void;
}): ReactNode {
  const problem = runIdProblem(value);
  return (
    <label className="field">
      <span>New run id</span>
      <input
        className="mono"
        value={value}
        onChange={(event) => {
          onChange(event.target.value.trim());
        }}
        aria-invalid={problem !== undefined}
        spellCheck={false}
        autoComplete="off"
      />
      <small className={problem === undefined ? 'muted' : 'form-problem'}>
        {problem ?? 'Generated; change it to name the run yourself.'}
      </small>
    </label>
  );
}

function RetryDialog({
  address,
  run,
  open,
  onClose,
}: {
  readonly address: RunAddress;
  readonly run: RunDetails;
  readonly open: boolean;
  readonly onClose: () => void;
}): ReactNode {
  const client = useApi();
  const navigate = useNavigate();
  const [asNew, setAsNew] = useState(true);
  const [id, setId] = useState(newRunId);
  const retry = useRunMutation(
    async () => {
      await runCommands.retry(client, address, asNew ? { dagRunId: id } : {});
      if (!asNew) await untilRetried(client, address, run);
    },
    () => {
      onClose();
      if (asNew) void navigate(links.run(address.name, id));
    },
  );
  return (
    <Dialog
      open={open}
      title={`Retry run ${run.dagRunId}`}
      confirm={asNew ? 'Retry as a new run' : 'Retry this run'}
      busy={retry.isPending}
      problem={retry.error?.message}
      invalid={asNew && runIdProblem(id) !== undefined}
      onConfirm={() => {
        retry.mutate();
      }}
      onClose={() => {
        retry.reset();
        onClose();
      }}
    >
      <p>Failed and cancelled steps, and the steps after them, run again. Steps that succeeded keep their results.</p>
      <fieldset className="segmented" aria-label="Where the retry runs">
        <label>
          <input
            type="radio"
            name="retry-where"
            checked={asNew}
            onChange={() => {
              setAsNew(true);
            }}
          />
          <span>As a new run</span>
        </label>
        <label>
          <input
            type="radio"
            name="retry-where"
            checked={!asNew}
            onChange={() => {
              setAsNew(false);
            }}
          />
          <span>In this run</span>
        </label>
      </fieldset>
      {asNew ? (
        <NewIdField value={id} onChange={setId} />
      ) : (
        <p className="muted">The run keeps its id {run.dagRunId}; its page shows the retry.</p>
      )}
    </Dialog>
  );
}

function RescheduleDialog({
  address,
  run,
  open,
  onClose,
}: {
  readonly address: RunAddress;
  readonly run: RunDetails;
  readonly open: boolean;
  readonly onClose: () => void;
}): ReactNode {
  const client = useApi();
  const navigate = useNavigate();
  const [id, setId] = useState(newRunId);
  const reschedule = useRunMutation(
    () => runCommands.reschedule(client, address, id),
    (answer) => {
      onClose();
      void navigate(links.run(address.name, answer.dagRunId));
    },
  );
  return (
    <Dialog
      open={open}
      title={`Reschedule ${run.name}`}
      confirm="Start new run"
      busy={reschedule.isPending}
      problem={reschedule.error?.message}
      invalid={runIdProblem(id) !== undefined}
      onConfirm={() => {
        reschedule.mutate();
      }}
      onClose={() => {
        reschedule.reset();
        onClose();
      }}
    >
      <p>A new run of {run.name} starts from this run’s definition and parameters, all steps from the beginning.</p>
      <NewIdField value={id} onChange={setId} />
    </Dialog>
  );
}

function SimpleDialog({
  action,
  address,
  run,
  onClose,
  onGone,
}: { readonly action: 'stop' | 'dequeue'; readonly onClose: () => void } & ActionsProps): ReactNode {
  const client = useApi();
  const mutation = useRunMutation(
    () => (action === 'stop' ? runCommands.stop(client, address) : runCommands.dequeue(client, address)),
    () => {
      onClose();
      if (action === 'dequeue')
        onGone(`Run ${run.dagRunId} was taken off the queue. It will not run, and it is gone from the run history.`);
    },
  );
  const texts = {
    stop: {
      title: `Stop run ${run.dagRunId}?`,
      confirm: 'Stop run',
      body: 'Running steps are stopped and the run ends as cancelled. Steps not started yet do not run. You can retry the run afterwards.',
    },
    dequeue: {
      title: `Dequeue run ${run.dagRunId}?`,
      confirm: 'Dequeue run',
      body: 'The run leaves the queue without running and is deleted. This cannot be undone.',
    },
  }[action];
  return (
    <Dialog
      open
      title={texts.title}
      confirm={texts.confirm}
      danger
      busy={mutation.isPending}
      problem={mutation.error?.message}
      onConfirm={() => {
        mutation.mutate();
      }}
      onClose={onClose}
    >
      <p>{texts.body}</p>
    </Dialog>
  );
}

export function RunActions({ address, run, onGone }: ActionsProps): ReactNode {
  const [open, setOpen] = useState<Action | undefined>();
  const can = runActions(run, address.subDagRunId !== undefined);
  const close = (): void => {
    setOpen(undefined);
  };
  return (
    <div className="run-actions">
      {can.stop ? (
        <button
          type="button"
          className="button button-danger-quiet"
          onClick={() => {
            setOpen('stop');
          }}
        >
          <Icon name="stop" size={16} /> Stop
        </button>
      ) : null}
      {can.dequeue ? (
        <button
          type="button"
          className="button button-danger-quiet"
          onClick={() => {
            setOpen('dequeue');
          }}
        >
          <Icon name="dequeue" size={16} /> Dequeue
        </button>
      ) : null}
      {can.retry ? (
        <button
          type="button"
          className="button"
          onClick={() => {
            setOpen('retry');
          }}
        >
          <Icon name="retry" size={16} /> Retry
        </button>
      ) : null}
      {can.reschedule ? (
        <button
          type="button"
          className="button"
          onClick={() => {
            setOpen('reschedule');
          }}
        >
          <Icon name="reschedule" size={16} /> Reschedule
        </button>
      ) : null}
      {open === 'stop' || open === 'dequeue' ? (
        <SimpleDialog action={open} address={address} run={run} onClose={close} onGone={onGone} />
      ) : null}
      {open === 'retry' ? <RetryDialog address={address} run={run} open onClose={close} /> : null}
      {open === 'reschedule' ? <RescheduleDialog address={address} run={run} open onClose={close} /> : null}
    </div>
  );
}

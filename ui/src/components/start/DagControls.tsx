/**
 * A DAG's run controls, for its page and for its row in the list: start (through the start
 * dialog), stop every running run (after a confirmation), and the schedule switch (suspend).
 * Each invalidates the 'dags' queries when done, so lists and pages show the change.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { useApi } from '../../api/context.tsx';
import { actionFailure } from '../../api/failure.ts';
import { dagActions, dagKeys } from '../../api/dag-queries.ts';
import { links } from '../../lib/links.ts';
import { Icon } from '../Icon.tsx';
import { ConfirmDialog } from '../ModalDialog.tsx';
import { StartDialog, type StartableDag, type StartedRun } from './StartDialog.tsx';
import './start.css';

interface ControlProps {
  readonly fileName: string;
  readonly dag: StartableDag;
  /** Icon buttons with the DAG's name in their accessible names, for rows of a list. */
  readonly compact?: boolean;
}

export function StartButton({
  fileName,
  dag,
  compact = false,
  onStarted,
}: ControlProps & { readonly onStarted: (run: StartedRun) => void }): ReactNode {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        className={`button ${compact ? 'button-quiet icon-button' : 'button-primary'}`}
        onClick={() => {
          setOpen(true);
        }}
        title={compact ? `Start ${dag.name}` : undefined}
      >
        <Icon name="play" size={compact ? 16 : 15} label={compact ? `Start ${dag.name}` : undefined} />
        {compact ? null : <span>Start</span>}
      </button>
      {open ? (
        <StartDialog
          fileName={fileName}
          dag={dag}
          onClose={() => {
            setOpen(false);
          }}
          onStarted={(run) => {
            setOpen(false);
            onStarted(run);
          }}
        />
      ) : null}
    </>
  );
}

export function StopAllButton({
  fileName,
  dag,
  compact = false,
  running,
}: ControlProps & { readonly running: boolean }): ReactNode {
  const client = useApi();
  const queries = useQueryClient();
  const [open, setOpen] = useState(false);
  const stop = useMutation({
    mutationFn: () => dagActions(client).stopAll(fileName),
    onSuccess: (errors) => {
      void queries.invalidateQueries({ queryKey: dagKeys.all });
      if (errors.length === 0) setOpen(false);
    },
  });
  const problems = stop.isError
    ? actionFailure('stop', stop.error)
    : stop.data !== undefined && stop.data.length > 0
      ? stop.data.join('; ')
      : undefined;
  const label = running ? `Stop the running runs of ${dag.name}` : `${dag.name} has no running run to stop`;
  return (
    <>
      <button
        type="button"
        className={`button ${compact ? 'button-quiet icon-button' : ''}`}
        disabled={!running}
        onClick={() => {
          stop.reset();
          setOpen(true);
        }}
        title={label}
      >
        <Icon name="stop" size={compact ? 16 : 15} label={compact ? label : undefined} />
        {compact ? null : <span>Stop all</span>}
      </button>
      {open ? (
        <ConfirmDialog
          title={`Stop ${dag.name}?`}
          confirm="Stop all"
          danger
          busy={stop.isPending}
          error={problems}
          onConfirm={() => {
            stop.mutate();
          }}
          onClose={() => {
            setOpen(false);
          }}
        >
          <p>Every running run of this DAG is stopped. Their steps are cancelled and their handlers run.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

/** On while the scheduler may start runs; off while the DAG is suspended. */
export function SuspendSwitch({
  fileName,
  dag,
  suspended,
  compact = false,
}: ControlProps & { readonly suspended: boolean }): ReactNode {
  const client = useApi();
  const queries = useQueryClient();
  const toggle = useMutation({
    mutationFn: (suspend: boolean) => dagActions(client).suspend(fileName, suspend),
    onSettled: () => queries.invalidateQueries({ queryKey: dagKeys.all }),
  });
  // Shows the requested state while the request is out, so the switch answers at once.
  const shown = toggle.isPending ? toggle.variables : suspended;
  const title = toggle.isError
    ? actionFailure('change', toggle.error)
    : shown
      ? 'Suspended: the scheduler starts no runs of this DAG'
      : 'Scheduled: the scheduler starts runs of this DAG on its schedule';
  return (
    <button
      type="button"
      role="switch"
      aria-checked={!shown}
      aria-label={compact ? `Schedule ${dag.name}` : 'Schedule'}
      className={`switch${toggle.isError ? ' switch-failed' : ''}`}
      title={title}
      disabled={toggle.isPending}
      onClick={() => {
        toggle.mutate(!shown);
      }}
    >
      <span className="switch-track" aria-hidden="true">
        <span className="switch-thumb" />
      </span>
      {compact ? null : <span className="switch-label">{shown ? 'Suspended' : 'Scheduled'}</span>}
    </button>
  );
}

/** Says a run was started or queued, with the way to it. */
export function StartedNotice({
  run,
  onDismiss,
}: {
  readonly run: StartedRun;
  readonly onDismiss: () => void;
}): ReactNode {
  return (
    <div className="notice" role="status">
      <Icon name="play" size={14} />
      <span>
        {run.enqueued ? 'Queued' : 'Started'} run{' '}
        <Link to={links.run(run.name, run.dagRunId)} className="mono">
          {run.dagRunId}
        </Link>{' '}
        of {run.name}.
      </span>
      <button type="button" className="button button-quiet notice-close" onClick={onDismiss}>
        <Icon name="close" size={14} label="Dismiss" />
      </button>
    </div>
  );
}

/**
 * Starting a DAG: a field per parameter with its default filled in, an optional run id, and
 * "enqueue instead of starting now". The DAG's runConfig can lock the parameters or the run
 * id (disableParamEdit, disableRunIdEdit), as Dagu's dialog honours them.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type ReactNode } from 'react';
import { useApi } from '../../api/context.tsx';
import { actionFailure } from '../../api/failure.ts';
import { dagActions, dagKeys } from '../../api/dag-queries.ts';
import { DialogActions, ModalDialog } from '../ModalDialog.tsx';
import { fieldLabel, paramFields, paramsString, type ParamField } from './params.ts';
import './start.css';

/** What the dialog needs of a DAG: its summary, as the list and the details both give it. */
export interface StartableDag {
  readonly name: string;
  readonly params: readonly string[];
  readonly defaultParams: string;
  readonly runConfig: { readonly disableParamEdit: boolean; readonly disableRunIdEdit: boolean };
}

export interface StartedRun {
  /** The DAG's name, which addresses its runs. */
  readonly name: string;
  readonly dagRunId: string;
  readonly enqueued: boolean;
}

interface StartDialogProps {
  readonly fileName: string;
  readonly dag: StartableDag;
  readonly onClose: () => void;
  readonly onStarted: (run: StartedRun) => void;
}

interface ParamInputsProps {
  readonly fields: readonly ParamField[];
  readonly defaults: readonly ParamField[];
  readonly locked: boolean;
  readonly onChange: (index: number, value: string) => void;
}

function ParamInputs({ fields, defaults, locked, onChange }: ParamInputsProps): ReactNode {
  return (
    <fieldset>
      <legend>Parameters</legend>
      {locked ? (
        <p className="field-hint">This DAG does not allow changing its parameters (runConfig.disableParamEdit).</p>
      ) : null}
      {fields.map((field, index) => (
        <label key={field.name} className="field">
          <span className={field.positional ? undefined : 'mono'}>{fieldLabel(field)}</span>
          <input
            value={field.value}
            readOnly={locked}
            autoFocus={index === 0 && !locked}
            spellCheck={false}
            autoComplete="off"
            onChange={(event) => {
              onChange(index, event.target.value);
            }}
          />
          {defaults[index] === undefined || defaults[index].value === field.value ? null : (
            <small className="field-hint">
              Changed from the default <code>{defaults[index].value === '' ? '(empty)' : defaults[index].value}</code>
            </small>
          )}
        </label>
      ))}
    </fieldset>
  );
}

function FreeParams({
  value,
  onChange,
}: {
  readonly value: string;
  readonly onChange: (value: string) => void;
}): ReactNode {
  const hint = useId();
  return (
    <label className="field">
      <span>Parameters</span>
      <input
        value={value}
        placeholder="NAME=value OTHER=value"
        autoFocus
        spellCheck={false}
        autoComplete="off"
        aria-describedby={hint}
        onChange={(event) => {
          onChange(event.target.value);
        }}
      />
      <small id={hint} className="field-hint">
        This DAG declares none; any given here are passed as they are.
      </small>
    </label>
  );
}

function RunIdInput({
  value,
  autoFocus,
  onChange,
}: {
  readonly value: string;
  readonly autoFocus: boolean;
  readonly onChange: (value: string) => void;
}): ReactNode {
  return (
    <label className="field">
      <span>Run ID</span>
      <input
        value={value}
        placeholder="Generated when empty"
        spellCheck={false}
        autoComplete="off"
        autoFocus={autoFocus}
        onChange={(event) => {
          onChange(event.target.value);
        }}
      />
    </label>
  );
}

function EnqueueCheck({
  checked,
  onChange,
}: {
  readonly checked: boolean;
  readonly onChange: (checked: boolean) => void;
}): ReactNode {
  return (
    <label className="check">
      <input
        type="checkbox"
        checked={checked}
        onChange={(event) => {
          onChange(event.target.checked);
        }}
      />
      <span className="check-text">
        <span>Enqueue instead of starting now</span>
        <small className="field-hint">The run waits in its queue until the queue has room.</small>
      </span>
    </label>
  );
}

export function StartDialog({ fileName, dag, onClose, onStarted }: StartDialogProps): ReactNode {
  const client = useApi();
  const queries = useQueryClient();
  const [defaults] = useState(() => paramFields(dag.params, dag.defaultParams));
  const [fields, setFields] = useState(defaults);
  const [free, setFree] = useState('');
  const [runId, setRunId] = useState('');
  const [enqueue, setEnqueue] = useState(false);
  const start = useMutation({
    mutationFn: () => {
      const params =
        defaults.length > 0 ? paramsString(fields, defaults) : free.trim() === '' ? undefined : free.trim();
      return dagActions(client).start(fileName, {
        params,
        dagRunId: runId.trim() === '' ? undefined : runId.trim(),
        enqueue,
      });
    },
    onSuccess: (dagRunId) => {
      void queries.invalidateQueries({ queryKey: dagKeys.all });
      onStarted({ name: dag.name, dagRunId, enqueued: enqueue });
    },
  });
  const locked = dag.runConfig.disableParamEdit;
  return (
    <ModalDialog title={`Start ${dag.name}`} onClose={onClose}>
      <form
        className="modal-form start-form"
        onSubmit={(event) => {
          event.preventDefault();
          start.mutate();
        }}
      >
        {defaults.length > 0 ? (
          <ParamInputs
            fields={fields}
            defaults={defaults}
            locked={locked}
            onChange={(index, value) => {
              setFields(fields.map((field, i) => (i === index ? { ...field, value } : field)));
            }}
          />
        ) : locked ? null : (
          <FreeParams value={free} onChange={setFree} />
        )}
        {dag.runConfig.disableRunIdEdit ? null : (
          <RunIdInput value={runId} autoFocus={defaults.length === 0 && locked} onChange={setRunId} />
        )}
        <EnqueueCheck checked={enqueue} onChange={setEnqueue} />
        {start.isError ? (
          <p className="form-problem" role="alert">
            {actionFailure(enqueue ? 'enqueue' : 'start', start.error)}
          </p>
        ) : null}
        <DialogActions>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={start.isPending}>
            {start.isPending ? 'Starting…' : enqueue ? 'Enqueue' : 'Start'}
          </button>
        </DialogActions>
      </form>
    </ModalDialog>
  );
}

/**
 * "New DAG": a name, then POST /dags with a small spec to start from, and on to the new DAG's
 * spec tab to write the real one.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { useApi } from '../../api/context.tsx';
import { actionFailure } from '../../api/failure.ts';
import { dagActions, dagKeys } from '../../api/dag-queries.ts';
import { DialogActions, ModalDialog } from '../../components/ModalDialog.tsx';
import { links } from '../../lib/links.ts';
import { fileNameProblem } from '../dag/DagFileDialogs.tsx';

/** What a new DAG starts with: valid, runnable, and showing the shape of a spec. */
export function starterSpec(name: string): string {
  return `description: ${JSON.stringify(`What ${name} does`)}\nsteps:\n  - name: hello\n    command: echo "hello from ${name}"\n`;
}

export function NewDagDialog({ onClose }: { readonly onClose: () => void }): ReactNode {
  const client = useApi();
  const queries = useQueryClient();
  const navigate = useNavigate();
  const hint = useId();
  const [name, setName] = useState('');
  const [touched, setTouched] = useState(false);
  const create = useMutation({
    mutationFn: () => dagActions(client).create(name, starterSpec(name)),
    onSuccess: (created) => {
      void queries.invalidateQueries({ queryKey: dagKeys.all });
      void navigate(links.dagTab(created, 'spec'));
    },
  });
  const problem = fileNameProblem(name);
  return (
    <ModalDialog title="New DAG" onClose={onClose}>
      <form
        className="modal-form"
        onSubmit={(event) => {
          event.preventDefault();
          setTouched(true);
          if (problem === undefined) create.mutate();
        }}
      >
        <label className="field">
          <span>Name</span>
          <input
            value={name}
            autoFocus
            spellCheck={false}
            autoComplete="off"
            placeholder="etl-daily"
            aria-describedby={hint}
            aria-invalid={touched && problem !== undefined}
            onChange={(event) => {
              setName(event.target.value.trim());
            }}
          />
          <small id={hint} className="field-hint">
            Letters, digits, - and _. It starts with one step; the editor opens next.
          </small>
        </label>
        {touched && problem !== undefined ? (
          <p className="form-problem" role="alert">
            {problem}
          </p>
        ) : null}
        {create.isError ? (
          <p className="form-problem" role="alert">
            {actionFailure('create it', create.error)}
          </p>
        ) : null}
        <DialogActions>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create'}
          </button>
        </DialogActions>
      </form>
    </ModalDialog>
  );
}

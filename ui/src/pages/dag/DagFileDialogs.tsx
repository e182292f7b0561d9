/** Renaming and deleting a DAG file, each from a dialog; both leave for the DAG's new place. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type ReactNode } from 'react';
import { useApi } from '../../api/context.tsx';
import { dagActions, dagKeys } from '../../api/dag-queries.ts';
import { actionFailure } from '../../api/failure.ts';
import { ConfirmDialog, DialogActions, ModalDialog } from '../../components/ModalDialog.tsx';

/** The contract's fileName pattern and the DAG name limit, checked before asking. */
export function fileNameProblem(name: string): string | undefined {
  if (name === '') return 'Give it a name.';
  if (!/^[A-Za-z0-9_-]+$/.test(name)) return 'Letters, digits, - and _ only.';
  if (name.length > 40) return 'At most 40 characters.';
  return undefined;
}

export function RenameDialog({
  fileName,
  onClose,
  onRenamed,
}: {
  readonly fileName: string;
  readonly onClose: () => void;
  readonly onRenamed: (newFileName: string) => void;
}): ReactNode {
  const client = useApi();
  const queries = useQueryClient();
  const [name, setName] = useState(fileName);
  const [touched, setTouched] = useState(false);
  const hint = useId();
  const rename = useMutation({
    mutationFn: () => dagActions(client).rename(fileName, name),
    onSuccess: () => {
      void queries.invalidateQueries({ queryKey: dagKeys.all });
      onRenamed(name);
    },
  });
  const problem = fileNameProblem(name) ?? (name === fileName ? 'That is its name now.' : undefined);
  return (
    <ModalDialog title={`Rename ${fileName}`} onClose={onClose}>
      <form
        className="modal-form"
        onSubmit={(event) => {
          event.preventDefault();
          setTouched(true);
          if (problem === undefined) rename.mutate();
        }}
      >
        <label className="field">
          <span>New name</span>
          <input
            value={name}
            autoFocus
            spellCheck={false}
            autoComplete="off"
            aria-describedby={hint}
            aria-invalid={touched && problem !== undefined}
            onChange={(event) => {
              setName(event.target.value.trim());
            }}
          />
          <small id={hint} className="field-hint">
            The DAG file gets this name; its runs keep theirs.
          </small>
        </label>
        {touched && problem !== undefined ? (
          <p className="form-problem" role="alert">
            {problem}
          </p>
        ) : null}
        {rename.isError ? (
          <p className="form-problem" role="alert">
            {actionFailure('rename', rename.error)}
          </p>
        ) : null}
        <DialogActions>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={rename.isPending}>
            {rename.isPending ? 'Renaming…' : 'Rename'}
          </button>
        </DialogActions>
      </form>
    </ModalDialog>
  );
}

export function DeleteDialog({
  fileName,
  onClose,
  onDeleted,
}: {
  readonly fileName: string;
  readonly onClose: () => void;
  readonly onDeleted: () => void;
}): ReactNode {
  const client = useApi();
  const queries = useQueryClient();
  const remove = useMutation({
    mutationFn: () => dagActions(client).remove(fileName),
    onSuccess: () => {
      queries.removeQueries({ queryKey: dagKeys.details(fileName) });
      void queries.invalidateQueries({ queryKey: dagKeys.all });
      onDeleted();
    },
  });
  return (
    <ConfirmDialog
      title={`Delete ${fileName}?`}
      confirm="Delete"
      danger
      busy={remove.isPending}
      error={remove.isError ? actionFailure('delete', remove.error) : undefined}
      onConfirm={() => {
        remove.mutate();
      }}
      onClose={onClose}
    >
      <p>The DAG file is deleted and nothing more is scheduled from it. This cannot be undone.</p>
    </ConfirmDialog>
  );
}

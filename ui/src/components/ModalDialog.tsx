/**
 * A modal dialog on the platform's <dialog>: showModal() gives the focus trap, the backdrop,
 * inert content behind and Escape for free. The parent mounts it to open it and unmounts it
 * to close it, so every opening starts with a fresh form.
 */
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { Icon } from './Icon.tsx';
import './dialog.css';

interface ModalDialogProps {
  readonly title: string;
  readonly onClose: () => void;
  readonly children: ReactNode;
  /** A short line under the title, read out when the dialog opens. */
  readonly description?: ReactNode;
  readonly wide?: boolean;
}

export function ModalDialog({ title, onClose, children, description, wide = false }: ModalDialogProps): ReactNode {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog === null) return undefined;
    if (!dialog.open) dialog.showModal();
    return () => {
      dialog.close();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className={`modal${wide ? ' modal-wide' : ''}`}
      aria-labelledby={titleId}
      aria-describedby={description === undefined ? undefined : descriptionId}
      // Escape: the parent decides (it unmounts us); the browser may close anyway, hence onClose too.
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClose={onClose}
      // A click on the backdrop lands on the <dialog> itself, outside its content box.
      onClick={(event) => {
        if (event.target === event.currentTarget) onClose();
      }}
    >
      <div className="modal-body">
        <header className="modal-header">
          <h2 id={titleId}>{title}</h2>
          <button type="button" className="button button-quiet modal-close" onClick={onClose}>
            <Icon name="close" label="Close" />
          </button>
        </header>
        {description === undefined ? null : (
          <p id={descriptionId} className="modal-description">
            {description}
          </p>
        )}
        {children}
      </div>
    </dialog>
  );
}

/** The buttons at the foot of a dialog's form: the main one last, as platforms place it. */
export function DialogActions({ children }: { readonly children: ReactNode }): ReactNode {
  return <div className="modal-actions">{children}</div>;
}

interface ConfirmProps {
  readonly title: string;
  readonly children: ReactNode;
  readonly confirm: string;
  readonly busy: boolean;
  readonly error?: string;
  readonly danger?: boolean;
  readonly onConfirm: () => void;
  readonly onClose: () => void;
}

/** A yes-or-no question before something that cannot be taken back. */
export function ConfirmDialog({
  title,
  children,
  confirm,
  busy,
  error,
  danger = false,
  onConfirm,
  onClose,
}: ConfirmProps): ReactNode {
  return (
    <ModalDialog title={title} onClose={onClose}>
      <form
        className="modal-form"
        onSubmit={(event) => {
          event.preventDefault();
          onConfirm();
        }}
      >
        <div className="modal-text">{children}</div>
        {error === undefined ? null : (
          <p className="form-problem" role="alert">
            {error}
          </p>
        )}
        <DialogActions>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          {/* Focused first: the question is asked because the user pressed for it. */}
          <button
            type="submit"
            className={`button ${danger ? 'button-danger' : 'button-primary'}`}
            disabled={busy}
            autoFocus
          >
            {busy ? 'Working…' : confirm}
          </button>
        </DialogActions>
      </form>
    </ModalDialog>
  );
}

/**
 * A confirmation dialog: the native modal <dialog>, which traps focus, closes on Escape and
 * hides the page from assistive technology while open. The confirm button says what happens
 * ("Stop run"), is red when that cannot be undone, and waits while the request is under way.
 */
import { useEffect, useId, useRef, type ReactNode } from 'react';

interface DialogProps {
  readonly open: boolean;
  readonly title: string;
  readonly confirm: string;
  readonly danger?: boolean;
  readonly busy: boolean;
  /** Why the last attempt failed, shown in the dialog. */
  readonly problem?: string | undefined;
  /** A reason the form cannot be sent yet (an invalid field); disables the confirm button. */
  readonly invalid?: boolean;
  readonly onConfirm: () => void;
  readonly onClose: () => void;
  readonly children: ReactNode;
}

export function Dialog({
  open,
  title,
  confirm,
  danger = false,
  busy,
  problem,
  invalid = false,
  onConfirm,
  onClose,
  children,
}: DialogProps): ReactNode {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);
  return (
    <dialog
      ref={dialog}
      className="dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        // Escape while a request is under way would hide its outcome.
        event.preventDefault();
        if (!busy) onClose();
      }}
    >
      <form
        className="dialog-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (!busy && !invalid) onConfirm();
        }}
      >
        <h2 id={titleId}>{title}</h2>
        <div className="dialog-body">{children}</div>
        {problem === undefined ? null : (
          <p className="dialog-problem" role="alert">
            {problem}
          </p>
        )}
        <div className="dialog-buttons">
          <button type="button" className="button" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button
            type="submit"
            className={`button ${danger ? 'button-danger' : 'button-primary'}`}
            disabled={busy || invalid}
            aria-busy={busy}
          >
            {busy ? 'Working…' : confirm}
          </button>
        </div>
      </form>
    </dialog>
  );
}

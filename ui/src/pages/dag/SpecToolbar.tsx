/** The spec tab's toolbar: save and revert, whether there are unsaved changes, rename and delete. */
import type { ReactNode } from 'react';
import { Icon } from '../../components/Icon.tsx';

export interface ToolbarProps {
  readonly dirty: boolean;
  readonly saving: boolean;
  readonly saved: boolean;
  readonly onSave: () => void;
  readonly onRevert: () => void;
  readonly onRename: () => void;
  readonly onDelete: () => void;
}

export function Toolbar({ dirty, saving, saved, onSave, onRevert, onRename, onDelete }: ToolbarProps): ReactNode {
  return (
    <div className="spec-toolbar">
      <button
        type="button"
        className="button button-primary"
        disabled={!dirty || saving}
        onClick={onSave}
        aria-keyshortcuts="Control+S"
      >
        {saving ? 'Saving…' : 'Save'}
      </button>
      <button type="button" className="button" disabled={!dirty} onClick={onRevert}>
        Revert
      </button>
      <span className="spec-state muted" role="status">
        {dirty ? 'Unsaved changes' : saved ? 'Saved' : ''}
      </span>
      <span className="spec-toolbar-end">
        <button
          type="button"
          className="button button-quiet"
          disabled={dirty}
          title={dirty ? 'Save or revert first' : undefined}
          onClick={onRename}
        >
          <Icon name="pencil" size={15} />
          <span>Rename</span>
        </button>
        <button type="button" className="button button-quiet button-quiet-danger" onClick={onDelete}>
          <Icon name="trash" size={15} />
          <span>Delete</span>
        </button>
      </span>
    </div>
  );
}

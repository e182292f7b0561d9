/**
 * The spec tab: the DAG file in an editor, checked as it is typed (SpecProblems.tsx), saved
 * with the button or Ctrl+S, renamed and deleted from here. Leaving with unsaved changes asks
 * first.
 *
 * Loaded on demand (React.lazy): CodeMirror and the compiled schema are most of the bundle,
 * and only this tab needs them.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { EditorView } from 'codemirror';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useBlocker, useNavigate } from 'react-router';
import { useApi } from '../../api/context.tsx';
import { actionFailure } from '../../api/failure.ts';
import { dagActions, dagKeys, dagSpecQuery } from '../../api/dag-queries.ts';
import { ConfirmDialog } from '../../components/ModalDialog.tsx';
import { links } from '../../lib/links.ts';
import { DeleteDialog, RenameDialog } from './DagFileDialogs.tsx';
import { SpecEditor } from './SpecEditor.tsx';
import { ProblemList, useProblems } from './SpecProblems.tsx';
import { Toolbar } from './SpecToolbar.tsx';
import type { Problem } from './spec-lint.ts';

type Blocker = ReturnType<typeof useBlocker>;

/** Asks before leaving the page (in the app, or closing the tab) while there are unsaved changes. */
function useLeaveGuard(dirty: boolean, allow: React.RefObject<boolean>): Blocker {
  useEffect(() => {
    if (!dirty) return undefined;
    const warn = (event: BeforeUnloadEvent): void => {
      event.preventDefault();
    };
    window.addEventListener('beforeunload', warn);
    return () => {
      window.removeEventListener('beforeunload', warn);
    };
  }, [dirty]);
  return useBlocker(
    ({ currentLocation, nextLocation }) =>
      dirty && !allow.current && currentLocation.pathname !== nextLocation.pathname,
  );
}

interface Saving {
  /** The text the server has. */
  readonly saved: string;
  readonly save: (spec: string) => void;
  readonly pending: boolean;
  /** The last save went through (the server neither failed nor refused it). */
  readonly succeeded: boolean;
  readonly error: Error | null;
  /** The server's problems with `text`, when it refused to save exactly that text. */
  readonly rejected: readonly string[] | undefined;
}

/** Saving the spec: the server answers a spec it refuses with its problems, and keeps the old one. */
function useSave(fileName: string, stored: string, text: string): Saving {
  const client = useApi();
  const queries = useQueryClient();
  const [saved, setSaved] = useState(stored);
  const mutation = useMutation({
    mutationFn: (spec: string) =>
      dagActions(client)
        .saveSpec(fileName, spec)
        .then((errors) => ({ spec, errors })),
    onSuccess: ({ spec, errors }) => {
      if (errors.length > 0) return;
      setSaved(spec);
      void queries.invalidateQueries({ queryKey: dagKeys.all });
    },
  });
  const answer = mutation.data;
  const rejected = answer !== undefined && answer.errors.length > 0 && answer.spec === text ? answer.errors : undefined;
  return {
    saved,
    save: mutation.mutate,
    pending: mutation.isPending,
    succeeded: mutation.isSuccess && rejected === undefined,
    error: mutation.error,
    rejected,
  };
}

/** Why the last save did not happen: the request failed, or the server refused the spec. */
function SaveNotice({ error, rejected }: Pick<Saving, 'error' | 'rejected'>): ReactNode {
  if (error !== null)
    return (
      <p className="banner banner-failure" role="alert">
        {actionFailure('save', error)}
      </p>
    );
  if (rejected === undefined) return null;
  return (
    <p className="banner banner-failure" role="alert">
      Not saved: the server found {rejected.length === 1 ? 'a problem' : `${String(rejected.length)} problems`}, listed
      below the editor.
    </p>
  );
}

type FileDialog = 'rename' | 'delete';

/** The rename or delete dialog; either leaves for the DAG's new place when it is done. */
function FileDialogs({
  fileName,
  open,
  onClose,
  onLeave,
}: {
  readonly fileName: string;
  readonly open: FileDialog | undefined;
  readonly onClose: () => void;
  readonly onLeave: (to: string) => void;
}): ReactNode {
  if (open === 'rename')
    return (
      <RenameDialog
        fileName={fileName}
        onClose={onClose}
        onRenamed={(name) => {
          onLeave(links.dagTab(name, 'spec'));
        }}
      />
    );
  if (open === 'delete')
    return (
      <DeleteDialog
        fileName={fileName}
        onClose={onClose}
        onDeleted={() => {
          onLeave(links.dags());
        }}
      />
    );
  return null;
}

/** Asks whether to drop unsaved changes when the user leaves the tab in the app. */
function LeaveConfirm({ blocker }: { readonly blocker: Blocker }): ReactNode {
  if (blocker.state !== 'blocked') return null;
  return (
    <ConfirmDialog
      title="Discard unsaved changes?"
      confirm="Discard"
      danger
      busy={false}
      onConfirm={() => {
        blocker.proceed();
      }}
      onClose={() => {
        blocker.reset();
      }}
    >
      <p>The spec has changes that are not saved. Leaving the editor drops them.</p>
    </ConfirmDialog>
  );
}

/** The editor's view, and what the page does to it: put the cursor on a problem, put the saved text back. */
function useEditorView(): {
  view: React.RefObject<EditorView | null>;
  pick: (problem: Problem) => void;
  replace: (text: string) => void;
} {
  const view = useRef<EditorView | null>(null);
  return {
    view,
    pick: (problem) => {
      const editor = view.current;
      if (editor === null) return;
      editor.dispatch({ selection: { anchor: Math.min(problem.from, editor.state.doc.length) }, scrollIntoView: true });
      editor.focus();
    },
    replace: (text) => {
      view.current?.dispatch({ changes: { from: 0, to: view.current.state.doc.length, insert: text } });
    },
  };
}

function Editing({ fileName, stored }: { readonly fileName: string; readonly stored: string }): ReactNode {
  const navigate = useNavigate();
  const [text, setText] = useState(stored);
  const [dialog, setDialog] = useState<FileDialog>();
  const editor = useEditorView();
  const leaving = useRef(false);
  const { problems, text: checkedText, checking } = useProblems(fileName, text);
  const saving = useSave(fileName, stored, text);
  const dirty = text !== saving.saved;
  const blocker = useLeaveGuard(dirty, leaving);
  const leave = (to: string): void => {
    leaving.current = true;
    void navigate(to, { replace: true });
  };
  return (
    <div className="spec-tab">
      <Toolbar
        dirty={dirty}
        saving={saving.pending}
        saved={saving.succeeded}
        onSave={() => {
          saving.save(text);
        }}
        onRevert={() => {
          editor.replace(saving.saved);
        }}
        onRename={() => {
          setDialog('rename');
        }}
        onDelete={() => {
          setDialog('delete');
        }}
      />
      <SaveNotice error={saving.error} rejected={saving.rejected} />
      <div className="spec-editor-frame">
        <SpecEditor
          initial={stored}
          problems={problems}
          problemsFor={checkedText}
          label={`Spec of ${fileName}`}
          onChange={setText}
          onSave={() => {
            if (dirty) saving.save(text);
          }}
          viewRef={editor.view}
        />
      </div>
      <ProblemList problems={problems} checking={checking} onPick={editor.pick} />
      <FileDialogs
        fileName={fileName}
        open={dialog}
        onClose={() => {
          setDialog(undefined);
        }}
        onLeave={leave}
      />
      <LeaveConfirm blocker={blocker} />
    </div>
  );
}

export default function SpecTab({ fileName }: { readonly fileName: string }): ReactNode {
  const client = useApi();
  const spec = useQuery(dagSpecQuery(client, fileName));
  if (spec.data === undefined) {
    return spec.isError ? (
      <div className="card empty" role="alert">
        <p>Could not load the spec: {spec.error.message}</p>
      </div>
    ) : (
      <div className="card skeleton" aria-busy="true" aria-label="Loading the spec">
        <div className="skeleton-row" />
        <div className="skeleton-row" />
      </div>
    );
  }
  // Keyed by file: a renamed or another DAG starts a fresh editor.
  return <Editing key={fileName} fileName={fileName} stored={spec.data.spec} />;
}

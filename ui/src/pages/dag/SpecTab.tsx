/**
 * The spec tab: the DAG file in an editor, checked as it is typed (spec-lint.ts: the browser's
 * schema check at once, the server's validate endpoint once typing pauses), saved with the
 * button or Ctrl+S, renamed and deleted from here. Leaving with unsaved changes asks first.
 *
 * Loaded on demand (React.lazy): CodeMirror and the compiled schema are most of the bundle,
 * and only this tab needs them.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { EditorView } from 'codemirror';
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useBlocker, useNavigate } from 'react-router';
import { useApi } from '../../api/context.tsx';
import { actionFailure } from '../../api/failure.ts';
import { dagActions, dagKeys, dagSpecQuery } from '../../api/dag-queries.ts';
import { Icon } from '../../components/Icon.tsx';
import { ConfirmDialog } from '../../components/ModalDialog.tsx';
import { links } from '../../lib/links.ts';
import { DeleteDialog, RenameDialog } from './DagFileDialogs.tsx';
import { SpecEditor } from './SpecEditor.tsx';
import { parseSpec, schemaProblems, serverProblems, shownProblems, type Problem } from './spec-lint.ts';

const LOCAL_PAUSE_MS = 120;
const SERVER_PAUSE_MS = 500;

/** `value`, once it has stayed the same for `ms`. */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => {
      setSettled(value);
    }, ms);
    return () => {
      clearTimeout(timer);
    };
  }, [value, ms]);
  return settled;
}

interface Checked {
  readonly problems: Problem[];
  /** The text the problems were found in: the current one, or one typed a moment ago. */
  readonly text: string;
  readonly checking: boolean;
}

/** The problems of `text`: the browser's at once, the server's when it has answered for this text. */
function useProblems(fileName: string, text: string): Checked {
  const client = useApi();
  const local = useSettled(text, LOCAL_PAUSE_MS);
  const asked = useSettled(text, SERVER_PAUSE_MS);
  const localProblems = useMemo(() => schemaProblems(parseSpec(local)), [local]);
  const server = useQuery({
    queryKey: ['dags', 'validate', fileName, asked],
    queryFn: ({ signal }) => dagActions(client).validate(asked, fileName, signal),
    staleTime: Infinity,
    gcTime: 30_000,
    retry: false,
  });
  const errors = asked === text ? server.data?.errors : undefined;
  const answered = errors !== undefined;
  const fromServer = useMemo(
    () => (errors === undefined ? undefined : serverProblems(parseSpec(asked), errors)),
    [errors, asked],
  );
  return {
    problems: shownProblems(localProblems, fromServer),
    text: answered ? asked : local,
    checking: !answered && !server.isError,
  };
}

function ProblemList({
  problems,
  checking,
  onPick,
}: {
  readonly problems: readonly Problem[];
  readonly checking: boolean;
  readonly onPick: (problem: Problem) => void;
}): ReactNode {
  const summary =
    problems.length === 0
      ? checking
        ? 'Checking…'
        : 'No problems found'
      : problems.length === 1
        ? '1 problem'
        : `${String(problems.length)} problems`;
  return (
    <section className="problems" aria-label="Problems">
      <p
        className={`problems-summary${problems.length > 0 ? ' problems-bad' : checking ? '' : ' problems-good'}`}
        role="status"
      >
        <Icon name={problems.length > 0 ? 'alert' : checking ? 'clock' : 'check'} size={14} />
        {summary}
      </p>
      {problems.length === 0 ? null : (
        <ul className="problem-list">
          {problems.map((problem) => (
            <li key={`${String(problem.from)}:${problem.message}`}>
              <button
                type="button"
                className="problem-line"
                onClick={() => {
                  onPick(problem);
                }}
              >
                Line {problem.line}
              </button>
              <span className="problem-message">{problem.message}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Asks before leaving the page (in the app, or closing the tab) while there are unsaved changes. */
function useLeaveGuard(dirty: boolean, allow: React.RefObject<boolean>): ReturnType<typeof useBlocker> {
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

interface ToolbarProps {
  readonly dirty: boolean;
  readonly saving: boolean;
  readonly saved: boolean;
  readonly onSave: () => void;
  readonly onRevert: () => void;
  readonly onRename: () => void;
  readonly onDelete: () => void;
}

function Toolbar({ dirty, saving, saved, onSave, onRevert, onRename, onDelete }: ToolbarProps): ReactNode {
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

// eslint-disable-next-line max-lines-per-function -- longer since Prettier's layout; split pending (issue 27)
function Editing({ fileName, stored }: { readonly fileName: string; readonly stored: string }): ReactNode {
  const client = useApi();
  const queries = useQueryClient();
  const navigate = useNavigate();
  const [text, setText] = useState(stored);
  const [saved, setSaved] = useState(stored);
  const [dialog, setDialog] = useState<'rename' | 'delete'>();
  const view = useRef<EditorView | null>(null);
  const leaving = useRef(false);
  const { problems, text: checkedText, checking } = useProblems(fileName, text);
  const dirty = text !== saved;
  const save = useMutation({
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
  const blocker = useLeaveGuard(dirty, leaving);
  const leave = (to: string): void => {
    leaving.current = true;
    void navigate(to, { replace: true });
  };
  const pick = (problem: Problem): void => {
    const editor = view.current;
    if (editor === null) return;
    editor.dispatch({ selection: { anchor: Math.min(problem.from, editor.state.doc.length) }, scrollIntoView: true });
    editor.focus();
  };
  const rejected =
    save.data !== undefined && save.data.errors.length > 0 && save.data.spec === text ? save.data.errors : undefined;
  return (
    <div className="spec-tab">
      <Toolbar
        dirty={dirty}
        saving={save.isPending}
        saved={save.isSuccess && rejected === undefined}
        onSave={() => {
          save.mutate(text);
        }}
        onRevert={() => {
          view.current?.dispatch({ changes: { from: 0, to: view.current.state.doc.length, insert: saved } });
        }}
        onRename={() => {
          setDialog('rename');
        }}
        onDelete={() => {
          setDialog('delete');
        }}
      />
      {save.isError ? (
        <p className="banner banner-failure" role="alert">
          {actionFailure('save', save.error)}
        </p>
      ) : null}
      {rejected === undefined ? null : (
        <p className="banner banner-failure" role="alert">
          Not saved: the server found {rejected.length === 1 ? 'a problem' : `${String(rejected.length)} problems`},
          listed below the editor.
        </p>
      )}
      <div className="spec-editor-frame">
        <SpecEditor
          initial={stored}
          problems={problems}
          problemsFor={checkedText}
          label={`Spec of ${fileName}`}
          onChange={setText}
          onSave={() => {
            if (dirty) save.mutate(text);
          }}
          viewRef={view}
        />
      </div>
      <ProblemList problems={problems} checking={checking} onPick={pick} />
      {dialog === 'rename' ? (
        <RenameDialog
          fileName={fileName}
          onClose={() => {
            setDialog(undefined);
          }}
          onRenamed={(name) => {
            leave(links.dagTab(name, 'spec'));
          }}
        />
      ) : null}
      {dialog === 'delete' ? (
        <DeleteDialog
          fileName={fileName}
          onClose={() => {
            setDialog(undefined);
          }}
          onDeleted={() => {
            leave(links.dags());
          }}
        />
      ) : null}
      {blocker.state === 'blocked' ? (
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
      ) : null}
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

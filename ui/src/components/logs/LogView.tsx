/**
 * A log viewer over the contract's log chunks: the tail (followed while the log is live), or a
 * page of it from the start or any line; line numbers; wrapping; a download of the whole log.
 * What is read and from where is the caller's (`read`), so the run log, step logs and sub-run
 * logs share it.
 */
import { useState, type ReactNode } from 'react';
import { Icon } from '../Icon.tsx';
import { logFileName, readWholeLog, saveText, type ReadChunk } from './download.ts';
import { LogLinesView } from './LogLinesView.tsx';
import { HEAD, lastLine, nextWindow, previousWindow, TAIL, type LogLines, type LogWindow } from './paging.ts';
import { useLogLines } from './useLogLines.ts';
import './logs.css';

interface LogViewProps {
  /** What the log is, for the scroll region's name: "stderr of step load". */
  readonly label: string;
  /** The query key prefix of this log; the window is added to it. */
  readonly queryKey: readonly unknown[];
  readonly read: ReadChunk;
  /** The log may still grow (its step or run is running). */
  readonly live: boolean;
  /** Parts of the download's file name: DAG, run id, step, stream. */
  readonly fileParts: readonly string[];
  /** Controls of the caller's, shown first in the toolbar (the stream switch). */
  readonly children?: ReactNode;
}

const count = new Intl.NumberFormat('en');

/** Under the log: which lines are shown of how many, and whether the view follows the end. */
function Status({ view, state }: { readonly view: LogLines | undefined; readonly state: string }): ReactNode {
  if (view === undefined) return null;
  const about = view.estimate ? 'about ' : '';
  return (
    <p className="log-status">
      <span className="log-range">
        {view.total === 0
          ? 'No lines'
          : `Lines ${count.format(view.first)}–${count.format(lastLine(view))} of ${about}${count.format(view.total)}`}
      </span>
      {state === '' ? null : <span className="log-state">{state}</span>}
    </p>
  );
}

function Download({ read, fileParts }: { readonly read: ReadChunk; readonly fileParts: readonly string[] }): ReactNode {
  const [progress, setProgress] = useState<string | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const start = async (): Promise<void> => {
    setProblem(undefined);
    setProgress('0%');
    try {
      const text = await readWholeLog(read, (done, total) => {
        setProgress(total === 0 ? '100%' : `${String(Math.floor((done / total) * 100))}%`);
      });
      saveText(text, logFileName(fileParts));
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    } finally {
      setProgress(undefined);
    }
  };
  return (
    <>
      <button
        type="button"
        className="button button-quiet log-button"
        disabled={progress !== undefined}
        onClick={() => void start()}
        title="Download the whole log as a file"
      >
        <Icon name="download" size={16} />
        <span>{progress === undefined ? 'Download' : `Downloading ${progress}`}</span>
      </button>
      {problem === undefined ? null : (
        <span className="log-problem" role="alert">
          Download failed: {problem}
        </span>
      )}
    </>
  );
}

interface PagingProps {
  readonly view: LogLines | undefined;
  readonly window: LogWindow;
  readonly following: boolean;
  readonly live: boolean;
  readonly go: (window: LogWindow, landing: 'top' | 'bottom') => void;
  readonly follow: (on: boolean) => void;
}

function Paging({ view, window, following, live, go, follow }: PagingProps): ReactNode {
  const before = view === undefined ? undefined : previousWindow(view);
  const after = view === undefined ? undefined : nextWindow(view);
  const atTail = window.kind === 'tail';
  // A live log is followed (a toggle); a finished one only has an end to go to.
  const endLabel = live ? (atTail && following ? 'Following' : 'Follow') : 'End';
  return (
    <div className="log-paging" role="group" aria-label="Pages of the log">
      <button
        type="button"
        className="button button-quiet log-button"
        disabled={view === undefined || view.first <= 1}
        onClick={() => {
          go(HEAD, 'top');
        }}
        title="The first lines of the log"
      >
        <Icon name="first" size={16} />
        <span>Start</span>
      </button>
      <button
        type="button"
        className="button button-quiet log-button"
        disabled={before === undefined}
        onClick={() => {
          if (before !== undefined) go(before, 'bottom');
        }}
        title="The lines before these"
      >
        <Icon name="chevronLeft" size={16} />
        <span>Earlier</span>
      </button>
      <button
        type="button"
        className="button button-quiet log-button"
        disabled={after === undefined}
        onClick={() => {
          if (after !== undefined) go(after, 'top');
        }}
        title="The lines after these"
      >
        <span>Later</span>
        <Icon name="chevronRight" size={16} />
      </button>
      <button
        type="button"
        className="button button-quiet log-button"
        aria-pressed={live ? atTail && following : undefined}
        onClick={() => {
          follow(!(live && atTail && following));
        }}
        title={
          live
            ? atTail && following
              ? 'Stop following the end of the log'
              : 'Go to the end of the log and follow it'
            : 'The last lines of the log'
        }
      >
        <Icon name="last" size={16} />
        <span>{endLabel}</span>
      </button>
    </div>
  );
}

function Body({
  result,
  view,
  ...lines
}: { readonly result: ReturnType<typeof useLogLines>; readonly view: LogLines | undefined } & Omit<
  Parameters<typeof LogLinesView>[0],
  'view'
>): ReactNode {
  if (view === undefined) {
    if (result.isError) {
      return (
        <div className="log-empty" role="alert">
          <p>Could not read the log: {result.error.message}</p>
          <button type="button" className="button" onClick={() => void result.refetch()}>
            Try again
          </button>
        </div>
      );
    }
    return <div className="log-empty skeleton-row" aria-busy="true" aria-label="Loading the log" />;
  }
  if (view.total === 0)
    return (
      <div className="log-empty muted">
        {lines.following ? 'No output yet. New lines appear here as they are written.' : 'This log is empty.'}
      </div>
    );
  return <LogLinesView view={view} {...lines} />;
}

export function LogView({ label, queryKey, read, live, fileParts, children }: LogViewProps): ReactNode {
  const [window, setWindow] = useState<LogWindow>(TAIL);
  const [landing, setLanding] = useState<'top' | 'bottom'>('bottom');
  const [following, setFollowing] = useState(true);
  const [wrap, setWrap] = useState(false);
  const result = useLogLines(queryKey, read, window, live);
  const view = result.data;
  const go = (next: LogWindow, land: 'top' | 'bottom'): void => {
    setWindow(next);
    setLanding(land);
    setFollowing(false);
  };
  const follow = (on: boolean): void => {
    setWindow(TAIL);
    setLanding('bottom');
    setFollowing(on);
  };
  const windowId = window.kind === 'tail' ? 'tail' : `${String(window.offset)}+${String(window.limit ?? '')}`;
  return (
    <div className="log-view">
      <div className="log-toolbar">
        {children}
        <Paging view={view} window={window} following={following} live={live} go={go} follow={follow} />
        <label className="log-toggle">
          <input
            type="checkbox"
            checked={wrap}
            onChange={(event) => {
              setWrap(event.target.checked);
            }}
          />
          <span>Wrap</span>
        </label>
        <Download read={read} fileParts={fileParts} />
      </div>
      <Body
        result={result}
        view={view}
        label={label}
        wrap={wrap}
        following={window.kind === 'tail' && following}
        onAtEnd={(end) => {
          if (window.kind === 'tail' && end !== following) setFollowing(end);
        }}
        landing={landing}
        windowId={windowId}
      />
      <Status
        view={view}
        state={!live ? '' : window.kind === 'tail' && following ? 'Following new lines' : 'Not following'}
      />
      {live && window.kind === 'tail' && !following ? (
        <button
          type="button"
          className="button log-jump"
          onClick={() => {
            follow(true);
          }}
        >
          <Icon name="last" size={16} /> Follow new lines
        </button>
      ) : null}
    </div>
  );
}

/**
 * Pieces the operations pages (dashboard, runs, queues, workers, system, search) share: text
 * typed into a filter that reaches the URL once typing pauses, `/` to focus it, what a failed
 * read says, and the loading and failure states of a panel.
 */
import { useEffect, useEffectEvent, useState, type ReactNode, type RefObject } from 'react';
import { ApiFailure } from '../../api/client.ts';

const TYPING_PAUSE_MS = 250;

/** The box's text: the user's while they type, the URL's when it changes otherwise (Back). */
export function useTypedText(committed: string, commit: (text: string) => void): [string, (text: string) => void] {
  const [text, setText] = useState(committed);
  const [seen, setSeen] = useState(committed);
  if (committed !== seen) {
    setSeen(committed);
    setText(committed);
  }
  const onPause = useEffectEvent(commit);
  useEffect(() => {
    if (text === committed) return undefined;
    const timer = setTimeout(() => {
      onPause(text);
    }, TYPING_PAUSE_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [text, committed]);
  return [text, setText];
}

/** `/` anywhere on the page (outside a field) focuses the input, as on the DAG list. */
export function useSlashFocus(input: RefObject<HTMLInputElement | null>): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      const target = event.target as HTMLElement | null;
      const typing = target !== null && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
      if (event.key !== '/' || typing || event.ctrlKey || event.metaKey || event.altKey) return;
      event.preventDefault();
      input.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
    };
  }, [input]);
}

/** A failed read in words; a 403 names what the signed-in user may not do. */
export function problem(error: Error, what: string): string {
  if (error instanceof ApiFailure && error.status === 403) return `You are signed in, but may not read ${what}: ${error.message}`;
  return error.message;
}

interface Loadable {
  readonly isError: boolean;
  readonly error: Error | null;
  readonly data: unknown;
  readonly refetch: () => Promise<unknown>;
}

/**
 * A query's state around what it shows: the content once there is data (with a warning when a
 * refresh failed, since the data shown is then older), a failure with a retry, or a skeleton.
 */
export function QueryState({ query, what, rows = 3, children }: { readonly query: Loadable; readonly what: string; readonly rows?: number; readonly children: () => ReactNode }): ReactNode {
  if (query.data !== undefined) {
    return (
      <>
        {query.isError && query.error !== null ? (
          <p className="banner banner-warning" role="status">
            Could not refresh {what}: {problem(query.error, what)}
          </p>
        ) : null}
        {children()}
      </>
    );
  }
  if (query.isError && query.error !== null) {
    return (
      <div className="card empty" role="alert">
        <p>
          Could not load {what}: {problem(query.error, what)}
        </p>
        <button type="button" className="button" onClick={() => void query.refetch()}>
          Try again
        </button>
      </div>
    );
  }
  return (
    <div className="card skeleton" aria-busy="true" aria-label={`Loading ${what}`}>
      {Array.from({ length: rows }, (_, row) => (
        <div key={row} className="skeleton-row" />
      ))}
    </div>
  );
}

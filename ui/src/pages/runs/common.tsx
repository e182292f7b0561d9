/**
 * Pieces the operations pages (dashboard, runs, queues, workers, system, search) share: what a
 * failed read says, and the loading and failure states of a panel. The filter hooks are in
 * components/filter-hooks.ts, shared with the DAG list.
 */
import type { ReactNode } from 'react';
import { ApiFailure } from '../../api/client.ts';

/** A failed read in words; a 403 names what the signed-in user may not do. */
export function problem(error: Error, what: string): string {
  if (error instanceof ApiFailure && error.status === 403)
    return `You are signed in, but may not read ${what}: ${error.message}`;
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
export function QueryState({
  query,
  what,
  rows = 3,
  children,
}: {
  readonly query: Loadable;
  readonly what: string;
  readonly rows?: number;
  readonly children: () => ReactNode;
}): ReactNode {
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

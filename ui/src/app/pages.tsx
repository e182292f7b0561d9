/**
 * Pages that are not built yet, pages that do not exist, and what a page that failed to render
 * shows. A placeholder says so plainly and names the API route that has the data today.
 */
import type { ReactNode } from 'react';
import { Link, useRouteError } from 'react-router';
import type { Section } from './nav.ts';

function NotBuilt({
  title,
  summary,
  api,
}: {
  readonly title: string;
  readonly summary: string;
  readonly api: string;
}): ReactNode {
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>
            {title} <span className="badge badge-soon">Not built yet</span>
          </h1>
          <p className="page-summary">{summary}</p>
        </div>
      </header>
      <div className="card empty">
        <p>This page is not built yet. It comes with a later version of the web UI.</p>
        <p className="muted">
          Meanwhile the API has the data: <code>{api}</code> (see the{' '}
          <a href="/api/v2/openapi.json">OpenAPI document</a>).
        </p>
      </div>
    </div>
  );
}

export function SectionPlaceholder({ section }: { readonly section: Section }): ReactNode {
  return <NotBuilt title={section.label} summary={section.summary} api={section.api} />;
}

export function NotFound(): ReactNode {
  return (
    <div className="page">
      <header className="page-header">
        <h1>Page not found</h1>
      </header>
      <div className="card empty">
        <p>There is no page at this address.</p>
        <p>
          <Link to="/dags">Go to the DAGs</Link>
        </p>
      </div>
    </div>
  );
}

export function RouteError(): ReactNode {
  const error = useRouteError();
  return (
    <div className="page">
      <div className="card empty" role="alert">
        <h1>Something went wrong</h1>
        <p className="muted">{error instanceof Error ? error.message : String(error)}</p>
        <p>
          <a href="/">Reload the app</a>
        </p>
      </div>
    </div>
  );
}

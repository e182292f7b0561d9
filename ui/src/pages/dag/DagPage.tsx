/**
 * A DAG's page at /dags/:fileName[/spec|/history]: its name, description, tags and schedule,
 * the run controls, and three tabs, each a URL of its own (links.dagTab): the step graph with
 * the latest run's statuses, the spec editor, and the run history grid.
 */
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { Link, NavLink, useParams } from 'react-router';
import { ApiFailure } from '../../api/client.ts';
import { useApi } from '../../api/context.tsx';
import { dagDetailsQuery, type DagDetails } from '../../api/dag-queries.ts';
import { NotFound } from '../../app/pages.tsx';
import { Icon } from '../../components/Icon.tsx';
import { LiveStatus } from '../../components/LiveStatus.tsx';
import { StartButton, StartedNotice, StopAllButton, SuspendSwitch } from '../../components/start/DagControls.tsx';
import type { StartedRun } from '../../components/start/StartDialog.tsx';
import { links } from '../../lib/links.ts';
import { GraphTab } from './GraphTab.tsx';
import { HistoryTab } from './HistoryTab.tsx';
import './dag.css';

const SpecTab = lazy(() => import('./SpecTab.tsx'));

type Tab = 'graph' | 'spec' | 'history';

function tabOf(segment: string | undefined): Tab | undefined {
  if (segment === undefined) return 'graph';
  return segment === 'spec' || segment === 'history' ? segment : undefined;
}

function Tabs({ fileName }: { readonly fileName: string }): ReactNode {
  return (
    <nav className="tabs" aria-label="Views of the DAG">
      <NavLink to={links.dag(fileName)} end className="tab">
        Graph
      </NavLink>
      <NavLink to={links.dagTab(fileName, 'spec')} className="tab">
        Spec
      </NavLink>
      <NavLink to={links.dagTab(fileName, 'history')} className="tab">
        History
      </NavLink>
    </nav>
  );
}

function Header({
  fileName,
  details,
  onStarted,
}: {
  readonly fileName: string;
  readonly details: DagDetails | undefined;
  readonly onStarted: (run: StartedRun) => void;
}): ReactNode {
  const dag = details?.dag;
  const running = details?.latestDAGRun.status === 1;
  return (
    <header className="page-header dag-header">
      <div className="dag-heading">
        <nav aria-label="Breadcrumb" className="crumbs">
          <Link to={links.dags()}>DAGs</Link>
          <span aria-hidden="true">/</span>
          {dag === undefined || dag.group === '' ? null : <span>{dag.group}</span>}
        </nav>
        <h1>
          <span className="dag-name">{dag?.name ?? fileName}</span>
          {details?.suspended === true ? (
            <span className="badge badge-muted">
              <Icon name="pause" size={12} /> Suspended
            </span>
          ) : null}
        </h1>
        {dag === undefined || dag.description === '' ? null : <p className="page-summary">{dag.description}</p>}
        {dag === undefined ? null : (
          <ul className="dag-facts">
            {dag.name === fileName ? null : (
              <li className="mono" title="File name">
                {fileName}
              </li>
            )}
            {dag.schedule.map((s) => (
              <li key={s.expression} title="Schedule">
                <Icon name="clock" size={13} /> <code>{s.expression}</code>
              </li>
            ))}
            {dag.tags.map((tag) => (
              <li key={tag}>
                <Link
                  to={`${links.dags()}?tag=${encodeURIComponent(tag)}`}
                  className="tag"
                  title={`DAGs tagged ${tag}`}
                >
                  {tag}
                </Link>
              </li>
            ))}
          </ul>
        )}
      </div>
      {dag === undefined || details === undefined ? null : (
        <div className="dag-actions">
          <SuspendSwitch fileName={fileName} dag={dag} suspended={details.suspended} />
          <StopAllButton fileName={fileName} dag={dag} running={running} />
          <StartButton fileName={fileName} dag={dag} onStarted={onStarted} />
        </div>
      )}
    </header>
  );
}

function Loading({ label }: { readonly label: string }): ReactNode {
  return (
    <div className="card skeleton" aria-busy="true" aria-label={label}>
      <div className="skeleton-row" />
      <div className="skeleton-row" />
      <div className="skeleton-row" />
    </div>
  );
}

function Body({
  tab,
  fileName,
  details,
}: {
  readonly tab: Tab;
  readonly fileName: string;
  readonly details: DagDetails | undefined;
}): ReactNode {
  // The spec loads on its own: it does not need the details, and a DAG whose file does not
  // load still has a spec to fix.
  if (tab === 'spec') {
    return (
      <Suspense fallback={<Loading label="Loading the editor" />}>
        <SpecTab fileName={fileName} />
      </Suspense>
    );
  }
  if (details === undefined) return <Loading label="Loading the DAG" />;
  return tab === 'graph' ? (
    <GraphTab fileName={fileName} details={details} />
  ) : (
    <HistoryTab fileName={fileName} details={details} />
  );
}

function Missing({ fileName }: { readonly fileName: string }): ReactNode {
  return (
    <div className="page">
      <div className="card empty" role="alert">
        <h1>No DAG named {fileName}</h1>
        <p className="muted">It may have been renamed or deleted.</p>
        <Link to={links.dags()}>Go to the DAGs</Link>
      </div>
    </div>
  );
}

function DagView({ fileName, tab }: { readonly fileName: string; readonly tab: Tab }): ReactNode {
  const client = useApi();
  const details = useQuery(dagDetailsQuery(client, fileName));
  const [started, setStarted] = useState<StartedRun>();
  if (details.error instanceof ApiFailure && details.error.status === 404) return <Missing fileName={fileName} />;
  const problems = details.data?.errors ?? [];
  return (
    <div className="page dag-page">
      <Header fileName={fileName} details={details.data} onStarted={setStarted} />
      {started === undefined ? null : (
        <StartedNotice
          run={started}
          onDismiss={() => {
            setStarted(undefined);
          }}
        />
      )}
      {details.isError && details.data === undefined ? (
        <p className="banner banner-failure" role="alert">
          Could not load the DAG: {details.error.message}
        </p>
      ) : null}
      {problems.length === 0 ? null : (
        <div className="banner banner-failure" role="alert">
          <p>This DAG does not load: fix its spec.</p>
          <ul>
            {problems.map((problem) => (
              <li key={problem} className="mono">
                {problem}
              </li>
            ))}
          </ul>
        </div>
      )}
      <div className="tabs-row">
        <Tabs fileName={fileName} />
        <LiveStatus updatedAt={details.dataUpdatedAt} failed={details.isError} />
      </div>
      <Body tab={tab} fileName={fileName} details={details.data} />
    </div>
  );
}

export function DagPage(): ReactNode {
  const { fileName = '', tab: segment } = useParams();
  const tab = tabOf(segment);
  if (tab === undefined) return <NotFound />;
  // Keyed by file: another DAG starts with its own state (selection, notices).
  return <DagView key={fileName} fileName={fileName} tab={tab} />;
}

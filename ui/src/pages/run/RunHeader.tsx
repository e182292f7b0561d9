/**
 * The top of a run page: breadcrumbs (the DAG, and for a sub-run its root and parent), the DAG
 * name with the run's status, when it was queued, started and ended, its params, and the run's
 * actions and log.
 */
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Icon } from '../../components/Icon.tsx';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { RelativeTime, useNow } from '../../components/Time.tsx';
import { links } from '../../lib/links.ts';
import { absolute, instant } from '../../lib/time.ts';
import { elapsed } from '../../components/timeline/geometry.ts';
import { breadcrumbs, paramList, type Crumb } from './address.ts';
import { startedByText } from './origin.ts';
import type { RunDetails, RunOrigin } from './queries.ts';

export function Breadcrumbs({
  crumbs,
  last,
}: {
  readonly crumbs: readonly Crumb[];
  readonly last?: ReactNode;
}): ReactNode {
  return (
    <nav className="breadcrumbs" aria-label="Breadcrumbs">
      <ol>
        <li>
          <Link to={links.dags()}>DAGs</Link>
        </li>
        {crumbs.map((crumb, index) => (
          <li key={`${crumb.kind}-${String(index)}`} className={`crumb-${crumb.kind}`}>
            {crumb.kind === 'sub-run' ? <span className="crumb-kind">sub-run </span> : null}
            {crumb.href === undefined ? (
              <span
                aria-current={index === crumbs.length - 1 && last === undefined ? 'page' : undefined}
                className={crumb.kind === 'gap' ? 'muted' : 'mono'}
                title={crumb.kind === 'gap' ? 'Runs in between: see the parent run' : undefined}
              >
                {crumb.label}
              </span>
            ) : (
              <Link to={crumb.href} className={crumb.kind === 'dag' ? undefined : 'mono'}>
                {crumb.label}
              </Link>
            )}
          </li>
        ))}
        {last === undefined ? null : <li aria-current="page">{last}</li>}
      </ol>
    </nav>
  );
}

function When({ label, at }: { readonly label: string; readonly at: string }): ReactNode {
  const ms = instant(at);
  if (ms === undefined) return null;
  return (
    <div>
      <dt>{label}</dt>
      <dd>
        <RelativeTime at={ms} />
        <span className="run-absolute">{absolute(ms)}</span>
      </dd>
    </div>
  );
}

function Origin({ origin }: { readonly origin: RunOrigin | undefined }): ReactNode {
  if (origin === undefined) return null;
  const { startedBy, changedBy } = startedByText(origin);
  return (
    <>
      {startedBy === undefined ? null : (
        <div className="run-started-by">
          <dt>Started by</dt>
          <dd>{startedBy}</dd>
        </div>
      )}
      {changedBy === undefined ? null : (
        <div className="run-changed-by">
          <dt>Last changed by</dt>
          <dd>{changedBy}</dd>
        </div>
      )}
    </>
  );
}

function Facts({ run, origin }: { readonly run: RunDetails; readonly origin: RunOrigin | undefined }): ReactNode {
  const now = useNow();
  const started = instant(run.startedAt);
  const finished = instant(run.finishedAt);
  const params = paramList(run.params);
  return (
    <dl className="run-facts">
      <div>
        <dt>Run id</dt>
        <dd className="mono">{run.dagRunId}</dd>
      </div>
      <Origin origin={origin} />
      <When label="Queued" at={run.queuedAt} />
      <When label="Started" at={run.startedAt} />
      <When label="Finished" at={run.finishedAt} />
      {started === undefined ? null : (
        <div>
          <dt>Duration</dt>
          <dd>
            {elapsed((finished ?? Math.max(now, started)) - started)}
            {finished === undefined ? <span className="run-absolute">so far</span> : null}
          </dd>
        </div>
      )}
      {params.length === 0 ? null : (
        <div className="run-params">
          <dt>Params</dt>
          <dd>
            <ul>
              {params.map((p, index) => (
                <li key={`${String(index)}-${p}`}>
                  <code>{p}</code>
                </li>
              ))}
            </ul>
          </dd>
        </div>
      )}
    </dl>
  );
}

export function RunHeader({
  run,
  origin,
  runPage,
  actions,
  live,
}: {
  readonly run: RunDetails;
  readonly origin?: RunOrigin | undefined;
  readonly runPage: string;
  readonly actions: ReactNode;
  readonly live: ReactNode;
}): ReactNode {
  return (
    <header className="run-header">
      <Breadcrumbs crumbs={breadcrumbs(run)} />
      <div className="run-title">
        <h1>
          <Link to={links.dag(run.name)} className="run-dag">
            {run.name}
          </Link>
          <StatusBadge label={run.statusLabel} status={run.status} />
        </h1>
        <div className="run-buttons">
          {actions}
          <Link to={links.runLog(runPage)} className="button">
            <Icon name="log" size={16} /> Run log
          </Link>
        </div>
      </div>
      <Facts run={run} origin={origin} />
      {live}
    </header>
  );
}

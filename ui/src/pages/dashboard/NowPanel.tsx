/**
 * What runs now and what waits: runs with status running and queued, of any age (a run that
 * started yesterday and still runs is running now), a few of each with links to all. Queued
 * runs are listed longest-waiting first: the next to run.
 */
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { RelativeTime, useNow } from '../../components/Time.tsx';
import { links } from '../../lib/links.ts';
import { duration, instant } from '../../lib/time.ts';
import { QueryState } from '../runs/common.tsx';
import type { RunSummary } from '../runs/queries.ts';
import { runsHref } from '../runs/run-params.ts';
import { inQueueOrder } from './queue-order.ts';

const SHOWN = 6;

function RunItem({ run, waiting }: { readonly run: RunSummary; readonly waiting: boolean }): ReactNode {
  const now = useNow();
  const since = waiting ? instant(run.queuedAt) : instant(run.startedAt);
  return (
    <li className="run-item">
      <Link to={links.run(run.name, run.dagRunId)} className="run-link">
        <span className="run-dag">{run.name}</span>
        <span className="run-id mono">{run.dagRunId}</span>
      </Link>
      <span className="run-item-time">
        {since === undefined ? null : waiting ? (
          <>
            queued <RelativeTime at={since} />
          </>
        ) : (
          <>for {duration(now - since)}</>
        )}
      </span>
    </li>
  );
}

function RunGroup({
  title,
  query,
  waiting,
  all,
  allLabel,
  none,
}: {
  readonly title: string;
  readonly query: UseQueryResult<{ dagRuns: RunSummary[] }>;
  readonly waiting: boolean;
  readonly all: string;
  readonly allLabel: string;
  readonly none: string;
}): ReactNode {
  const listed = query.data?.dagRuns ?? [];
  // Waiting runs are shown next-to-run first; running ones as the API lists them, newest first.
  const runs = waiting ? inQueueOrder(listed) : listed;
  return (
    <div className="now-group">
      <h3>
        {title} {query.data === undefined ? null : <span className="count-badge">{runs.length}</span>}
      </h3>
      <QueryState query={query} what={title.toLowerCase()} rows={2}>
        {() =>
          runs.length === 0 ? (
            <p className="muted">{none}</p>
          ) : (
            <>
              <ul className="run-items">
                {runs.slice(0, SHOWN).map((run) => (
                  <RunItem key={`${run.name}/${run.dagRunId}`} run={run} waiting={waiting} />
                ))}
              </ul>
              <Link to={all} className="more-link">
                {runs.length > SHOWN ? `See all ${String(runs.length)}` : `See ${allLabel}`}
              </Link>
            </>
          )
        }
      </QueryState>
    </div>
  );
}

export function NowPanel({
  running,
  queued,
}: {
  readonly running: UseQueryResult<{ dagRuns: RunSummary[] }>;
  readonly queued: UseQueryResult<{ dagRuns: RunSummary[] }>;
}): ReactNode {
  return (
    <section className="card panel" aria-labelledby="now-title">
      <div className="panel-head">
        <h2 id="now-title">Now</h2>
      </div>
      <div className="now-groups">
        <RunGroup
          title="Running"
          query={running}
          waiting={false}
          all={runsHref({ status: 1, period: 'all' })}
          allLabel="all running"
          none="Nothing is running."
        />
        <RunGroup
          title="Queued"
          query={queued}
          waiting
          all={links.queues()}
          allLabel="the queues"
          none="No run is waiting."
        />
      </div>
    </section>
  );
}

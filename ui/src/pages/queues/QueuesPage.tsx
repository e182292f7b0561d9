/**
 * Queues (GET /queues, polled): each with its running runs and, in order, the runs waiting in
 * it, each a link to its run page; a waiting run can be dequeued. Custom queues (DAGQueue
 * resources) are always listed; a DAG's own queue while it holds a run.
 */
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { useApi } from '../../api/context.tsx';
import { LiveStatus } from '../../components/LiveStatus.tsx';
import { RelativeTime } from '../../components/Time.tsx';
import { links } from '../../lib/links.ts';
import { instant } from '../../lib/time.ts';
import { QueryState } from '../runs/common.tsx';
import { runsHref } from '../runs/run-params.ts';
import { DequeueButton } from './DequeueButton.tsx';
import { queuesQuery, type Queue, type QueuedRun } from './queries.ts';
import '../runs/panels.css';
import './queues.css';

function RunLink({ run }: { readonly run: QueuedRun }): ReactNode {
  return (
    <Link to={links.run(run.name, run.dagRunId)} className="run-link">
      <span className="run-dag">{run.name}</span>
      <span className="run-id mono">{run.dagRunId}</span>
    </Link>
  );
}

function Capacity({ queue }: { readonly queue: Queue }): ReactNode {
  const { running, queued } = queue.summary;
  const max = queue.maxConcurrency;
  return (
    <div className="capacity">
      <p>
        <strong>{running}</strong>
        {max === undefined ? ' running' : ` of ${String(max)} running`} · <strong>{queued}</strong> queued
      </p>
      {max === undefined || max <= 0 ? null : (
        <meter
          className="capacity-meter"
          min={0}
          max={max}
          value={Math.min(running, max)}
          aria-label={`${queue.name}: ${String(running)} of ${String(max)} slots in use`}
        />
      )}
    </div>
  );
}

function QueueCard({ queue }: { readonly queue: Queue }): ReactNode {
  const titleId = `queue-${queue.name}`;
  return (
    <section className="card panel queue" aria-labelledby={titleId}>
      <div className="panel-head">
        <div className="queue-title">
          <h2 id={titleId}>{queue.name}</h2>
          <span className="badge badge-muted">{queue.type === 'custom' ? 'Queue' : 'DAG queue'}</span>
        </div>
        <Capacity queue={queue} />
      </div>
      <div className="queue-lists">
        <div>
          <h3>Running</h3>
          {queue.runningDAGRuns.length === 0 ? (
            <p className="muted panel-empty">Nothing runs from this queue.</p>
          ) : (
            <ul className="run-items">
              {queue.runningDAGRuns.map((run) => {
                const started = instant(run.startedAt);
                return (
                  <li key={`${run.name}/${run.dagRunId}`} className="run-item">
                    <RunLink run={run} />
                    <span className="run-item-time">
                      {started === undefined ? (
                        'starting'
                      ) : (
                        <>
                          started <RelativeTime at={started} />
                        </>
                      )}
                    </span>
                  </li>
                );
              })}
            </ul>
          )}
        </div>
        <div>
          <h3>Queued, next first</h3>
          {queue.queuedDAGRuns.length === 0 ? (
            <p className="muted panel-empty">No run waits.</p>
          ) : (
            <ol className="run-items queued-runs">
              {queue.queuedDAGRuns.map((run) => (
                <li key={`${run.name}/${run.dagRunId}`} className="run-item">
                  <RunLink run={run} />
                  <DequeueButton run={run} />
                </li>
              ))}
            </ol>
          )}
        </div>
      </div>
      {queue.type === 'custom' ? null : (
        <Link to={runsHref({ name: queue.name, period: 'all' })} className="more-link">
          All runs of {queue.name}
        </Link>
      )}
    </section>
  );
}

export function QueuesPage(): ReactNode {
  const client = useApi();
  const list = useQuery(queuesQuery(client));
  const queues = list.data?.queues ?? [];
  const running = queues.reduce((n, q) => n + q.summary.running, 0);
  const queued = queues.reduce((n, q) => n + q.summary.queued, 0);
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Queues</h1>
          <p className="page-summary">Queues with their running runs and the runs waiting in them.</p>
        </div>
        <LiveStatus updatedAt={list.dataUpdatedAt} failed={list.isError} />
      </header>
      <QueryState query={list} what="the queues" rows={4}>
        {() =>
          queues.length === 0 ? (
            <div className="card empty">
              <p>No queue holds a run now.</p>
              <p className="muted">
                A run waits in its DAG’s queue (or the queue its DAG names) while that queue or the DAG’s maxActiveRuns
                is full.
              </p>
            </div>
          ) : (
            <>
              <p className="list-count" role="status">
                {queues.length} {queues.length === 1 ? 'queue' : 'queues'} · {running} running · {queued} queued
              </p>
              <div className="queues">
                {queues.map((queue) => (
                  <QueueCard key={`${queue.type}/${queue.name}`} queue={queue} />
                ))}
              </div>
            </>
          )
        }
      </QueryState>
    </div>
  );
}

/**
 * Workers: the Kubernetes nodes that run steps (GET /workers, polled), each with its health by
 * heartbeat, its labels (the ones people set first, the cluster's own folded away) and the
 * runs with a step on it now, each a link to its run page (a sub-run's under its root).
 */
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { ApiFailure } from '../../api/client.ts';
import { useApi } from '../../api/context.tsx';
import { LiveStatus } from '../../components/LiveStatus.tsx';
import { RelativeTime } from '../../components/Time.tsx';
import { links } from '../../lib/links.ts';
import { instant } from '../../lib/time.ts';
import { QueryState } from '../runs/common.tsx';
import { healthLook, orderedLabels } from './health.ts';
import { workersQuery, type RunningTask, type Worker } from './queries.ts';
import '../runs/panels.css';
import './workers.css';

function taskPage(task: RunningTask): string {
  return task.parentDagRunName === ''
    ? links.run(task.dagName, task.dagRunId)
    : links.subRun(task.rootDagRunName, task.rootDagRunId, task.dagRunId);
}

function Labels({ labels }: { readonly labels: Readonly<Record<string, string>> }): ReactNode {
  const { own, system } = orderedLabels(labels);
  const list = (entries: readonly [string, string][]): ReactNode => (
    <ul className="labels">
      {entries.map(([key, value]) => (
        <li key={key} className="label mono">
          {key}
          {value === '' ? null : <span className="label-value">={value}</span>}
        </li>
      ))}
    </ul>
  );
  return (
    <div className="worker-labels">
      {own.length === 0 ? <p className="muted">No labels of its own.</p> : list(own)}
      {system.length === 0 ? null : (
        <details>
          <summary>
            {system.length} cluster {system.length === 1 ? 'label' : 'labels'}
          </summary>
          {list(system)}
        </details>
      )}
    </div>
  );
}

function WorkerCard({ worker }: { readonly worker: Worker }): ReactNode {
  const look = healthLook(worker.health_status);
  const heartbeat = instant(worker.last_heartbeat);
  const titleId = `worker-${worker.id}`;
  return (
    <section className="card panel worker" aria-labelledby={titleId}>
      <div className="panel-head">
        <h2 id={titleId} className="mono">
          {worker.id}
        </h2>
        <span className={`status status-${look.tone}`}>
          <span className="status-dot" aria-hidden="true" />
          {look.text}
        </span>
      </div>
      <p className="worker-heartbeat">
        {heartbeat === undefined ? (
          'No heartbeat yet'
        ) : (
          <>
            Heartbeat <RelativeTime at={heartbeat} />
          </>
        )}
      </p>
      <Labels labels={worker.labels} />
      <div>
        <h3>
          Running <span className="count-badge">{worker.running_tasks.length}</span>
        </h3>
        {worker.running_tasks.length === 0 ? (
          <p className="muted panel-empty">No step runs here now.</p>
        ) : (
          <ul className="run-items">
            {worker.running_tasks.map((task) => {
              const started = instant(task.startedAt);
              return (
                <li key={`${task.rootDagRunId}/${task.dagRunId}`} className="run-item">
                  <Link to={taskPage(task)} className="run-link">
                    <span className="run-dag">{task.dagName}</span>
                    <span className="run-id mono">{task.dagRunId}</span>
                  </Link>
                  <span className="run-item-time">
                    {task.parentDagRunName === '' ? null : (
                      <span className="sub-of">sub-run of {task.parentDagRunName} · </span>
                    )}
                    {started === undefined ? null : (
                      <>
                        since <RelativeTime at={started} />
                      </>
                    )}
                  </span>
                </li>
              );
            })}
          </ul>
        )}
      </div>
    </section>
  );
}

export function WorkersPage(): ReactNode {
  const client = useApi();
  const list = useQuery(workersQuery(client));
  const workers = list.data?.workers ?? [];
  const healthy = workers.filter((w) => w.health_status === 'WORKER_HEALTH_STATUS_HEALTHY').length;
  const starting = list.error instanceof ApiFailure && list.error.status === 503;
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Workers</h1>
          <p className="page-summary">
            The cluster’s nodes that run steps: their health, labels and what runs on them.
          </p>
        </div>
        <LiveStatus updatedAt={list.dataUpdatedAt} failed={list.isError} />
      </header>
      {starting && list.data === undefined ? (
        <div className="card empty" role="status">
          <p>The API server is still reading the cluster’s nodes. This page fills in when it has them.</p>
        </div>
      ) : (
        <QueryState query={list} what="the workers" rows={3}>
          {() => (
            <>
              <p className="list-count" role="status">
                {workers.length} {workers.length === 1 ? 'node' : 'nodes'} · {healthy} healthy
              </p>
              <div className="workers">
                {workers.map((worker) => (
                  <WorkerCard key={worker.id} worker={worker} />
                ))}
              </div>
            </>
          )}
        </QueryState>
      )}
    </div>
  );
}

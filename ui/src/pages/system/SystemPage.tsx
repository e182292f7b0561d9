/**
 * System: the API server's health (version, uptime, its time), the scheduler leader (the
 * operator holding the Lease), a few numbers from the metrics, and where the metrics and the
 * OpenAPI document are. Three reads, polled.
 */
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useApi } from '../../api/context.tsx';
import { LiveStatus } from '../../components/LiveStatus.tsx';
import { RelativeTime } from '../../components/Time.tsx';
import { statusLook } from '../../lib/status.ts';
import { absolute, duration, instant } from '../../lib/time.ts';
import { QueryState } from '../runs/common.tsx';
import { sampleValue, type Sample } from './metrics.ts';
import { healthQuery, metricsQuery, schedulerQuery, type Health } from './queries.ts';
import '../runs/panels.css';
import './system.css';

const count = new Intl.NumberFormat('en');

function Field({ label, children }: { readonly label: string; readonly children: ReactNode }): ReactNode {
  return (
    <div className="field-row">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function HealthPanel({ health }: { readonly health: Health }): ReactNode {
  const healthy = health.status === 'healthy';
  const at = instant(health.timestamp);
  return (
    <>
      <p className={`health-status status status-${healthy ? 'success' : 'failure'}`}>
        <span className="status-dot" aria-hidden="true" />
        {healthy ? 'Healthy' : 'Unhealthy'}
      </p>
      {health.error === undefined || health.error === '' ? null : (
        <p className="banner health-error" role="alert">
          {health.error}
        </p>
      )}
      <dl className="fields">
        <Field label="Version">
          <span className="mono">{health.version}</span>
        </Field>
        <Field label="Up for">{duration(health.uptime * 1000)}</Field>
        <Field label="Server time">{at === undefined ? health.timestamp : absolute(at)}</Field>
      </dl>
    </>
  );
}

type Leaders = {
  readonly schedulers: readonly {
    readonly instanceId: string;
    readonly host: string;
    readonly status: string;
    readonly startedAt: string;
  }[];
};

function LeaderPanel({ leaders }: { readonly leaders: Leaders }): ReactNode {
  const leader = leaders.schedulers[0];
  if (leader === undefined)
    return (
      <p className="banner">
        No operator holds the leader Lease: no run is scheduled, queued or started until one does.
      </p>
    );
  const since = instant(leader.startedAt);
  const active = leader.status === 'active';
  return (
    <dl className="fields">
      <Field label="Host">
        <span className="mono">{leader.host}</span>
      </Field>
      <Field label="Instance">
        <span className="mono">{leader.instanceId}</span>
      </Field>
      <Field label="Lease">
        <span className={`status status-${active ? 'success' : 'warning'}`}>
          <span className="status-dot" aria-hidden="true" />
          {active ? 'Current' : 'Expired'}
        </span>
      </Field>
      {since === undefined ? null : (
        <Field label="Leader since">
          <RelativeTime at={since} />
        </Field>
      )}
    </dl>
  );
}

const FINISHED = ['succeeded', 'partially_succeeded', 'failed', 'canceled'] as const;

function Numbers({ samples }: { readonly samples: readonly Sample[] }): ReactNode {
  const value = (name: string, labels?: Record<string, string>): string => {
    const v = sampleValue(samples, name, labels);
    return v === undefined ? '—' : count.format(v);
  };
  const info = samples.find((s) => s.name === 'kubedag_info')?.labels;
  return (
    <dl className="fields">
      <Field label="DAGs">{value('kubedag_dags_total')}</Field>
      <Field label="Runs running">{value('kubedag_dag_runs_currently_running')}</Field>
      <Field label="Runs queued">{value('kubedag_dag_runs_queued_total')}</Field>
      {/* A status no retained run ended with has no sample at all: that is none, not unknown. */}
      {FINISHED.map((status) => (
        <Field key={status} label={`Runs ${statusLook(status).text.toLowerCase()}`}>
          {count.format(sampleValue(samples, 'kubedag_dag_runs_total', { status }) ?? 0)}
        </Field>
      ))}
      {info?.node_version === undefined ? null : (
        <Field label="Node.js">
          <span className="mono">{info.node_version}</span>
        </Field>
      )}
      {info?.build_date === undefined || info.build_date === '' ? null : <Field label="Built">{info.build_date}</Field>}
    </dl>
  );
}

export function SystemPage(): ReactNode {
  const client = useApi();
  const health = useQuery(healthQuery(client));
  const leaders = useQuery(schedulerQuery(client));
  const metrics = useQuery(metricsQuery(client));
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>System</h1>
          <p className="page-summary">The API server’s health, the scheduler leader, and where the metrics are.</p>
        </div>
        <LiveStatus updatedAt={health.dataUpdatedAt} failed={health.isError} />
      </header>
      <div className="system-grid">
        <section className="card panel" aria-labelledby="health-title">
          <h2 id="health-title">Health</h2>
          <QueryState query={health} what="the health" rows={2}>
            {() => (health.data === undefined ? null : <HealthPanel health={health.data} />)}
          </QueryState>
        </section>
        <section className="card panel" aria-labelledby="leader-title">
          <h2 id="leader-title">Scheduler leader</h2>
          <QueryState query={leaders} what="the scheduler leader" rows={2}>
            {() => (leaders.data === undefined ? null : <LeaderPanel leaders={leaders.data} />)}
          </QueryState>
        </section>
        <section className="card panel" aria-labelledby="numbers-title">
          <h2 id="numbers-title">In numbers</h2>
          <p className="muted">Finished runs are those in retained history.</p>
          <QueryState query={metrics} what="the metrics" rows={3}>
            {() => (metrics.data === undefined ? null : <Numbers samples={metrics.data} />)}
          </QueryState>
        </section>
        <section className="card panel" aria-labelledby="links-title">
          <h2 id="links-title">For tools</h2>
          <ul className="tool-links">
            <li>
              <a href="/api/v2/metrics">Metrics</a>
              <span className="muted"> · Prometheus text format, to scrape</span>
            </li>
            <li>
              <a href="/api/v2/openapi.json">OpenAPI document</a>
              <span className="muted"> · every route of the API, its parameters and answers</span>
            </li>
            <li>
              <a href="/api/v2/health">Health</a>
              <span className="muted"> · 200 when healthy, 503 when not; for probes</span>
            </li>
          </ul>
        </section>
      </div>
    </div>
  );
}

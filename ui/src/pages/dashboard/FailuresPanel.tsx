/**
 * The period's latest failed runs, each one click from the failed step's stderr. The step is
 * read from the run's details, once per run (a failed run does not change until retried).
 */
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { useApi } from '../../api/context.tsx';
import { Icon } from '../../components/Icon.tsx';
import { RelativeTime } from '../../components/Time.tsx';
import { links } from '../../lib/links.ts';
import { instant } from '../../lib/time.ts';
import type { Period } from '../runs/period.ts';
import { runDetailsQuery, type RunSummary } from '../runs/queries.ts';
import { runsHref } from '../runs/run-params.ts';
import { failedStep, failureHref } from './failures.ts';

const SHOWN = 6;

function Failure({ run }: { readonly run: RunSummary }): ReactNode {
  const client = useApi();
  const details = useQuery(runDetailsQuery(client, run.name, run.dagRunId));
  const failed = details.data === undefined ? undefined : failedStep(details.data);
  const ended = instant(run.finishedAt) ?? instant(run.startedAt);
  return (
    <li className="failure">
      <div className="failure-head">
        <Link to={links.run(run.name, run.dagRunId)} className="run-link">
          <span className="run-dag">{run.name}</span>
          <span className="run-id mono">{run.dagRunId}</span>
        </Link>
        {ended === undefined ? null : <RelativeTime at={ended} />}
      </div>
      {failed === undefined ? null : (
        <>
          <Link to={failureHref(run, failed)} className="failure-log">
            <Icon name="alert" size={14} />
            {/* One flex item: the words are read as one name, "Step load: stderr". */}
            <span>
              Step <span className="mono">{failed.step}</span>: stderr
            </span>
          </Link>
          {failed.error === '' ? null : <p className="failure-error mono">{failed.error}</p>}
        </>
      )}
    </li>
  );
}

export function FailuresPanel({
  runs,
  period,
}: {
  readonly runs: readonly RunSummary[] | undefined;
  readonly period: Period;
}): ReactNode {
  const failures = (runs ?? []).filter((run) => run.status === 2);
  return (
    <section className="card panel" aria-labelledby="failures-title">
      <div className="panel-head">
        <h2 id="failures-title">Recent failures</h2>
        {failures.length > SHOWN ? (
          <Link to={runsHref({ status: 2, period })} className="more-link">
            All {failures.length}
          </Link>
        ) : null}
      </div>
      {runs === undefined ? null : failures.length === 0 ? (
        <p className="muted panel-empty">No run failed in this period.</p>
      ) : (
        <ul className="failures">
          {failures.slice(0, SHOWN).map((run) => (
            <Failure key={`${run.name}/${run.dagRunId}`} run={run} />
          ))}
        </ul>
      )}
    </section>
  );
}

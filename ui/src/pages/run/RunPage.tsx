/**
 * A run's page (`/runs/:name/:dagRunId`, and sub-runs under their root): header and actions,
 * the step graph's slot, the timeline, the steps and the handlers. Polled every 2 s while the
 * run is active; a run that ended is not asked again until an action changes it.
 *
 * A run may have 10,000 steps: the graph then groups them by status (big-graph.ts), the
 * timeline is paged (RunTimeline.tsx), the table draws only the rows on screen and can be
 * filtered by name and status from the URL (step-filter.ts); a status group opens its rows.
 */
import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { ApiFailure } from '../../api/client.ts';
import { useApi } from '../../api/context.tsx';
import { LiveStatus } from '../../components/LiveStatus.tsx';
import type { TimelineStep } from '../../components/timeline/geometry.ts';
import { handlerTitle, ranHandlers } from '../../lib/handlers.ts';
import { links } from '../../lib/links.ts';
import { isActive, runActions, runAddress, runPage as pageOf, type RunAddress } from './address.ts';
import { Approvals } from './Approvals.tsx';
import { RunGraph } from './RunGraph.tsx';
import { runDetailsQuery, runOriginQuery, type RunDetails, type RunNode } from './queries.ts';
import { RunActions } from './RunActions.tsx';
import { RunHeader } from './RunHeader.tsx';
import { RunTimeline } from './RunTimeline.tsx';
import { StepActions } from './StepActions.tsx';
import { StepFilterBar } from './StepFilterBar.tsx';
import {
  filterSteps,
  offersFilter,
  parseStepFilter,
  statusChoices,
  withStepFilter,
  type StepFilter,
} from './step-filter.ts';
import { StepsTable, type StepRow } from './StepsTable.tsx';
import './run.css';

/** The handler nodes that ran, in the order they are listed. */
export function handlerRows(run: RunDetails): StepRow[] {
  return ranHandlers(run).map(({ key, node }) => ({ node, handles: handlerTitle(key).toLowerCase() }));
}

/** A step's log: stderr for a step that failed (where the reason usually is), else stdout. */
export function stepLogHref(
  runPage: string,
  node: { readonly step: { readonly name: string }; readonly statusLabel: string },
): string {
  return links.stepLog(runPage, node.step.name, node.statusLabel === 'failed' ? 'stderr' : 'stdout');
}

function timelineSteps(run: RunDetails): TimelineStep[] {
  const asStep = (node: RunNode, handler: boolean): TimelineStep => ({ ...node, name: node.step.name, handler });
  return [...run.nodes.map((n) => asStep(n, false)), ...handlerRows(run).map((h) => asStep(h.node, true))];
}

function Problem({
  address,
  error,
  onRetry,
}: {
  readonly address: RunAddress;
  readonly error: Error;
  readonly onRetry: () => void;
}): ReactNode {
  const missing = error instanceof ApiFailure && error.status === 404;
  return (
    <div className="card empty" role="alert">
      <p>
        {missing
          ? 'There is no such run.'
          : error instanceof ApiFailure && error.status === 403
            ? `You may not read this run: ${error.message}`
            : `Could not load the run: ${error.message}`}
      </p>
      {missing ? (
        <Link to={links.dag(address.name)}>Go to {address.name}</Link>
      ) : (
        <button type="button" className="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** The steps section: the filter of a big run, then the matching rows. */
function Steps({
  address,
  run,
  page,
  actions,
}: {
  readonly address: RunAddress;
  readonly run: RunDetails;
  readonly page: string;
  readonly actions: ((node: RunNode) => ReactNode) | undefined;
}): ReactNode {
  const [search, setSearch] = useSearchParams();
  const filter = parseStepFilter(search);
  const rows = run.nodes.map((node) => ({ node }));
  const shown = filterSteps(rows, filter);
  // Typing replaces the history entry; choosing a status adds one, so Back undoes it.
  const change = (next: StepFilter): void => {
    setSearch(withStepFilter(search, next), { replace: next.status === filter.status });
  };
  return (
    <section className="run-section-plain" aria-labelledby="run-steps">
      <h2 id="run-steps">Steps</h2>
      {rows.length === 0 ? (
        <p className="card empty muted">This run has no steps{isActive(run) ? ' yet' : ''}.</p>
      ) : null}
      {offersFilter(rows.length, filter) ? (
        <StepFilterBar
          filter={filter}
          choices={statusChoices(rows, filter.status)}
          shown={shown.length}
          total={rows.length}
          onChange={change}
        />
      ) : null}
      {rows.length > 0 && shown.length === 0 ? <p className="card empty muted">No step matches.</p> : null}
      {shown.length === 0 ? null : (
        <StepsTable rows={shown} address={address} runPage={page} caption="Steps of the run" actions={actions} />
      )}
    </section>
  );
}

function RunBody({ address, run }: { readonly address: RunAddress; readonly run: RunDetails }): ReactNode {
  const page = pageOf(address);
  const [search, setSearch] = useSearchParams();
  const can = runActions(run, address.subDagRunId !== undefined);
  const handlers = handlerRows(run);
  const steps = timelineSteps(run);
  const stepActions =
    can.retryStep || can.editStep
      ? (node: RunNode) => <StepActions node={node} address={address} run={run} can={can} />
      : undefined;
  return (
    <>
      <Approvals address={address} run={run} />
      <RunGraph
        run={run}
        stepHref={(name) => {
          const row = [...run.nodes.map((node) => ({ node })), ...handlers].find((r) => r.node.step.name === name);
          return row === undefined ? undefined : stepLogHref(page, row.node);
        }}
        onGroup={(status) => {
          setSearch(withStepFilter(search, { text: '', status }));
          document.getElementById('run-steps')?.scrollIntoView();
        }}
      />
      <section className="card run-section" aria-labelledby="run-timeline">
        <h2 id="run-timeline">Timeline</h2>
        <RunTimeline steps={steps} stepHref={(step) => stepLogHref(page, { step, statusLabel: step.statusLabel })} />
      </section>
      <Steps address={address} run={run} page={page} actions={stepActions} />
      {handlers.length === 0 ? null : (
        <section className="run-section-plain" aria-labelledby="run-handlers">
          <h2 id="run-handlers">Handlers</h2>
          <StepsTable
            rows={handlers}
            address={address}
            runPage={page}
            caption="Handlers that ran"
            actions={stepActions}
          />
        </section>
      )}
    </>
  );
}

export function RunPage(): ReactNode {
  const address = runAddress(useParams());
  if (address === undefined) throw new Error('a run page without a run');
  // A new address is a new page: the dequeued notice of another run does not carry over.
  return <RunView key={pageOf(address)} address={address} />;
}

function RunView({ address }: { readonly address: RunAddress }): ReactNode {
  const client = useApi();
  const [gone, setGone] = useState<string | undefined>();
  const details = useQuery({ ...runDetailsQuery(client, address), enabled: gone === undefined });
  const origin = useQuery({ ...runOriginQuery(client, address), enabled: gone === undefined });
  const run = details.data;
  if (gone !== undefined) {
    return (
      <div className="page run-page">
        <div className="card empty" role="status">
          <p>{gone}</p>
          <Link to={links.dag(address.name)}>Go to {address.name}</Link>
        </div>
      </div>
    );
  }
  if (run === undefined) {
    return (
      <div className="page run-page">
        {details.isError ? (
          <Problem address={address} error={details.error} onRetry={() => void details.refetch()} />
        ) : (
          <div className="card skeleton" aria-busy="true" aria-label="Loading the run">
            <div className="skeleton-row" />
            <div className="skeleton-row" />
            <div className="skeleton-row" />
          </div>
        )}
      </div>
    );
  }
  const live = isActive(run) ? <LiveStatus updatedAt={details.dataUpdatedAt} failed={details.isError} /> : null;
  return (
    <div className="page run-page">
      <RunHeader
        run={run}
        origin={origin.data}
        runPage={pageOf(address)}
        actions={<RunActions address={address} run={run} onGone={setGone} />}
        live={live}
      />
      {details.isError ? (
        <p className="banner banner-warning" role="status">
          Could not refresh: {details.error.message}
        </p>
      ) : null}
      <RunBody address={address} run={run} />
    </div>
  );
}

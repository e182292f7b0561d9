/**
 * Runs in a table, one page at a time: GET /dag-runs answers every match at once (the contract
 * has no paging), so the list is paged here and only a page of rows is drawn, its page and size
 * in the URL (`?page=3&perPage=100`). aria-rowcount and aria-rowindex say where the page's rows
 * sit in the whole list. Used by the runs page and a DAG's history tab.
 */
import { useRef, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Pager } from '../../components/Pager.tsx';
import { clientPage, PAGE_SIZES, parsePageParams, withPageParams, type PageParams } from '../../components/pages.ts';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { RelativeTime, useNow } from '../../components/Time.tsx';
import { links } from '../../lib/links.ts';
import { duration, instant, short } from '../../lib/time.ts';
import type { RunSummary } from './queries.ts';
import './runs.css';

function RunRow({ run, index }: { readonly run: RunSummary; readonly index: number }): ReactNode {
  const now = useNow();
  const started = instant(run.startedAt);
  const finished = instant(run.finishedAt);
  const queued = instant(run.queuedAt);
  return (
    <tr aria-rowindex={index + 2}>
      <td className="cell-status" data-label="Status">
        <StatusBadge label={run.statusLabel} status={run.status} />
      </td>
      <td className="cell-run-name">
        <Link to={links.run(run.name, run.dagRunId)} className="run-link">
          <span className="run-dag">{run.name}</span>
          <span className="run-id mono">{run.dagRunId}</span>
        </Link>
      </td>
      <td className="cell-started" data-label="Started">
        {started !== undefined ? (
          <>
            <RelativeTime at={started} />
            <div className="cell-detail">{short(started)}</div>
          </>
        ) : queued !== undefined ? (
          <>
            queued <RelativeTime at={queued} />
            <div className="cell-detail">{short(queued)}</div>
          </>
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      <td className="cell-duration" data-label="Duration">
        {started === undefined ? <span className="muted">—</span> : duration((finished ?? now) - started)}
      </td>
    </tr>
  );
}

/** A page of runs: `offset` is where its first run sits in the whole list of `total`. */
export function RunTable({
  runs,
  offset,
  total,
}: {
  readonly runs: readonly RunSummary[];
  readonly offset: number;
  readonly total: number;
}): ReactNode {
  return (
    <div className="table-wrap">
      <table className="table run-table" aria-rowcount={total + 1}>
        <colgroup>
          <col className="col-status" />
          <col className="col-run" />
          <col className="col-started" />
          <col className="col-duration" />
        </colgroup>
        <thead>
          <tr aria-rowindex={1}>
            <th scope="col">Status</th>
            <th scope="col">DAG and run</th>
            <th scope="col">Started</th>
            <th scope="col">Duration</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run, i) => (
            <RunRow key={`${run.name}/${run.dagRunId}`} run={run} index={offset + i} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Every run given, a page at a time, with the pager under them; `label` names the pager. */
export function PagedRunTable({
  runs,
  label = 'Pages of runs',
}: {
  readonly runs: readonly RunSummary[];
  readonly label?: string;
}): ReactNode {
  const [search, setSearch] = useSearchParams();
  const paging = parsePageParams(search);
  const top = useRef<HTMLDivElement>(null);
  const shown = clientPage(runs, paging.page, paging.perPage);
  const go = (next: PageParams): void => {
    setSearch(withPageParams(search, next));
    // The pager is under the rows: a new page is read from its top.
    const box = top.current;
    if (box !== null && box.getBoundingClientRect().top < 0) box.scrollIntoView();
  };
  return (
    <div className="paged-runs" ref={top}>
      <RunTable runs={shown.rows} offset={shown.offset} total={shown.totalRecords} />
      <Pager
        page={shown.page}
        totalPages={shown.totalPages}
        totalRecords={shown.totalRecords}
        perPage={paging.perPage}
        perPageChoices={PAGE_SIZES}
        noun="runs"
        label={label}
        onPage={(page) => {
          go({ ...paging, page });
        }}
        onPerPage={(perPage) => {
          go({ page: 1, perPage });
        }}
      />
    </div>
  );
}

/**
 * All runs, newest first (GET /dag-runs answers them so, all at once), filtered by status,
 * DAG name, run id and period from the URL, polled while the page is visible, shown a page
 * at a time (PagedRunTable). A new filter starts again from the first page.
 */
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { useApi } from '../../api/context.tsx';
import { LiveStatus } from '../../components/LiveStatus.tsx';
import { parsePageParams, withPageParams } from '../../components/pages.ts';
import { useNow } from '../../components/Time.tsx';
import { QueryState } from './common.tsx';
import { runListQuery } from './queries.ts';
import { parseRunsParams, RUNS_DEFAULTS, runsApiQuery, runsSearch, type RunsParams } from './run-params.ts';
import { RunsToolbar } from './RunsToolbar.tsx';
import { PagedRunTable } from './RunTable.tsx';
import './panels.css';

const count = new Intl.NumberFormat('en');

export function RunsPage(): ReactNode {
  const client = useApi();
  const now = useNow();
  const [search, setSearch] = useSearchParams();
  const params = parseRunsParams(search);
  const list = useQuery(runListQuery(client, runsApiQuery(params, now)));
  // Typing replaces the history entry; choosing a status or period adds one, so Back undoes it.
  // Another filter is another list: it starts on its first page, of the size chosen.
  const change = (c: Partial<RunsParams>): void => {
    const typed = Object.keys(c).every((key) => key === 'name' || key === 'dagRunId');
    setSearch(withPageParams(runsSearch({ ...params, ...c }), { page: 1, perPage: parsePageParams(search).perPage }), {
      replace: typed,
    });
  };
  const filtered = runsSearch(params).toString() !== runsSearch(RUNS_DEFAULTS).toString();
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Runs</h1>
          <p className="page-summary">Runs of every DAG, newest first.</p>
        </div>
        <LiveStatus updatedAt={list.dataUpdatedAt} failed={list.isError} />
      </header>
      <RunsToolbar params={params} onChange={change} />
      <QueryState query={list} what="the runs" rows={6}>
        {() => {
          const runs = list.data?.dagRuns ?? [];
          if (runs.length === 0) {
            return (
              <div className="card empty">
                <p>{filtered ? 'No run matches these filters.' : 'No runs in the last 7 days.'}</p>
                {filtered ? (
                  <button
                    type="button"
                    className="button"
                    onClick={() => {
                      change(RUNS_DEFAULTS);
                    }}
                  >
                    Clear filters
                  </button>
                ) : null}
              </div>
            );
          }
          return (
            <>
              <p className="list-count" role="status">
                {count.format(runs.length)} {runs.length === 1 ? 'run' : 'runs'}
              </p>
              <PagedRunTable runs={runs} />
            </>
          );
        }}
      </QueryState>
    </div>
  );
}

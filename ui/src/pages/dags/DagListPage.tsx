/**
 * The DAG list: GET /api/v2/dags with the URL's filters, polled while the page is visible.
 * The server filters, sorts and pages, so thousands of DAGs cost one page of rows.
 */
import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { ApiFailure } from '../../api/client.ts';
import { useApi } from '../../api/context.tsx';
import { dagListQuery, type DagList } from '../../api/queries.ts';
import { Icon } from '../../components/Icon.tsx';
import { LiveStatus } from '../../components/LiveStatus.tsx';
import { Pager } from '../../components/Pager.tsx';
import { StartedNotice } from '../../components/start/DagControls.tsx';
import type { StartedRun } from '../../components/start/StartDialog.tsx';
import { DagTable } from './DagTable.tsx';
import { DagToolbar } from './DagToolbar.tsx';
import {
  apiQuery,
  listSearch,
  parseListParams,
  PER_PAGE_CHOICES,
  withChange,
  type DagListParams,
} from './list-params.ts';
import { NewDagDialog } from './NewDagDialog.tsx';

function problem(error: Error): string {
  if (error instanceof ApiFailure && error.status === 403)
    return `You are signed in, but may not read DAGs: ${error.message}`;
  return error.message;
}

function SkeletonRows(): ReactNode {
  return (
    <div className="card skeleton" aria-busy="true" aria-label="Loading DAGs">
      {[0, 1, 2, 3, 4].map((row) => (
        <div key={row} className="skeleton-row" />
      ))}
    </div>
  );
}

function Empty({ filtered, onClear }: { readonly filtered: boolean; readonly onClear: () => void }): ReactNode {
  if (filtered) {
    return (
      <div className="card empty">
        <p>No DAG matches these filters.</p>
        <button type="button" className="button" onClick={onClear}>
          Clear filters
        </button>
      </div>
    );
  }
  return (
    <div className="card empty">
      <p>No DAGs yet.</p>
      <p className="muted">
        Create one with <strong>New DAG</strong> above, with <code>POST /api/v2/dags</code>, or apply a DAG resource
        with <code>kubectl apply</code>.
      </p>
    </div>
  );
}

interface ListingProps {
  readonly list: DagList;
  readonly params: DagListParams;
  readonly change: (c: Partial<DagListParams>) => void;
  readonly onStarted: (run: StartedRun) => void;
}

function Listing({ list, params, change, onStarted }: ListingProps): ReactNode {
  const filtered = params.search !== '' || params.tag !== '';
  if (list.dags.length === 0)
    return (
      <Empty
        filtered={filtered}
        onClear={() => {
          change({ search: '', tag: '' });
        }}
      />
    );
  const { pagination } = list;
  return (
    <>
      <DagTable
        dags={list.dags}
        sorting={{
          sort: params.sort,
          order: params.order,
          onSort: (sort, order) => {
            change({ sort, order });
          },
        }}
        onTag={(tag) => {
          change({ tag });
        }}
        onStarted={onStarted}
      />
      <Pager
        page={pagination.currentPage}
        totalPages={pagination.totalPages}
        totalRecords={pagination.totalRecords}
        perPage={params.perPage}
        perPageChoices={PER_PAGE_CHOICES}
        noun="DAGs"
        onPage={(page) => {
          change({ page });
        }}
        onPerPage={(perPage) => {
          change({ perPage });
        }}
      />
    </>
  );
}

export function DagListPage(): ReactNode {
  const client = useApi();
  const [search, setSearch] = useSearchParams();
  const params = parseListParams(search);
  const list = useQuery(dagListQuery(client, apiQuery(params)));
  const [creating, setCreating] = useState(false);
  const [started, setStarted] = useState<StartedRun>();
  // Typing replaces the history entry; paging and sorting add one, so Back goes to the last view.
  const change = (c: Partial<DagListParams>): void => {
    setSearch(listSearch(withChange(params, c)), { replace: Object.keys(c).includes('search') });
  };
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>DAGs</h1>
          <p className="page-summary">Workflow definitions, their schedules and latest runs.</p>
        </div>
        <div className="page-header-end">
          <LiveStatus updatedAt={list.dataUpdatedAt} failed={list.isError} />
          <button
            type="button"
            className="button button-primary"
            onClick={() => {
              setCreating(true);
            }}
          >
            <Icon name="plus" size={16} />
            <span>New DAG</span>
          </button>
        </div>
      </header>
      {creating ? (
        <NewDagDialog
          onClose={() => {
            setCreating(false);
          }}
        />
      ) : null}
      {started === undefined ? null : (
        <StartedNotice
          run={started}
          onDismiss={() => {
            setStarted(undefined);
          }}
        />
      )}
      <DagToolbar search={params.search} tag={params.tag} onChange={change} />
      {list.isError && list.data !== undefined ? (
        <p className="banner banner-warning" role="status">
          Could not refresh: {problem(list.error)}
        </p>
      ) : null}
      {list.data !== undefined ? (
        <Listing list={list.data} params={params} change={change} onStarted={setStarted} />
      ) : list.isError ? (
        <div className="card empty" role="alert">
          <p>Could not load the DAGs: {problem(list.error)}</p>
          <button type="button" className="button" onClick={() => void list.refetch()}>
            Try again
          </button>
        </div>
      ) : (
        <SkeletonRows />
      )}
    </div>
  );
}

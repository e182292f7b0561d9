/**
 * Under the history grid: every run of the DAG, not only the grid's last thirty, newest first
 * and a page at a time (GET /dag-runs/{name} answers them all at once; PagedRunTable pages
 * them, its page in the URL).
 */
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useApi } from '../../api/context.tsx';
import { QueryState } from '../runs/common.tsx';
import { dagRunListQuery } from '../runs/queries.ts';
import { PagedRunTable } from '../runs/RunTable.tsx';

export function HistoryRuns({ dagName }: { readonly dagName: string }): ReactNode {
  const client = useApi();
  const list = useQuery(dagRunListQuery(client, dagName));
  return (
    <section className="history-runs" aria-labelledby="history-runs">
      <h2 id="history-runs">Every run</h2>
      <QueryState query={list} what="the runs" rows={3}>
        {() => {
          const runs = list.data?.dagRuns ?? [];
          return runs.length === 0 ? (
            <p className="muted">No runs.</p>
          ) : (
            <PagedRunTable runs={runs} label="Pages of runs" />
          );
        }}
      </QueryState>
    </section>
  );
}

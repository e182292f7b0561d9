/**
 * The dashboard: the chosen period's runs by status and per hour or day (GET /dag-runs from the
 * period's start), what runs and waits now (by status, of any age), and the latest failures.
 * Three list queries, polled while the page is visible; a failure's details are read once.
 */
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { useApi } from '../../api/context.tsx';
import { LiveStatus } from '../../components/LiveStatus.tsx';
import { useNow } from '../../components/Time.tsx';
import { QueryState } from '../runs/common.tsx';
import { PeriodPicker } from '../runs/PeriodPicker.tsx';
import { isPeriod, periodQuery, periodStart, startOfDay, type Period } from '../runs/period.ts';
import { runListQuery } from '../runs/queries.ts';
import { bucketRuns, countByStatus } from './buckets.ts';
import { FailuresPanel } from './FailuresPanel.tsx';
import { NowPanel } from './NowPanel.tsx';
import { RunsChart } from './RunsChart.tsx';
import { StatusTiles } from './StatusTiles.tsx';
import '../runs/panels.css';
import './dashboard.css';

const CHOICES: readonly Period[] = ['today', '7d', '30d'];
const DEFAULT_PERIOD: Period = 'today';

function usePeriod(): [Period, (period: Period) => void] {
  const [search, setSearch] = useSearchParams();
  const value = search.get('period');
  const period = isPeriod(value) && CHOICES.includes(value) ? value : DEFAULT_PERIOD;
  const choose = (next: Period): void => {
    setSearch(next === DEFAULT_PERIOD ? {} : { period: next });
  };
  return [period, choose];
}

export function DashboardPage(): ReactNode {
  const client = useApi();
  const now = useNow();
  const [period, setPeriod] = usePeriod();
  const inPeriod = useQuery(runListQuery(client, periodQuery(period, now)));
  const running = useQuery(runListQuery(client, { status: 1 }));
  const queued = useQuery(runListQuery(client, { status: 5 }));
  const runs = inPeriod.data?.dagRuns;
  // Today is shown whole, hour by hour; longer periods day by day up to today.
  const unit = period === 'today' ? 'hour' : 'day';
  const from = periodStart(period, now) ?? startOfDay(now);
  const to = period === 'today' ? startOfDay(now, -1) - 1 : now;
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Dashboard</h1>
          <p className="page-summary">Runs over the period, what runs and waits now, and what failed.</p>
        </div>
        <div className="page-header-side">
          <LiveStatus
            updatedAt={Math.min(inPeriod.dataUpdatedAt, running.dataUpdatedAt, queued.dataUpdatedAt)}
            failed={inPeriod.isError || running.isError || queued.isError}
          />
          <PeriodPicker value={period} onChange={setPeriod} choices={CHOICES} />
        </div>
      </header>
      <QueryState query={inPeriod} what="the runs" rows={2}>
        {() => (
          <>
            <StatusTiles counts={countByStatus(runs ?? [])} period={period} />
            <RunsChart buckets={bucketRuns(runs ?? [], { from, to, unit })} unit={unit} />
          </>
        )}
      </QueryState>
      <div className="dashboard-columns">
        <NowPanel running={running} queued={queued} />
        <FailuresPanel runs={runs} period={period} />
      </div>
    </div>
  );
}

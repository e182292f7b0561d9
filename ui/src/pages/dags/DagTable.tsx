/**
 * The DAG list's table: name (with description, tags and problems), the latest run, the
 * schedule and the next run. Name and next run sort on the server; a tag filters by it.
 */
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { DagListItem } from '../../api/queries.ts';
import { Icon } from '../../components/Icon.tsx';
import { StartButton, StopAllButton, SuspendSwitch } from '../../components/start/DagControls.tsx';
import type { StartedRun } from '../../components/start/StartDialog.tsx';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { RelativeTime, useNow } from '../../components/Time.tsx';
import { links } from '../../lib/links.ts';
import { nextRun, splitZone } from '../../lib/next-run.ts';
import { duration, instant, short } from '../../lib/time.ts';
import type { SortField, SortOrder } from './list-params.ts';

interface Sorting {
  readonly sort: SortField;
  readonly order: SortOrder;
  readonly onSort: (sort: SortField, order: SortOrder) => void;
}

function SortHeader({
  field,
  label,
  sorting,
}: {
  readonly field: SortField;
  readonly label: string;
  readonly sorting: Sorting;
}): ReactNode {
  const active = sorting.sort === field;
  const next: SortOrder = active && sorting.order === 'asc' ? 'desc' : 'asc';
  return (
    <th scope="col" aria-sort={active ? (sorting.order === 'asc' ? 'ascending' : 'descending') : 'none'}>
      <button
        type="button"
        className="sort-button"
        onClick={() => {
          sorting.onSort(field, next);
        }}
      >
        {label}
        <Icon name={active ? (sorting.order === 'asc' ? 'sortAsc' : 'sortDesc') : 'sortNone'} size={14} />
      </button>
    </th>
  );
}

function NameCell({ item, onTag }: { readonly item: DagListItem; readonly onTag: (tag: string) => void }): ReactNode {
  const { dag } = item;
  return (
    <td className="cell-name">
      <div className="dag-title">
        {dag.group === '' ? null : <span className="dag-group">{dag.group} /</span>}
        <Link to={links.dag(item.fileName)} className="dag-link">
          {dag.name}
        </Link>
        {item.fileName === dag.name ? null : <span className="dag-file mono">{item.fileName}</span>}
        {item.errors.length === 0 ? null : (
          <span className="badge badge-failure" title={item.errors.join('\n')}>
            <Icon name="alert" size={12} />{' '}
            {item.errors.length === 1 ? '1 problem' : `${String(item.errors.length)} problems`}
          </span>
        )}
      </div>
      {dag.description === '' ? null : <p className="dag-description">{dag.description}</p>}
      {dag.tags.length === 0 ? null : (
        <ul className="tags" aria-label="Tags">
          {dag.tags.map((tag) => (
            <li key={tag}>
              <button
                type="button"
                className="tag"
                title={`Show DAGs tagged ${tag}`}
                onClick={() => {
                  onTag(tag);
                }}
              >
                {tag}
              </button>
            </li>
          ))}
        </ul>
      )}
    </td>
  );
}

function LatestRunCell({ run }: { readonly run: DagListItem['latestDAGRun'] }): ReactNode {
  const now = useNow();
  if (run.dagRunId === '') {
    return (
      <td className="cell-run muted" data-label="Latest run">
        No runs yet
      </td>
    );
  }
  const started = instant(run.startedAt);
  const finished = instant(run.finishedAt);
  const queued = instant(run.queuedAt);
  const took = started === undefined ? undefined : (finished ?? now) - started;
  return (
    <td className="cell-run" data-label="Latest run">
      <StatusBadge label={run.statusLabel} status={run.status} />
      <div className="cell-detail">
        {started !== undefined ? (
          <RelativeTime at={started} />
        ) : queued !== undefined ? (
          <>
            queued <RelativeTime at={queued} />
          </>
        ) : null}
        {took === undefined ? null : <span className="detail-sep">{duration(took)}</span>}
      </div>
    </td>
  );
}

function ScheduleCell({ item }: { readonly item: DagListItem }): ReactNode {
  const expressions = item.dag.schedule.map((s) => s.expression);
  if (expressions.length === 0) {
    return (
      <td className="cell-schedule muted" data-label="Schedule">
        —
      </td>
    );
  }
  return (
    <td className="cell-schedule" data-label="Schedule">
      <ul className="schedules">
        {expressions.map((expression) => {
          const { cron, zone } = splitZone(expression);
          return (
            <li key={expression} title={expression}>
              <code>{cron}</code>
              {zone === undefined ? null : <span className="schedule-zone">{zone}</span>}
            </li>
          );
        })}
      </ul>
    </td>
  );
}

function NextRunCell({ item }: { readonly item: DagListItem }): ReactNode {
  const now = useNow();
  if (item.suspended) {
    return (
      <td className="cell-next" data-label="Next run">
        <span className="badge badge-muted">
          <Icon name="pause" size={12} /> Suspended
        </span>
      </td>
    );
  }
  const next = nextRun(
    item.dag.schedule.map((s) => s.expression),
    new Date(now),
  );
  if (next === undefined) {
    return (
      <td className="cell-next muted" data-label="Next run">
        —
      </td>
    );
  }
  return (
    <td className="cell-next" data-label="Next run">
      <RelativeTime at={next.getTime()} />
      <div className="cell-detail">{short(next.getTime())}</div>
    </td>
  );
}

/** Start, stop and the schedule switch; each names the DAG, since the row's name is elsewhere. */
function ActionsCell({
  item,
  onStarted,
}: {
  readonly item: DagListItem;
  readonly onStarted: (run: StartedRun) => void;
}): ReactNode {
  return (
    <td className="cell-actions" data-label="Actions">
      <div className="row-actions">
        <SuspendSwitch fileName={item.fileName} dag={item.dag} suspended={item.suspended} compact />
        <StopAllButton fileName={item.fileName} dag={item.dag} running={item.latestDAGRun.status === 1} compact />
        <StartButton fileName={item.fileName} dag={item.dag} onStarted={onStarted} compact />
      </div>
    </td>
  );
}

interface DagTableProps {
  readonly dags: readonly DagListItem[];
  readonly sorting: Sorting;
  readonly onTag: (tag: string) => void;
  readonly onStarted: (run: StartedRun) => void;
}

export function DagTable({ dags, sorting, onTag, onStarted }: DagTableProps): ReactNode {
  return (
    <div className="table-wrap">
      <table className="table dag-table">
        {/* Fixed widths, so columns stay put while filters and pages change the rows. */}
        <colgroup>
          <col className="col-name" />
          <col className="col-run" />
          <col className="col-schedule" />
          <col className="col-next" />
          <col className="col-actions" />
        </colgroup>
        <thead>
          <tr>
            <SortHeader field="name" label="Name" sorting={sorting} />
            <th scope="col">Latest run</th>
            <th scope="col">Schedule</th>
            <SortHeader field="nextRun" label="Next run" sorting={sorting} />
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {dags.map((item) => (
            <tr key={item.fileName}>
              <NameCell item={item} onTag={onTag} />
              <LatestRunCell run={item.latestDAGRun} />
              <ScheduleCell item={item} />
              <NextRunCell item={item} />
              <ActionsCell item={item} onStarted={onStarted} />
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

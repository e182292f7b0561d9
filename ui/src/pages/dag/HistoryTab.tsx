/**
 * The history tab: the run history grid (grid-model.ts), a row per step and a column per run,
 * newest first, each cell a link to its run. The grid scrolls both ways with the step names
 * and run headers kept in view. Only the run headers are in the tab order: a cell per step
 * and run would make hundreds of stops; the cells are there for the mouse, and their row and
 * column say the same to a screen reader.
 *
 * The API gives the grid the last 30 runs; a DAG of thousands of steps has its rows paged.
 * Every run of the DAG, older ones too, is listed beneath, a page at a time (HistoryRuns.tsx).
 */
import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { useApi } from '../../api/context.tsx';
import { dagHistoryQuery, type DagDetails } from '../../api/dag-queries.ts';
import { Icon } from '../../components/Icon.tsx';
import { Pager } from '../../components/Pager.tsx';
import { statusLook } from '../../lib/status.ts';
import { absolute } from '../../lib/time.ts';
import { links } from '../../lib/links.ts';
import { GRID_ROWS_PAGE, historyGrid, type GridColumn, type HistoryGrid } from './grid-model.ts';
import { HistoryRuns } from './HistoryRuns.tsx';
import './history.css';

const LEGEND = ['succeeded', 'failed', 'running', 'skipped', 'canceled', 'not_started'] as const;
// Compact, for a column header set sideways: "Nov 24, 12:54".
const when = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

function RunHeader({ column }: { readonly column: GridColumn }): ReactNode {
  const look = statusLook(column.statusLabel, column.status);
  return (
    <th scope="col" className="history-run">
      <Link
        to={links.run(column.name, column.dagRunId)}
        className="history-run-link"
        data-tone={look.tone}
        title={`${column.dagRunId}\n${look.text}${column.at === undefined ? '' : `\n${absolute(column.at)}`}`}
      >
        <span className="history-dot" aria-hidden="true" />
        <span className="visually-hidden">
          Run {column.dagRunId}, {look.text},{' '}
        </span>
        <span className="history-when">{column.at === undefined ? 'not started' : when.format(column.at)}</span>
      </Link>
    </th>
  );
}

function Grid({ grid, dagName }: { readonly grid: HistoryGrid; readonly dagName: string }): ReactNode {
  return (
    <div className="history-scroll" role="region" aria-label={`Run history of ${dagName}`} tabIndex={0}>
      <table className="history-grid">
        <caption className="visually-hidden">
          Step statuses of the last {grid.columns.length} runs, newest first
          {grid.rowPage.totalPages === 1
            ? ''
            : `; steps ${String(grid.rowPage.offset + 1)} to ${String(grid.rowPage.offset + grid.rows.length)} of ${String(grid.rowPage.totalRecords)}`}
        </caption>
        <thead>
          <tr>
            <th scope="col" className="history-corner">
              Step
            </th>
            {grid.columns.map((column) => (
              <RunHeader key={column.dagRunId} column={column} />
            ))}
          </tr>
        </thead>
        <tbody>
          {grid.rows.map((row) => (
            <tr key={row.name} className={row.handler ? 'history-handler' : undefined}>
              <th scope="row" className="history-step mono" title={row.name}>
                {row.name}
              </th>
              {row.cells.map((cell, i) => {
                const column = grid.columns[i] as GridColumn;
                if (cell.statusLabel === undefined) return <td key={column.dagRunId} className="history-cell" />;
                const look = statusLook(cell.statusLabel);
                return (
                  <td key={column.dagRunId} className="history-cell">
                    <Link
                      to={links.run(column.name, column.dagRunId)}
                      tabIndex={-1}
                      className="history-mark"
                      data-tone={look.tone}
                      data-status={cell.statusLabel}
                      title={`${row.name}: ${look.text}\nrun ${column.dagRunId}`}
                    >
                      <span className="visually-hidden">{look.text}</span>
                    </Link>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Legend(): ReactNode {
  return (
    <ul className="history-legend" aria-label="Colours">
      {LEGEND.map((label) => {
        const look = statusLook(label);
        return (
          <li key={label}>
            <span className="history-mark" data-tone={look.tone} data-status={label} aria-hidden="true" />
            {look.text}
          </li>
        );
      })}
    </ul>
  );
}

export function HistoryTab({
  fileName,
  details,
}: {
  readonly fileName: string;
  readonly details: DagDetails;
}): ReactNode {
  const client = useApi();
  const history = useQuery(dagHistoryQuery(client, fileName));
  const [rowPage, setRowPage] = useState(1);
  if (history.data === undefined) {
    return history.isError ? (
      <div className="card empty" role="alert">
        <p>Could not load the history: {history.error.message}</p>
        <button type="button" className="button" onClick={() => void history.refetch()}>
          Try again
        </button>
      </div>
    ) : (
      <div className="card skeleton" aria-busy="true" aria-label="Loading the history">
        <div className="skeleton-row" />
        <div className="skeleton-row" />
      </div>
    );
  }
  const grid = historyGrid(
    history.data.dagRuns,
    history.data.gridData,
    details.dag.steps.map((step) => step.name),
    { page: rowPage, size: GRID_ROWS_PAGE },
  );
  if (grid.columns.length === 0) {
    return (
      <div className="card empty">
        <Icon name="runs" size={22} />
        <p>No runs yet.</p>
      </div>
    );
  }
  return (
    <div className="history-tab">
      <div className="history-head">
        <p className="muted">
          The last {grid.columns.length === 1 ? 'run' : `${String(grid.columns.length)} runs`}, newest first. A cell
          opens its run.
        </p>
        <Legend />
      </div>
      <Grid grid={grid} dagName={details.dag.name} />
      {grid.rowPage.totalPages === 1 ? null : (
        <Pager
          page={grid.rowPage.page}
          totalPages={grid.rowPage.totalPages}
          totalRecords={grid.rowPage.totalRecords}
          perPage={GRID_ROWS_PAGE}
          noun="steps"
          onPage={setRowPage}
          label="Pages of steps"
        />
      )}
      <HistoryRuns dagName={details.dag.name} />
    </div>
  );
}

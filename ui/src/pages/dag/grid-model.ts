/**
 * The run history grid: a row per step, a column per run, newest first; each cell the step's
 * status in that run, from the API's gridData (`history[i]` belongs to `dagRuns[i]`).
 *
 * Rows follow the DAG as it is now (the server sorts by name), then steps only older runs
 * had, then the handlers that ran. A step a run did not have is an empty cell, not "not
 * started": the definition changed between runs.
 *
 * A DAG may have 10,000 steps: the rows are paged (GRID_ROWS_PAGE at a time) and only a page's
 * cells are made, each run's steps looked up in a set rather than searched.
 */
import { clientPage, type PageSlice } from '../../components/pages.ts';
import { stepStatusLabel } from '../../components/graph/step-status.ts';
import { HANDLER_KEYS, isHandlerKey as isHandler, type HandlerKey } from '../../lib/handlers.ts';

/** Step rows of one page of the grid: thirty runs of them are a screenful or two. */
export const GRID_ROWS_PAGE = 50;

interface RunFields {
  readonly dagRunId: string;
  readonly name: string;
  readonly status: number;
  readonly statusLabel: string;
  readonly startedAt: string;
  readonly queuedAt: string;
  readonly nodes: readonly { readonly step: { readonly name: string } }[];
}

/** A run as the grid reads it: its handlers' nodes are null (or absent: onInit, onWait) when not run. */
type RunInput = RunFields & { readonly [K in HandlerKey]?: unknown };

export interface GridColumn {
  readonly dagRunId: string;
  /** The DAG name the run has, for its link. */
  readonly name: string;
  readonly statusLabel: string;
  readonly status: number;
  /** When it started, else when it was queued; ms since the epoch, or undefined. */
  readonly at: number | undefined;
}

export interface GridCell {
  /** The step's status label, or undefined when the run had no such step. */
  readonly statusLabel: string | undefined;
}

export interface GridRow {
  readonly name: string;
  readonly handler: boolean;
  readonly cells: readonly GridCell[];
}

export interface HistoryGrid {
  readonly columns: readonly GridColumn[];
  /** The rows of the page shown. */
  readonly rows: readonly GridRow[];
  /** Which page of rows that is, of how many. */
  readonly rowPage: Omit<PageSlice<string>, 'rows'>;
}

const time = (text: string): number | undefined => {
  const ms = text === '' ? Number.NaN : Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
};

/** Whether a run had a step (or ran a handler) of this name; its steps are a set, made once. */
function hadStep(run: RunInput, steps: ReadonlySet<string>, name: string): boolean {
  if (isHandler(name)) return run[name] !== null && run[name] !== undefined;
  return steps.has(name);
}

/** Row order: the definition's steps, then other steps by name, then handlers in event order. */
function rowOrder(gridNames: readonly string[], stepOrder: readonly string[]): string[] {
  const present = new Set(gridNames);
  const defined = stepOrder.filter((name) => present.has(name) && !isHandler(name));
  const known = new Set(defined);
  const others = gridNames.filter((name) => !known.has(name) && !isHandler(name)).sort();
  const handlers = HANDLER_KEYS.filter((name) => present.has(name));
  return [...defined, ...others, ...handlers];
}

/** The grid, its rows paged: `rows` asks for a page of a size (every row on one page by default). */
export function historyGrid(
  dagRuns: readonly RunInput[],
  gridData: readonly { readonly name: string; readonly history: readonly number[] }[],
  stepOrder: readonly string[] = [],
  rows: { readonly page: number; readonly size: number } = { page: 1, size: Number.MAX_SAFE_INTEGER },
): HistoryGrid {
  const columns = dagRuns.map((run) => ({
    dagRunId: run.dagRunId,
    name: run.name,
    statusLabel: run.statusLabel,
    status: run.status,
    at: time(run.startedAt) ?? time(run.queuedAt),
  }));
  const byName = new Map(gridData.map((row) => [row.name, row.history]));
  const steps = dagRuns.map((run) => new Set(run.nodes.map((node) => node.step.name)));
  const { rows: names, ...rowPage } = clientPage(rowOrder([...byName.keys()], stepOrder), rows.page, rows.size);
  const shown = names.map((name) => {
    const history = byName.get(name) ?? [];
    const cells = dagRuns.map((run, i) => {
      const status = history[i];
      return {
        statusLabel:
          status === undefined || !hadStep(run, steps[i] ?? new Set(), name) ? undefined : stepStatusLabel(status),
      };
    });
    return { name, handler: isHandler(name), cells };
  });
  return { columns, rows: shown, rowPage };
}

/**
 * Finding steps in a big run: a run's steps table can hold 10,000 rows, drawn only while on
 * screen, so the browser's find cannot reach the rest. The table is filtered instead, by part
 * of a step's name and by status, both kept in the URL (`?step=load&status=failed`): Back from
 * a step's log returns to the same rows, and the graph's status groups link to them.
 */
import { statusGroups, type StatusGroup } from '../../components/graph/big-graph.ts';

export interface StepFilter {
  /** Part of a step's name, any case; '' for every name. */
  readonly text: string;
  /** A status label as the API gives it; '' for every status. */
  readonly status: string;
}

export const NO_FILTER: StepFilter = { text: '', status: '' };

/** Fewer steps than this fit on a screen or two: the filter would only be in the way. */
export const FILTER_FROM_STEPS = 25;

const KEYS = { text: 'step', status: 'status' } as const;

export function parseStepFilter(search: URLSearchParams): StepFilter {
  return { text: search.get(KEYS.text) ?? '', status: search.get(KEYS.status) ?? '' };
}

/** The URL's search with this filter; other parameters stay, an empty part leaves it out. */
export function withStepFilter(search: URLSearchParams, filter: StepFilter): URLSearchParams {
  const next = new URLSearchParams(search);
  for (const key of ['text', 'status'] as const) {
    if (filter[key] === '') next.delete(KEYS[key]);
    else next.set(KEYS[key], filter[key]);
  }
  return next;
}

export const isFiltered = (filter: StepFilter): boolean => filter.text.trim() !== '' || filter.status !== '';

/** Whether the table offers the filter: a big run, or a filter already set (a link to one). */
export const offersFilter = (stepCount: number, filter: StepFilter): boolean =>
  stepCount > FILTER_FROM_STEPS || isFiltered(filter);

interface FilterableRow {
  readonly node: { readonly step: { readonly name: string }; readonly statusLabel: string };
}

/** The rows that match, in their order. */
export function filterSteps<T extends FilterableRow>(rows: readonly T[], filter: StepFilter): readonly T[] {
  const text = filter.text.trim().toLowerCase();
  if (text === '' && filter.status === '') return rows;
  return rows.filter(
    (row) =>
      (filter.status === '' || row.node.statusLabel === filter.status) &&
      (text === '' || row.node.step.name.toLowerCase().includes(text)),
  );
}

/** The statuses to choose from, with their counts; the chosen one stays listed while no step has it. */
export function statusChoices(rows: readonly FilterableRow[], chosen: string): readonly StatusGroup[] {
  const groups = statusGroups(rows.map((row) => ({ status: row.node.statusLabel })));
  return chosen === '' || groups.some((g) => g.status === chosen) ? groups : [...groups, { status: chosen, count: 0 }];
}

/**
 * The runs page's state lives in the URL (`/runs?status=failed&name=etl&period=30d`), so every
 * view of the list is a link, and the dashboard links straight into a filtered list. Defaults
 * are left out of the URL.
 */
import { links } from '../../lib/links.ts';
import { periodQuery, isPeriod, type Period } from './period.ts';
import type { RunListQuery } from './queries.ts';

/** The run statuses a list can be filtered by: the contract's integer and its label. */
export const STATUS_FILTERS: readonly { readonly status: number; readonly label: string; readonly text: string }[] = [
  { status: 1, label: 'running', text: 'Running' },
  { status: 5, label: 'queued', text: 'Queued' },
  { status: 4, label: 'succeeded', text: 'Succeeded' },
  { status: 2, label: 'failed', text: 'Failed' },
  { status: 6, label: 'partially_succeeded', text: 'Partially succeeded' },
  { status: 3, label: 'canceled', text: 'Cancelled' },
  { status: 0, label: 'not_started', text: 'Not started' },
];

export interface RunsParams {
  /** The contract's status integer, or undefined for every status. */
  readonly status: number | undefined;
  /** Part of a DAG name. */
  readonly name: string;
  /** Part of a run id. */
  readonly dagRunId: string;
  readonly period: Period;
}

export const RUNS_DEFAULTS: RunsParams = { status: undefined, name: '', dagRunId: '', period: '7d' };

export function parseRunsParams(search: URLSearchParams): RunsParams {
  const period = search.get('period');
  return {
    status: STATUS_FILTERS.find((s) => s.label === search.get('status'))?.status,
    name: search.get('name') ?? '',
    dagRunId: search.get('id') ?? '',
    period: isPeriod(period) ? period : RUNS_DEFAULTS.period,
  };
}

export function runsSearch(params: RunsParams): URLSearchParams {
  const search = new URLSearchParams();
  const label = STATUS_FILTERS.find((s) => s.status === params.status)?.label;
  if (label !== undefined) search.set('status', label);
  if (params.name !== '') search.set('name', params.name);
  if (params.dagRunId !== '') search.set('id', params.dagRunId);
  if (params.period !== RUNS_DEFAULTS.period) search.set('period', params.period);
  return search;
}

/** The runs page's URL for these filters; what is not given is the default. */
export function runsHref(params: Partial<RunsParams>): string {
  const search = runsSearch({ ...RUNS_DEFAULTS, ...params }).toString();
  return search === '' ? links.runs() : `${links.runs()}?${search}`;
}

/** What GET /dag-runs is asked: only the filters that are set, text trimmed. */
export function runsApiQuery(params: RunsParams, now: number): RunListQuery {
  const name = params.name.trim();
  const dagRunId = params.dagRunId.trim();
  return {
    ...(params.status === undefined ? {} : { status: params.status }),
    ...(name === '' ? {} : { name }),
    ...(dagRunId === '' ? {} : { dagRunId }),
    ...periodQuery(params.period, now),
  };
}

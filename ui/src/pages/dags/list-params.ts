/**
 * The DAG list's state lives in the URL (`/dags?search=etl&tag=daily&page=2`), so that every
 * view of the list is a link to share and survives a reload. Defaults are left out of the URL.
 */
import type { DagListQuery } from '../../api/queries.ts';

export type SortField = 'name' | 'nextRun';
export type SortOrder = 'asc' | 'desc';

export interface DagListParams {
  readonly search: string;
  readonly tag: string;
  readonly page: number;
  readonly perPage: number;
  readonly sort: SortField;
  readonly order: SortOrder;
}

export const PER_PAGE_CHOICES = [25, 50, 100, 200] as const;
export const DEFAULTS: DagListParams = { search: '', tag: '', page: 1, perPage: 50, sort: 'name', order: 'asc' };

function positive(text: string | null, fallback: number): number {
  const value = Number(text);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

export function parseListParams(search: URLSearchParams): DagListParams {
  const perPage = positive(search.get('perPage'), DEFAULTS.perPage);
  return {
    search: search.get('search') ?? '',
    tag: search.get('tag') ?? '',
    page: positive(search.get('page'), DEFAULTS.page),
    // Only the offered sizes: a hand-written perPage=100000 would ask the server for everything.
    perPage: (PER_PAGE_CHOICES as readonly number[]).includes(perPage) ? perPage : DEFAULTS.perPage,
    sort: search.get('sort') === 'nextRun' ? 'nextRun' : 'name',
    order: search.get('order') === 'desc' ? 'desc' : 'asc',
  };
}

export function listSearch(params: DagListParams): URLSearchParams {
  const search = new URLSearchParams();
  for (const key of ['search', 'tag', 'page', 'perPage', 'sort', 'order'] as const) {
    if (params[key] !== DEFAULTS[key]) search.set(key, String(params[key]));
  }
  return search;
}

/** A change of filter, sort or page size starts again from the first page. */
export function withChange(params: DagListParams, change: Partial<DagListParams>): DagListParams {
  const resets = Object.keys(change).some((key) => key !== 'page');
  return { ...params, ...(resets ? { page: 1 } : {}), ...change };
}

/** What GET /api/v2/dags is asked: the server filters by name and tag, sorts and pages. */
export function apiQuery(params: DagListParams): DagListQuery {
  return {
    page: params.page,
    perPage: params.perPage,
    sort: params.sort,
    order: params.order,
    ...(params.search.trim() === '' ? {} : { name: params.search.trim() }),
    ...(params.tag === '' ? {} : { tag: params.tag }),
  };
}

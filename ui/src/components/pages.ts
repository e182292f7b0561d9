/**
 * Paging, pure: which page numbers a pager shows, and one page of a list the client holds whole.
 */
export type PageItem = number | 'gap';

/**
 * Which page numbers a pager shows: the first, the last, and two either side of the current,
 * with a gap ("…") where numbers are left out. 1 … 4 5 [6] 7 8 … 25.
 */
export function pageItems(current: number, total: number): PageItem[] {
  const shown = new Set<number>([1, total]);
  for (let page = current - 2; page <= current + 2; page += 1) if (page >= 1 && page <= total) shown.add(page);
  const sorted = [...shown].filter((page) => page >= 1).sort((a, b) => a - b);
  const items: PageItem[] = [];
  for (const [index, page] of sorted.entries()) {
    const before = sorted[index - 1];
    // A gap of one page is shown as that page: "…" would take as much room.
    if (before !== undefined && page - before === 2) items.push(before + 1);
    else if (before !== undefined && page - before > 2) items.push('gap');
    items.push(page);
  }
  return items;
}

/** One page of a list the API answers whole: what to draw, and where it sits in the list. */
export interface PageSlice<T> {
  readonly rows: readonly T[];
  /** The page shown: the one asked for, kept within 1..totalPages (a list can shrink under a page). */
  readonly page: number;
  readonly totalPages: number;
  readonly totalRecords: number;
  /** Where the first row shown sits in the whole list (0-based). */
  readonly offset: number;
}

/**
 * Paging on the client, for answers without paging (GET /dag-runs answers every match). Pages
 * count as the API's do where it pages: at least one page, even of nothing.
 */
export function clientPage<T>(items: readonly T[], page: number, perPage: number): PageSlice<T> {
  const size = Math.max(1, Math.floor(perPage));
  const totalPages = Math.max(1, Math.ceil(items.length / size));
  const current = Math.min(Math.max(1, Math.floor(page)), totalPages);
  const offset = (current - 1) * size;
  return { rows: items.slice(offset, offset + size), page: current, totalPages, totalRecords: items.length, offset };
}

/** Which page of a list the URL shows (`?page=3&perPage=100`); defaults are left out of it. */
export interface PageParams {
  readonly page: number;
  readonly perPage: number;
}

/** The page sizes a list paged on the client offers: only these, so a URL cannot ask for 100,000 rows. */
export const PAGE_SIZES = [25, 50, 100, 200] as const;
export const PAGE_DEFAULTS: PageParams = { page: 1, perPage: 50 };

export function parsePageParams(search: URLSearchParams): PageParams {
  const page = Number(search.get('page'));
  const perPage = Number(search.get('perPage'));
  return {
    page: Number.isInteger(page) && page > 0 ? page : PAGE_DEFAULTS.page,
    perPage: (PAGE_SIZES as readonly number[]).includes(perPage) ? perPage : PAGE_DEFAULTS.perPage,
  };
}

/** The URL's search showing this page; other parameters stay. */
export function withPageParams(search: URLSearchParams, params: PageParams): URLSearchParams {
  const next = new URLSearchParams(search);
  for (const key of ['page', 'perPage'] as const) {
    if (params[key] === PAGE_DEFAULTS[key]) next.delete(key);
    else next.set(key, String(params[key]));
  }
  return next;
}

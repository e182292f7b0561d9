/**
 * v1's forward-only paging of run lists (`limit`, `cursor` -> `nextCursor`). The cursor is the
 * number of runs already given, encoded so that clients treat it as opaque (Dagu's is): a list
 * is newest first, so a run started meanwhile shifts a later page by one, which a client
 * polling the first page sees anyway. Reading stops one run past the page, so memory is one page.
 */
import { ApiError } from '../errors.ts';
import type { RunSummary } from '../views/runs.ts';

export const DEFAULT_LIMIT = 100;

const PREFIX = 'o:';

export function encodeCursor(offset: number): string {
  return Buffer.from(`${PREFIX}${String(offset)}`).toString('base64url');
}

/** The offset a cursor stands for; a cursor this server did not make is a 400. Pure. */
export function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined || cursor === '') return 0;
  const text = Buffer.from(cursor, 'base64url').toString();
  const offset = text.startsWith(PREFIX) ? Number(text.slice(PREFIX.length)) : Number.NaN;
  if (!Number.isSafeInteger(offset) || offset < 0 || encodeCursor(offset) !== cursor)
    throw new ApiError('bad_request', 'malformed cursor: give back a nextCursor this server answered');
  return offset;
}

export interface Page<T> {
  readonly items: T[];
  readonly nextCursor?: string;
}

/**
 * One page of `items`: those `keep` accepts, from `offset` on, at most `limit`, and a cursor when
 * more follow.
 */
export async function pageOf<T>(
  items: Iterable<T> | AsyncIterable<T>,
  options: { offset: number; limit: number; keep?: (item: T) => boolean },
): Promise<Page<T>> {
  const { offset, limit, keep = () => true } = options;
  const taken: T[] = [];
  let seen = 0;
  for await (const item of items) {
    if (!keep(item)) continue;
    seen += 1;
    if (seen <= offset) continue;
    if (taken.length === limit) return { items: taken, nextCursor: encodeCursor(offset + limit) };
    taken.push(item);
  }
  return { items: taken };
}

/** `status` as v1 takes it: the parameter repeated for several statuses. Pure. */
export function statusFilter(
  status: number | readonly number[] | undefined,
): ((summary: RunSummary) => boolean) | undefined {
  if (status === undefined) return undefined;
  const wanted = new Set([status].flat());
  return wanted.size === 0 ? undefined : (summary) => wanted.has(summary.status);
}

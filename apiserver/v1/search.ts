/**
 * Dagu 2.x's search over DAG definitions (`GET /search/dags`, `GET /search/dags/{fileName}/matches`),
 * read in dagucloud/dagu v2.15.1 internal/persis/dag_repository_search.go and
 * internal/textsearch/textsearch.go: the query is a literal text matched case-blind on each
 * line of a DAG's spec text (the text GET /dags/{fileName}/spec answers); a match carries two
 * lines before and after it; the feed goes through DAGs in file-name order with the first match
 * of each, the matches of one DAG page on from there. Cursors are opaque and bound to the query,
 * the labels and (for matches) the DAG: one made for another search is a 400, as in Dagu. Pure.
 */
import { ApiError } from '../errors.ts';

export interface SearchMatch {
  readonly line: string;
  readonly lineNumber: number;
  readonly startLine: number;
}

export interface MatchWindow {
  readonly matches: SearchMatch[];
  readonly hasMore: boolean;
  readonly nextOffset: number;
}

const CONTEXT = 2;

/** Matches of `query` in `text` from the `offset`-th on, at most `limit`; undefined when none at all. */
export function grepWindow(text: string, query: string, offset: number, limit: number): MatchWindow | undefined {
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  const wanted = query.toLowerCase();
  const hits = lines.flatMap((line, index) => (line.toLowerCase().includes(wanted) ? [index] : []));
  if (hits.length === 0) return undefined;
  const taken = hits.slice(offset, offset + limit);
  const matches = taken.map((index) => {
    const start = Math.max(0, index - CONTEXT);
    return {
      line: lines.slice(start, index + CONTEXT + 1).join('\n'),
      lineNumber: index + 1,
      startLine: start + 1,
    };
  });
  const hasMore = hits.length > offset + taken.length;
  return { matches, hasMore, nextOffset: hasMore ? offset + taken.length : 0 };
}

/** Labels as the filter compares them: trimmed, lower case, sorted, joined. */
export function labelScope(labels: string | undefined): string {
  return (labels ?? '')
    .split(',')
    .map((l) => l.trim().toLowerCase())
    .filter((l) => l !== '')
    .sort()
    .join(',');
}

interface CursorState {
  readonly q: string;
  readonly labels: string;
  readonly fileName: string;
  readonly offset?: number;
}

export function encodeSearchCursor(state: CursorState): string {
  return Buffer.from(JSON.stringify({ v: 1, ...state })).toString('base64url');
}

/** The state of a cursor made for this query and labels (and DAG, for matches); else a 400. */
export function decodeSearchCursor(
  cursor: string | undefined,
  scope: { q: string; labels: string; fileName?: string },
): CursorState | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  let state: Partial<CursorState> & { v?: unknown } = {};
  try {
    state = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as typeof state;
  } catch {
    // Not JSON: refused below like any other cursor this server did not make for this search.
  }
  const fits =
    state.v === 1 &&
    state.q === scope.q &&
    state.labels === scope.labels &&
    typeof state.fileName === 'string' &&
    (scope.fileName === undefined || (state.fileName === scope.fileName && Number.isSafeInteger(state.offset)));
  if (!fits) throw new ApiError('bad_request', 'invalid search cursor');
  return state as CursorState;
}

export interface SearchableDag {
  readonly fileName: string;
  readonly tags: readonly string[];
  readonly text: string;
}

export interface FeedItem {
  fileName: string;
  name: string;
  hasMoreMatches: boolean;
  nextMatchesCursor?: string;
  matches: SearchMatch[];
}

/** One page of the feed: DAGs after the cursor's, in file-name order, that have every label and a match. */
export function searchFeed(
  dags: readonly SearchableDag[],
  request: { q: string; labels?: string; cursor?: string; limit: number },
): { results: FeedItem[]; hasMore: boolean; nextCursor?: string } {
  const q = request.q.trim();
  if (q === '') throw new ApiError('bad_request', "query parameter 'q' is required");
  const labels = labelScope(request.labels);
  const after = decodeSearchCursor(request.cursor, { q: request.q, labels })?.fileName ?? '';
  const wanted = labels === '' ? [] : labels.split(',');
  const results: FeedItem[] = [];
  for (const dag of [...dags].sort((a, b) => (a.fileName < b.fileName ? -1 : a.fileName > b.fileName ? 1 : 0))) {
    if (dag.fileName <= after || !wanted.every((l) => dag.tags.includes(l))) continue;
    const window = grepWindow(dag.text, q, 0, 1);
    if (window === undefined) continue;
    if (results.length === request.limit) {
      const last = results.at(-1)?.fileName ?? '';
      return { results, hasMore: true, nextCursor: encodeSearchCursor({ q: request.q, labels, fileName: last }) };
    }
    results.push({
      fileName: dag.fileName,
      name: dag.fileName,
      hasMoreMatches: window.hasMore,
      ...(window.hasMore
        ? {
            nextMatchesCursor: encodeSearchCursor({
              q: request.q,
              labels,
              fileName: dag.fileName,
              offset: window.nextOffset,
            }),
          }
        : {}),
      matches: window.matches,
    });
  }
  return { results, hasMore: false };
}

/** One page of one DAG's matches; none when it lacks a label or has no match. */
export function searchMatches(
  dag: SearchableDag,
  request: { q: string; labels?: string; cursor?: string; limit: number },
): { matches: SearchMatch[]; hasMore: boolean; nextCursor?: string } {
  const q = request.q.trim();
  if (q === '') throw new ApiError('bad_request', "query parameter 'q' is required");
  const labels = labelScope(request.labels);
  const offset = decodeSearchCursor(request.cursor, { q: request.q, labels, fileName: dag.fileName })?.offset ?? 0;
  const wanted = labels === '' ? [] : labels.split(',');
  if (!wanted.every((l) => dag.tags.includes(l))) return { matches: [], hasMore: false };
  const window = grepWindow(dag.text, q, offset, request.limit);
  if (window === undefined) return { matches: [], hasMore: false };
  return {
    matches: window.matches,
    hasMore: window.hasMore,
    ...(window.hasMore
      ? {
          nextCursor: encodeSearchCursor({ q: request.q, labels, fileName: dag.fileName, offset: window.nextOffset }),
        }
      : {}),
  };
}

/**
 * The contract's log chunk over a log's text (behaviour-notes 2, Logs): `tail` wins over
 * `head`, which wins over `offset` (1-based) + `limit`; `limit` defaults to 1,000 and is capped
 * at 10,000. Shared by the operator's log endpoint and the API server. Pure.
 */

export const DEFAULT_LIMIT = 1000;
export const MAX_LIMIT = 10_000;

export interface LogQuery {
  readonly tail?: number;
  readonly head?: number;
  readonly offset?: number;
  readonly limit?: number;
}

export interface LogChunk {
  readonly content: string;
  readonly lineCount: number;
  readonly totalLines: number;
  readonly hasMore: boolean;
  readonly isEstimate: boolean;
}

function lines(text: string): string[] {
  if (text === '') return [];
  const all = text.split('\n');
  if (all.at(-1) === '') all.pop();
  return all;
}

function positive(value: number | undefined): number | undefined {
  return value !== undefined && Number.isInteger(value) && value > 0 ? value : undefined;
}

export function logChunk(text: string, query: LogQuery = {}): LogChunk {
  const all = lines(text);
  const total = all.length;
  const tail = positive(query.tail);
  const head = positive(query.head);
  let start: number;
  let end: number;
  if (tail !== undefined) {
    start = Math.max(0, total - tail);
    end = total;
  } else if (head !== undefined) {
    start = 0;
    end = Math.min(total, head);
  } else {
    const limit = Math.min(positive(query.limit) ?? DEFAULT_LIMIT, MAX_LIMIT);
    start = (positive(query.offset) ?? 1) - 1;
    end = Math.min(total, start + limit);
  }
  const selected = start >= total ? [] : all.slice(start, end);
  // A tail has more when lines before it were left out (Dagu's UI then says "more available");
  // a head or an offset window when lines after it were. Follow-up reads go by offset.
  const hasMore = tail !== undefined ? start > 0 : start < total && end < total;
  return {
    content: selected.join('\n'),
    lineCount: selected.length,
    totalLines: total,
    hasMore,
    isEstimate: false,
  };
}

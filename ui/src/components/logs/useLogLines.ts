/**
 * The lines of one window of a log, through TanStack Query. The tail of a live log is followed:
 * each poll reads only what was written since (from the last line held) and appends it, so a
 * log of 100,000 lines costs one small read every few seconds, not a re-read of its tail.
 */
import { useQuery, useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { ReadChunk } from './download.ts';
import {
  appendLines,
  followQuery,
  PAGE_LINES,
  windowLines,
  windowQuery,
  type LogLines,
  type LogWindow,
} from './paging.ts';

/** How often a live log is read again: often enough to feel live, under a request a second. */
export const LOG_POLL_MS = 2_000;

export function useLogLines(
  key: readonly unknown[],
  read: ReadChunk,
  window: LogWindow,
  live: boolean,
): UseQueryResult<LogLines> {
  const queries = useQueryClient();
  const queryKey =
    window.kind === 'tail' ? [...key, 'tail'] : [...key, 'page', window.offset, window.limit ?? PAGE_LINES];
  const result = useQuery({
    queryKey,
    queryFn: async ({ signal }) => {
      const held = window.kind === 'tail' ? queries.getQueryData<LogLines>(queryKey) : undefined;
      if (held !== undefined) {
        const next = appendLines(held, await read(followQuery(held), signal));
        if (next !== 'restart') return next;
      }
      return windowLines(window, await read(windowQuery(window), signal));
    },
    // A page that is full cannot change; the tail and a short last page grow with a live log.
    refetchInterval: (query) => {
      const lines = query.state.data;
      const growing =
        window.kind === 'tail' || lines === undefined || lines.lines.length < (window.limit ?? PAGE_LINES);
      return live && growing ? LOG_POLL_MS : false;
    },
  });
  // The step ended between two polls: read once more for its last lines.
  const wasLive = useRef(live);
  const { refetch } = result;
  useEffect(() => {
    if (wasLive.current && !live) void refetch();
    wasLive.current = live;
  }, [live, refetch]);
  return result;
}

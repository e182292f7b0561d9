/**
 * The arithmetic of reading a log through the contract's log chunks: which lines to ask for,
 * which line numbers an answer holds, how following a growing log appends to what is shown,
 * and how a whole log is read for download. Pure.
 *
 * The API cuts a chunk by `tail` (the last n lines), or `offset` (1-based) and `limit` (at most
 * 10,000). The view shows one window of a log at a time: its tail (which follows a log that
 * grows) or a page of PAGE_LINES from an offset. Line numbers are those of the whole log.
 */
import type { paths } from '../../api/schema';

/** The contract's largest `limit`: downloads and follow-up reads ask for this many lines. */
export const MAX_LIMIT = 10_000;
/** Lines in a window. Rendering is virtualised, so this bounds transfer, not the DOM. */
export const PAGE_LINES = 5_000;
/** Lines a followed log keeps; older ones are dropped from the top as new ones arrive. */
export const FOLLOW_CAP = 50_000;

/** One chunk of a log as the served document describes it (every log route answers the same shape). */
export type LogChunk = Readonly<
  paths['/api/v2/dag-runs/{name}/{dagRunId}/log']['get']['responses'][200]['content']['application/json']
>;

export interface LogQuery {
  readonly tail?: number;
  readonly offset?: number;
  readonly limit?: number;
}

/** A page has PAGE_LINES lines unless it says fewer (the short first page paging back from a tail). */
export type LogWindow =
  { readonly kind: 'tail' } | { readonly kind: 'page'; readonly offset: number; readonly limit?: number };

export const TAIL: LogWindow = { kind: 'tail' };
export const HEAD: LogWindow = { kind: 'page', offset: 1 };

/** Lines of a log: `lines[0]` is line `first` of `total`. */
export interface LogLines {
  readonly first: number;
  readonly lines: readonly string[];
  readonly total: number;
  /** The server counted the total roughly (a log still being written elsewhere). */
  readonly estimate: boolean;
}

/** The number of the last line held; first - 1 when none are. */
export const lastLine = (view: LogLines): number => view.first + view.lines.length - 1;

/** A chunk's content as lines: the empty log has none, and a final newline ends a line. */
export function splitLines(content: string): string[] {
  if (content === '') return [];
  const lines = content.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

export function windowQuery(window: LogWindow, page = PAGE_LINES): LogQuery {
  return window.kind === 'tail' ? { tail: page } : { offset: window.offset, limit: window.limit ?? page };
}

/** What a window's answer holds, numbered as lines of the whole log. */
export function windowLines(window: LogWindow, chunk: LogChunk): LogLines {
  const lines = splitLines(chunk.content);
  const first = window.kind === 'tail' ? Math.max(1, chunk.totalLines - lines.length + 1) : window.offset;
  return { first, lines, total: chunk.totalLines, estimate: chunk.isEstimate };
}

/**
 * The next read of a followed log: from the last line held, again, since a line still being
 * written (no newline yet) may have grown since; then everything after it.
 */
export function followQuery(view: LogLines): LogQuery {
  return { offset: Math.max(1, lastLine(view)), limit: MAX_LIMIT };
}

/**
 * A followed log with a follow-up read (asked with `followQuery(view)`) added, or 'restart' when
 * the tail must be read afresh: the log is not the one held any more (it shrank, or the line
 * read again is not the line held: a new attempt began a new log), or it grew by more than one
 * read since (the lines in between would be a gap).
 */
export function appendLines(view: LogLines, chunk: LogChunk, cap = FOLLOW_CAP): LogLines | 'restart' {
  const offset = followQuery(view).offset ?? 1;
  // Shrunk: another log. More than one read behind (back on a log left a while): its tail.
  if (chunk.totalLines < lastLine(view) || chunk.hasMore) return 'restart';
  const fresh = splitLines(chunk.content);
  const kept = view.lines.slice(0, Math.max(0, offset - view.first));
  const overlap = view.lines[offset - view.first];
  if (overlap !== undefined && fresh[0]?.startsWith(overlap) !== true) return 'restart';
  const lines = [...kept, ...fresh];
  const drop = Math.max(0, lines.length - cap);
  return {
    first: view.first + drop,
    lines: drop === 0 ? lines : lines.slice(drop),
    total: chunk.totalLines,
    estimate: chunk.isEstimate,
  };
}

/** The page that ends where the lines shown begin, or undefined at the log's start. */
export function previousWindow(view: LogLines, page = PAGE_LINES): LogWindow | undefined {
  if (view.first <= 1) return undefined;
  const offset = Math.max(1, view.first - page);
  const limit = view.first - offset;
  return limit === page ? { kind: 'page', offset } : { kind: 'page', offset, limit };
}

/** The page after the lines shown, or undefined at the log's end. */
export function nextWindow(view: LogLines): LogWindow | undefined {
  const last = lastLine(view);
  return last >= view.total ? undefined : { kind: 'page', offset: last + 1 };
}

/** Where the next download read starts, or undefined when the log has been read to its end. */
export function nextDownloadOffset(offset: number, chunk: LogChunk): number | undefined {
  return chunk.hasMore && chunk.lineCount > 0 ? offset + chunk.lineCount : undefined;
}

// CSI sequences (colours, cursor moves) and OSC sequences (titles, links) from terminal output.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

/**
 * A line as a terminal would leave it: escape sequences gone, and of a line redrawn with
 * carriage returns (a progress bar) only what was drawn last.
 */
export function displayLine(line: string): string {
  const plain = line.replace(ANSI, '').replace(/\r+$/, '');
  return plain.slice(plain.lastIndexOf('\r') + 1);
}

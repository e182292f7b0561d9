/**
 * A whole log, read in chunks of the contract's largest limit and handed to the browser as a
 * file. A log still growing is read up to where it is when the last chunk is asked for.
 */
import { MAX_LIMIT, nextDownloadOffset, splitLines, type LogChunk, type LogQuery } from './paging.ts';

export type ReadChunk = (query: LogQuery, signal?: AbortSignal) => Promise<LogChunk>;

/** Every line of the log, in order; `progress` hears lines read so far and the total. */
export async function readWholeLog(
  read: ReadChunk,
  progress?: (done: number, total: number) => void,
  signal?: AbortSignal,
): Promise<string> {
  const parts: string[] = [];
  let done = 0;
  for (let offset: number | undefined = 1; offset !== undefined;) {
    const chunk = await read({ offset, limit: MAX_LIMIT }, signal);
    const lines = splitLines(chunk.content);
    parts.push(...lines);
    done += lines.length;
    progress?.(done, Math.max(done, chunk.totalLines));
    offset = nextDownloadOffset(offset, chunk);
  }
  return parts.length === 0 ? '' : `${parts.join('\n')}\n`;
}

/** A file name from parts of a log's address: letters, digits, dot, dash and underscore only. */
export function logFileName(parts: readonly string[]): string {
  return `${parts.map((p) => p.replace(/[^A-Za-z0-9._-]+/g, '_')).join('.')}.log`;
}

/** Saves text as a download, through a temporary object URL (no data: URL, which the CSP forbids). */
export function saveText(text: string, fileName: string, doc: Document = document): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  const anchor = doc.createElement('a');
  anchor.href = url;
  anchor.download = fileName;
  anchor.style.display = 'none';
  doc.body.append(anchor);
  anchor.click();
  anchor.remove();
  // The download has taken the blob by the time the click returns; revoke on the next turn.
  setTimeout(() => {
    URL.revokeObjectURL(url);
  }, 0);
}

/**
 * Search results as the page shows them: the server sends, for each line of a DAG's spec that
 * matches, that line with one line either side; lines that match next to each other come back
 * as overlapping blocks. Here they are merged into runs of consecutive lines, each numbered,
 * the matching ones marked, and the text the query matched within them highlighted.
 */

export interface SearchMatch {
  /** The matching line with its context, lines joined by newline. */
  readonly line: string;
  /** 1-based number of the matching line. */
  readonly lineNumber: number;
  /** 1-based number of the block's first line. */
  readonly startLine: number;
}

export interface Part {
  readonly text: string;
  readonly hit: boolean;
}

export interface SnippetLine {
  readonly number: number;
  /** The server matched this line (not only context). */
  readonly matched: boolean;
  readonly parts: readonly Part[];
}

/**
 * The query as the server reads it: a case-insensitive regular expression. Text that is no
 * valid expression (the server refuses it) is highlighted literally, so the page never throws.
 */
export function searchPattern(query: string): RegExp {
  try {
    return new RegExp(query, 'gi');
  } catch {
    return new RegExp(query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi');
  }
}

/** The text cut into parts the pattern matched and parts it did not; empty matches mark nothing. */
export function highlight(text: string, pattern: RegExp): Part[] {
  const global = pattern.global ? pattern : new RegExp(pattern.source, `${pattern.flags}g`);
  const parts: Part[] = [];
  let at = 0;
  for (const found of text.matchAll(global)) {
    if (found[0] === '') continue;
    if (found.index > at) parts.push({ text: text.slice(at, found.index), hit: false });
    parts.push({ text: found[0], hit: true });
    at = found.index + found[0].length;
  }
  if (at < text.length || parts.length === 0) parts.push({ text: text.slice(at), hit: false });
  return parts;
}

/** The matches' lines merged into snippets of consecutive lines, in order, each line once. */
export function snippets(matches: readonly SearchMatch[], pattern: RegExp): SnippetLine[][] {
  const lines = new Map<number, string>();
  for (const match of matches) {
    match.line.split('\n').forEach((text, offset) => lines.set(match.startLine + offset, text));
  }
  const matched = new Set(matches.map((m) => m.lineNumber));
  const result: SnippetLine[][] = [];
  let previous: number | undefined;
  for (const number of [...lines.keys()].sort((a, b) => a - b)) {
    const line: SnippetLine = {
      number,
      matched: matched.has(number),
      parts: highlight(lines.get(number) ?? '', pattern),
    };
    const current = result.at(-1);
    if (current !== undefined && previous === number - 1) current.push(line);
    else result.push([line]);
    previous = number;
  }
  return result;
}

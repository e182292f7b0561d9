import YAML from 'yaml';
import { issue, type DagIssue } from './issues.ts';

/** DAG files larger than this are refused before parsing (etcd objects top out near 1.5 MB). */
export const MAX_FILE_BYTES = 1024 * 1024;
/** Bounds alias expansion so that a "billion laughs" file cannot exhaust memory. */
export const MAX_ALIAS_COUNT = 100;
/** Nesting deeper than any real DAG needs; deeper input is refused before anything walks it. */
export const MAX_DEPTH = 64;

export interface YamlDocument {
  /** The document as plain JSON-compatible data. */
  readonly value: unknown;
  /** 1-based line where the document starts, for messages about later documents. */
  readonly line: number;
}

export interface YamlParse {
  readonly documents: YamlDocument[];
  readonly errors: DagIssue[];
}

/**
 * Parses every `---`-separated document of a DAG file into plain data. Never throws: size,
 * syntax, duplicate keys, alias bombs and runaway nesting all come back as errors.
 */
export function parseYamlDocuments(text: string): YamlParse {
  const size = Buffer.byteLength(text, 'utf8');
  if (size > MAX_FILE_BYTES) {
    return fail(`file is ${size} bytes; a DAG file may be at most ${MAX_FILE_BYTES} bytes (1 MiB)`);
  }
  try {
    return toDocuments(text);
  } catch (error) {
    // The YAML composer recurses per nesting level; a pathological file can exhaust the stack.
    if (error instanceof RangeError) return fail(`YAML nesting is too deep (more than ${MAX_DEPTH} levels)`);
    if (error instanceof ReferenceError) return fail(`YAML uses too many aliases (more than ${MAX_ALIAS_COUNT})`);
    throw error;
  }
}

function toDocuments(text: string): YamlParse {
  const documents: YamlDocument[] = [];
  const errors: DagIssue[] = [];
  const lineStarts = lineIndex(text);
  for (const doc of YAML.parseAllDocuments(text, { prettyErrors: false, uniqueKeys: true })) {
    const line = lineOf(lineStarts, doc.range[0]);
    if (doc.errors.length > 0) {
      for (const e of doc.errors) errors.push(issue('', yamlErrorMessage(e, lineStarts)));
      continue;
    }
    const value: unknown = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    if (depthExceeds(value, MAX_DEPTH)) {
      errors.push(issue('', `YAML nesting is too deep (more than ${MAX_DEPTH} levels)`));
      continue;
    }
    documents.push({ value, line });
  }
  return { documents, errors };
}

function yamlErrorMessage(error: YAML.YAMLError, lineStarts: readonly number[]): string {
  const message = error.message.split('\n')[0] ?? error.message;
  const offset = error.pos[0];
  const line = lineOf(lineStarts, offset);
  const column = offset - (lineStarts[line - 1] ?? 0) + 1;
  return `invalid YAML at line ${line}, column ${column}: ${message}`;
}

/** Iterative so that the check itself cannot overflow the stack. */
function depthExceeds(root: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[root, 1]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [value, depth] = next;
    if (value === null || typeof value !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return false;
}

function lineIndex(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

function lineOf(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) low = mid;
    else high = mid - 1;
  }
  return low + 1;
}

function fail(message: string): YamlParse {
  return { documents: [], errors: [issue('', message)] };
}

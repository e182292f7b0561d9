/**
 * From a problem's path in a DAG file (`steps[2].retryPolicy.limit`, the notation of the
 * server's messages, core/dag/issues.ts) to the characters of the YAML text it is about, with
 * the source ranges the `yaml` package keeps for every node.
 */
import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  type Document,
  type LineCounter,
  type Node,
  type Pair,
  type YAMLMap,
} from 'yaml';

export type Segment = string | number;

export interface Span {
  readonly from: number;
  readonly to: number;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_-]*/;
const INDEX = /^\[(0|[1-9]\d*)\]/;
const QUOTED = /^\[("(?:[^"\\]|\\.)*")\]/;

/** Reads one segment at the start of `text`: a key, `.key`, `[3]` or `["odd key"]`. */
function segmentAt(text: string, first: boolean): { segment: Segment; length: number } | undefined {
  const index = INDEX.exec(text);
  if (index?.[1] !== undefined) return { segment: Number(index[1]), length: index[0].length };
  const quoted = QUOTED.exec(text);
  if (quoted?.[1] !== undefined) return { segment: JSON.parse(quoted[1]) as string, length: quoted[0].length };
  const dotted = first ? text : text.startsWith('.') ? text.slice(1) : undefined;
  const ident = dotted === undefined ? null : IDENT.exec(dotted);
  if (ident === null) return undefined;
  return { segment: ident[0], length: ident[0].length + (first ? 0 : 1) };
}

/**
 * Splits a server message `steps[0].depends: unknown step "b"` into its path and the rest.
 * A message without a path (about the file as a whole) has the empty path.
 */
export function splitMessage(message: string): { readonly path: Segment[]; readonly text: string } {
  const path: Segment[] = [];
  let rest = message;
  for (let next = segmentAt(rest, true); next !== undefined; next = segmentAt(rest, false)) {
    path.push(next.segment);
    rest = rest.slice(next.length);
  }
  if (path.length === 0 || !rest.startsWith(': ')) return { path: [], text: message };
  return { path, text: rest.slice(2) };
}

/** A path in the server's notation (core/dag/issues.ts childPath). */
export function pathText(path: readonly Segment[]): string {
  return path.reduce<string>((text, segment) => {
    if (typeof segment === 'number') return `${text}[${String(segment)}]`;
    if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(segment)) return `${text}[${JSON.stringify(segment)}]`;
    return text === '' ? segment : `${text}.${segment}`;
  }, '');
}

/** A JSON Pointer (`/steps/0/name`, as ajv reports) as path segments. */
export function pointerSegments(pointer: string): Segment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((token) => (/^(0|[1-9]\d*)$/.test(token) ? Number(token) : token));
}

/** Later documents of a file are `documents[n]` in the server's paths; the first has no prefix. */
export function documentOf(path: readonly Segment[]): { readonly index: number; readonly rest: Segment[] } {
  const [first, second] = path;
  if (first === 'documents' && typeof second === 'number') return { index: second, rest: path.slice(2) };
  return { index: 0, rest: [...path] };
}

// The server matches keys without regard to case, and Kubernetes keys also in snake_case.
const loose = (key: string): string => key.toLowerCase().replaceAll('_', '');

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  const named = (pair: Pair, same: (written: string) => boolean): boolean =>
    isScalar(pair.key) && same(String(pair.key.value));
  return (
    map.items.find((pair) => named(pair, (written) => written === key)) ??
    map.items.find((pair) => named(pair, (written) => loose(written) === loose(key)))
  );
}

interface Walk {
  /** The deepest node reached. */
  readonly node: unknown;
  /** The key of the last mapping entry walked into, if the last step was one. */
  readonly key: Node | undefined;
  readonly complete: boolean;
}

function walk(doc: Document.Parsed, path: readonly Segment[]): Walk {
  let node: unknown = doc.contents;
  let key: Node | undefined;
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(doc);
    if (typeof segment === 'string' && isMap(node)) {
      const pair = pairOf(node, segment);
      if (pair === undefined) return { node, key, complete: false };
      key = isScalar(pair.key) ? pair.key : undefined;
      node = pair.value;
    } else if (typeof segment === 'number' && isSeq(node) && segment < node.items.length) {
      key = undefined;
      node = node.items[segment];
    } else {
      return { node, key, complete: false };
    }
  }
  return { node, key, complete: true };
}

const rangeOf = (node: unknown): [number, number] | undefined => {
  const range = (node as { range?: [number, number, number] | null } | null)?.range;
  return range === undefined || range === null ? undefined : [range[0], range[1]];
};

/** The span ends at the end of its first line: a whole block underlined reads as noise. */
function firstLine(text: string, from: number, to: number): Span {
  const newline = text.indexOf('\n', from);
  const end = Math.min(to, newline === -1 ? text.length : newline);
  return { from, to: end > from ? end : Math.min(text.length, from + 1) };
}

/**
 * The characters a problem at `path` is about: the value when the path leads to a written
 * scalar, else the key it hangs under (a missing key's parent, an unknown key itself when
 * `preferKey`), else the first line of the deepest node found, else the document's start.
 */
export function locate(text: string, doc: Document.Parsed, path: readonly Segment[], preferKey = false): Span {
  const { node, key, complete } = walk(doc, path);
  const value = rangeOf(node);
  if (complete && !preferKey && isScalar(node) && value !== undefined && value[1] > value[0])
    return firstLine(text, value[0], value[1]);
  const keyRange = rangeOf(key);
  if (keyRange !== undefined) return firstLine(text, keyRange[0], keyRange[1]);
  if (value !== undefined) return firstLine(text, value[0], value[1]);
  const start = rangeOf(doc.contents)?.[0] ?? rangeOf(doc)?.[0] ?? 0;
  return firstLine(text, start, text.length);
}

/** The offset of a 1-based line and column, as the server's YAML messages give them. */
export function offsetAt(lines: LineCounter, text: string, line: number, column: number): number {
  const start = lines.lineStarts[line - 1];
  return start === undefined ? text.length : Math.min(text.length, start + column - 1);
}

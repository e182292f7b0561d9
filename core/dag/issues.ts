/**
 * Problems found while loading a DAG file. Expected problems are values, not exceptions: a
 * loader collects all of them so that a user fixes a file in one pass.
 */
export interface DagIssue {
  /** Where the problem is, as `steps[2].retryPolicy.backoff`; empty for the file as a whole. */
  readonly path: string;
  readonly message: string;
}

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** Appends a mapping key or list index to a path, quoting keys that would read ambiguously. */
export function childPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  if (!PLAIN_KEY.test(key)) return `${base}[${JSON.stringify(key)}]`;
  return base === '' ? key : `${base}.${key}`;
}

/** Turns a JSON Pointer (`/steps/2/name`) into the path notation above. */
export function pointerToPath(pointer: string): string {
  if (pointer === '') return '';
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce((path, token) => childPath(path, /^(0|[1-9]\d*)$/.test(token) ? Number(token) : token), '');
}

export function formatIssue(issue: DagIssue): string {
  return issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`;
}

export function issue(path: string, message: string): DagIssue {
  return { path, message };
}

/** Prefixes every issue's path, used when a problem found in a part belongs to the whole. */
export function nestIssues(prefix: string, issues: readonly DagIssue[]): DagIssue[] {
  return issues.map((i) => ({
    path: i.path === '' ? prefix : `${prefix}${i.path.startsWith('[') ? '' : '.'}${i.path}`,
    message: i.message,
  }));
}

/** One issue when a check found a problem, none when it returned undefined. */
export function issueIf(path: string, problem: string | undefined): DagIssue[] {
  return problem === undefined ? [] : [issue(path, problem)];
}

/** Checks every item of an optional list at its own path. */
export function eachItem<T>(
  list: readonly T[] | undefined,
  path: string,
  check: (item: T, at: string, index: number) => DagIssue[],
): DagIssue[] {
  return (list ?? []).flatMap((item, i) => check(item, childPath(path, i), i));
}

/** Where a reader collects what it found: problems, and warnings that do not stop a load. */
export interface Diagnostics {
  readonly errors: DagIssue[];
  readonly warnings: DagIssue[];
}

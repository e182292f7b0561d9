/**
 * DAG resources as the contract's DAG list items, details, spec, search results and tags.
 * Loading a DAG is the costly part of every DAG answer, so each cached resource is loaded
 * once: cached objects are frozen and replaced on change, which makes them memo keys.
 */
import { createHash } from 'node:crypto';
import { dump } from 'js-yaml';
import { conditionObject, dagDetails, dagSummary, type DagDetails, type DagSummary } from '../../core/dag/api.ts';
import { formatIssue, loadDag, nextStart, type Dag, type DagLoad } from '../../core/dag/index.ts';
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import { specDocuments, type DagResource } from '../../core/resources/types.ts';
import { compareText } from './format.ts';
import { pendingNode, runSummary, type RunDetails, type RunSummary } from './runs.ts';
import type { DagRunResource } from '../../core/resources/types.ts';

export interface DagEntry {
  readonly fileName: string;
  readonly resource: DagResource;
  /** The text GET /spec answers: as last written through the API, else rendered from the resource. */
  readonly yaml: string;
  readonly load: DagLoad;
  readonly errors: string[];
  readonly suspended: boolean;
}

/** Key order does not change a spec: the API server re-encodes objects in its own order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export function specDigest(spec: Record<string, unknown>): string {
  return createHash('sha256').update(canonical(spec)).digest('hex');
}

export function renderYaml(spec: Record<string, unknown>): string {
  return specDocuments(spec)
    .map((document) => dump(document, { lineWidth: -1, noRefs: true }))
    .join('---\n');
}

const entries = new WeakMap<DagResource, DagEntry>();

export function dagEntry(resource: DagResource): DagEntry {
  const known = entries.get(resource);
  if (known !== undefined) return known;
  const annotations = resource.metadata?.annotations ?? {};
  const fileName = annotations[ANNOTATIONS.fileName] ?? resource.metadata?.name ?? '';
  const written = annotations[ANNOTATIONS.specYaml];
  const yaml =
    written !== undefined && annotations[ANNOTATIONS.specDigest] === specDigest(resource.spec)
      ? written
      : renderYaml(resource.spec);
  const load = loadDag(yaml, { fileName });
  const entry = {
    fileName,
    resource,
    yaml,
    load,
    errors: load.errors.map(formatIssue),
    suspended: annotations[ANNOTATIONS.suspended] === 'true',
  };
  entries.set(resource, entry);
  return entry;
}

export interface DagListItem {
  fileName: string;
  dag: DagSummary;
  latestDAGRun: RunSummary;
  suspended: boolean;
  errors: string[];
}

/** A DAG that never ran still shows a latest run: status 0 with empty ids and times. */
export function neverRan(name: string): RunSummary {
  return {
    rootDAGRunName: name,
    rootDAGRunId: '',
    parentDAGRunName: '',
    parentDAGRunId: '',
    dagRunId: '',
    name,
    status: 0,
    statusLabel: 'not_started',
    queuedAt: '',
    startedAt: '',
    finishedAt: '',
    log: '',
    params: '',
  };
}

export function latestSummary(name: string, latest: DagRunResource | undefined): RunSummary {
  return latest === undefined ? neverRan(name) : runSummary(latest);
}

export function dagListItem(entry: DagEntry, latest: DagRunResource | undefined): DagListItem {
  return {
    fileName: entry.fileName,
    dag: dagSummary(entry.load.dag),
    latestDAGRun: latestSummary(entry.load.dag.name, latest),
    suspended: entry.suspended,
    errors: entry.errors,
  };
}

export interface DagDetailsView {
  dag: DagDetails;
  localDags: { name: string; dag: DagDetails; errors: string[] }[];
  latestDAGRun: RunDetails;
  suspended: boolean;
  errors: string[];
}

/**
 * The latest run of a DAG that never ran, in full, as Dagu answers it: the summary of
 * `neverRan`, a node per step and per handler the DAG defines, all not started, and the DAG's
 * preconditions. Dagu's web UI draws a DAG's page from these nodes.
 */
export function neverRanDetails(dag: Dag): RunDetails {
  const handler = (step: Dag['handlerOn'][keyof Dag['handlerOn']]): RunDetails['onExit'] =>
    step === undefined ? null : pendingNode(step);
  return {
    ...neverRan(dag.name),
    nodes: dag.steps.map(pendingNode),
    // Dagu 2.x's two, as a run's details have them: only for a DAG that defines them.
    ...(dag.handlerOn.init === undefined ? {} : { onInit: handler(dag.handlerOn.init) }),
    ...(dag.handlerOn.wait === undefined ? {} : { onWait: handler(dag.handlerOn.wait) }),
    onExit: handler(dag.handlerOn.exit),
    onSuccess: handler(dag.handlerOn.success),
    onFailure: handler(dag.handlerOn.failure),
    onCancel: handler(dag.handlerOn.cancel),
    preconditions: dag.preconditions.map((c) => ({ ...conditionObject(c), error: '' })),
  };
}

/** `latest`: the details of the DAG's latest run (as GET /dag-runs/{name}/{id} answers them), if it ran. */
export function dagDetailsView(entry: DagEntry, latest: RunDetails | undefined): DagDetailsView {
  const localDags = entry.load.localDags
    .map((local) => ({ name: local.name, dag: dagDetails(local.dag), errors: local.errors.map(formatIssue) }))
    .sort((a, b) => compareText(a.name, b.name));
  return {
    dag: dagDetails(entry.load.dag),
    localDags,
    latestDAGRun: latest ?? neverRanDetails(entry.load.dag),
    suspended: entry.suspended,
    errors: entry.errors,
  };
}

export interface DagQuery {
  page?: number;
  perPage?: number;
  name?: string;
  tag?: string;
  /** Dagu 2.x's (/api/v1) filter: comma-separated tags, every one of which a DAG has. */
  labels?: string;
  sort?: string;
  order?: string;
}

export interface Pagination {
  totalRecords: number;
  currentPage: number;
  totalPages: number;
  nextPage: number | null;
  prevPage: number | null;
}

export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 1000;

export function paginate<T>(
  items: readonly T[],
  page: number | undefined,
  perPage: number | undefined,
): { items: T[]; pagination: Pagination } {
  const size = perPage === undefined || perPage <= 0 ? DEFAULT_PER_PAGE : Math.min(perPage, MAX_PER_PAGE);
  const current = page === undefined || page < 1 ? 1 : Math.floor(page);
  const totalPages = Math.max(1, Math.ceil(items.length / size));
  return {
    items: items.slice((current - 1) * size, current * size),
    pagination: {
      totalRecords: items.length,
      currentPage: current,
      totalPages,
      nextPage: current < totalPages ? current + 1 : null,
      prevPage: current > 1 ? Math.min(current - 1, totalPages) : null,
    },
  };
}

const byName = (a: DagEntry, b: DagEntry): number =>
  compareText(a.load.dag.name.toLowerCase(), b.load.dag.name.toLowerCase()) || compareText(a.fileName, b.fileName);

/** Filters and sorts per behaviour-notes "DAG definitions"; unscheduled DAGs last under nextRun. */
export function selectDags(all: readonly DagEntry[], query: DagQuery, now: Date): DagEntry[] {
  const name = query.name?.toLowerCase() ?? '';
  const tag = query.tag?.trim().toLowerCase() ?? '';
  const labels = (query.labels ?? '')
    .split(',')
    .map((l) => l.trim().toLowerCase())
    .filter((l) => l !== '');
  const chosen = all.filter(
    (e) =>
      e.fileName.toLowerCase().includes(name) &&
      (tag === '' || e.load.dag.tags.includes(tag)) &&
      labels.every((l) => e.load.dag.tags.includes(l)),
  );
  const desc = query.order === 'desc';
  if (query.sort === 'nextRun') {
    const next = new Map(chosen.map((e) => [e, nextStart(e.load.dag.schedule, now)?.getTime()]));
    return chosen.sort((a, b) => {
      const [x, y] = [next.get(a), next.get(b)];
      if (x === undefined || y === undefined) return x === y ? byName(a, b) : x === undefined ? 1 : -1;
      return (desc ? y - x : x - y) || byName(a, b);
    });
  }
  return chosen.sort((a, b) => (desc ? byName(b, a) : byName(a, b)));
}

export interface SearchMatch {
  line: string;
  lineNumber: number;
  startLine: number;
}

/** Lines matching `pattern`, each with one line of context either side. */
export function searchText(text: string, pattern: RegExp): SearchMatch[] {
  const lines = text.split('\n');
  const matches: SearchMatch[] = [];
  lines.forEach((line, i) => {
    pattern.lastIndex = 0;
    if (!pattern.test(line)) return;
    const start = Math.max(0, i - 1);
    matches.push({ line: lines.slice(start, i + 2).join('\n'), lineNumber: i + 1, startLine: start + 1 });
  });
  return matches;
}

export function uniqueTags(all: readonly DagEntry[]): string[] {
  return [...new Set(all.flatMap((e) => e.load.dag.tags))].sort();
}

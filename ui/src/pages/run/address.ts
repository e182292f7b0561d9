/**
 * Where a run is: its DAG name and run id, and for a sub-run the root's (the API serves
 * sub-runs under their root run). The page's URL, the breadcrumbs back to the parent and root,
 * what can be done with the run, and its params as a list, all from the run details. Pure.
 */
import { links } from '../../lib/links.ts';

export interface RunAddress {
  /** The root run's DAG name and id; the run itself when it is a root run. */
  readonly name: string;
  readonly dagRunId: string;
  /** Set for a sub-run: its own run id. */
  readonly subDagRunId?: string;
}

/** The route parameters of a run page or log page, as React Router gives them. */
export function runAddress(params: Readonly<Record<string, string | undefined>>): RunAddress | undefined {
  const { name, dagRunId, subDagRunId } = params;
  if (name === undefined || dagRunId === undefined) return undefined;
  return subDagRunId === undefined ? { name, dagRunId } : { name, dagRunId, subDagRunId };
}

export function runPage(address: RunAddress): string {
  return address.subDagRunId === undefined
    ? links.run(address.name, address.dagRunId)
    : links.subRun(address.name, address.dagRunId, address.subDagRunId);
}

/** Who a run is, as the run details say (the contract's summary fields). */
export interface RunLineage {
  readonly name: string;
  readonly dagRunId: string;
  readonly rootDAGRunName: string;
  readonly rootDAGRunId: string;
  readonly parentDAGRunName: string;
  readonly parentDAGRunId: string;
}

export interface Crumb {
  readonly label: string;
  /** What the crumb is, for people who cannot see the layout: "DAG", "run", "sub-run". */
  readonly kind: 'dag' | 'run' | 'sub-run' | 'gap';
  /** Absent for the page itself and for the gap before a parent deeper than the root's child. */
  readonly href?: string;
}

/**
 * DAG › root run › … › parent › this run. The run details name the parent and the root; runs
 * between them (a sub-run of a sub-run of a sub-run) are a gap the parent's page fills in.
 */
export function breadcrumbs(run: RunLineage): Crumb[] {
  const isRoot = run.parentDAGRunId === '';
  const rootName = isRoot ? run.name : run.rootDAGRunName;
  const rootId = isRoot ? run.dagRunId : run.rootDAGRunId;
  const crumbs: Crumb[] = [{ label: rootName, kind: 'dag', href: links.dag(rootName) }];
  if (isRoot) return [...crumbs, { label: run.dagRunId, kind: 'run' }];
  crumbs.push({ label: rootId, kind: 'run', href: links.run(rootName, rootId) });
  const parentIsRoot = run.parentDAGRunId === rootId && run.parentDAGRunName === rootName;
  if (!parentIsRoot) {
    crumbs.push({ label: '…', kind: 'gap' });
    crumbs.push({
      label: `${run.parentDAGRunName} ${run.parentDAGRunId}`,
      kind: 'sub-run',
      href: links.subRun(rootName, rootId, run.parentDAGRunId),
    });
  }
  return [...crumbs, { label: `${run.name} ${run.dagRunId}`, kind: 'sub-run' }];
}

/** Runs still to end: not started, running, queued. */
export function isActive(run: { readonly status: number; readonly finishedAt: string }): boolean {
  return run.finishedAt === '' && (run.status === 0 || run.status === 1 || run.status === 5);
}

export interface RunActions {
  readonly stop: boolean;
  readonly dequeue: boolean;
  /** Retry the whole run (under a new id or in place), and reschedule it. */
  readonly retry: boolean;
  readonly reschedule: boolean;
  /** Per step: retry that step alone, in place. */
  readonly retryStep: boolean;
  /** Per step: set its status, before a retry. */
  readonly editStep: boolean;
}

/**
 * What the API lets one do with a run in its state. Stop, retry, reschedule and dequeue have
 * only root-run routes; a sub-run's steps can have their status set (there is a sub-run route).
 * The API refuses a step status edit while the run is active.
 */
export function runActions(run: { readonly status: number; readonly finishedAt: string }, sub: boolean): RunActions {
  const ended = !isActive(run);
  return {
    stop: !sub && run.status === 1,
    dequeue: !sub && run.status === 5,
    retry: !sub && ended,
    reschedule: !sub && ended,
    retryStep: !sub && ended,
    editStep: ended,
  };
}

/** The run's params as the API gives them (JSON): a list of NAME=value, or the text itself. */
export function paramList(params: string): string[] {
  if (params.trim() === '') return [];
  try {
    const parsed: unknown = JSON.parse(params);
    if (Array.isArray(parsed)) return parsed.map((p) => (typeof p === 'string' ? p : JSON.stringify(p)));
    if (typeof parsed === 'object' && parsed !== null)
      return Object.entries(parsed).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  } catch {
    // Not JSON: shown as written.
  }
  return [params];
}

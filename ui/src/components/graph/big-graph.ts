/**
 * What a step graph shows when it is too big to draw box by box. dagre's layout grows faster
 * than the steps (about 130 ms for 200 steps in ranks on this project's 2-core machine, 250 ms
 * for 300, and far worse past that), and a canvas of thousands of boxes is no picture anyone
 * can read. So a graph of more than DRAWN_MAX steps is never laid out whole: it shows its steps
 * grouped by status, and draws them WINDOW_STEPS at a time (in the definition's order) on
 * request, leaving out the arrows to steps outside the window and saying how many.
 *
 * Pure: the component (GroupedGraph.tsx) draws what these decide.
 */
import type { GraphStep } from './layout.ts';

/** Most steps a graph lays out and draws whole. */
export const DRAWN_MAX = 200;
/** Steps drawn at a time when a graph is too big to draw whole. */
export const WINDOW_STEPS = 100;

export function drawsWhole(stepCount: number): boolean {
  return stepCount <= DRAWN_MAX;
}

/** Steps of one status: a label as the API gives it, or '' for steps without one (no run yet). */
export interface StatusGroup {
  readonly status: string;
  readonly count: number;
}

/** What needs a look first: running, then what went wrong, then what went well, then the rest. */
const GROUP_ORDER = [
  'running',
  'failed',
  'partially_succeeded',
  'canceled',
  'succeeded',
  'skipped',
  'queued',
  'not_started',
];

const rank = (status: string): number => {
  const known = GROUP_ORDER.indexOf(status);
  if (known >= 0) return known;
  // A label this build does not know comes after the known ones; no status at all comes last.
  return status === '' ? GROUP_ORDER.length + 1 : GROUP_ORDER.length;
};

/** The steps counted by status, in GROUP_ORDER; statuses no step has are left out. */
export function statusGroups(steps: readonly Pick<GraphStep, 'status'>[]): StatusGroup[] {
  const counts = new Map<string, number>();
  for (const step of steps) {
    const status = step.status ?? '';
    counts.set(status, (counts.get(status) ?? 0) + 1);
  }
  return [...counts]
    .map(([status, count]) => ({ status, count }))
    .sort((a, b) => rank(a.status) - rank(b.status) || a.status.localeCompare(b.status));
}

export interface GraphWindow<T> {
  readonly steps: readonly T[];
  /** The window shown, kept within 1..windows. */
  readonly page: number;
  readonly windows: number;
  /** The steps shown, by their place in the definition (1-based, inclusive). */
  readonly first: number;
  readonly last: number;
  /** Dependencies between a step of the window and one outside it: arrows not drawn. */
  readonly cut: number;
}

/** The `page`th window of `size` steps, in the order given (the definition's). */
export function graphWindow<T extends Pick<GraphStep, 'name' | 'depends'>>(
  steps: readonly T[],
  page: number,
  size = WINDOW_STEPS,
): GraphWindow<T> {
  const windows = Math.max(1, Math.ceil(steps.length / size));
  const current = Math.min(Math.max(1, Math.floor(page)), windows);
  const start = (current - 1) * size;
  const shown = steps.slice(start, start + size);
  const inside = new Set(shown.map((step) => step.name));
  const names = new Set(steps.map((step) => step.name));
  let cut = 0;
  for (const step of steps) {
    for (const dep of new Set(step.depends)) {
      // Only real edges: a dependency on a name that is no step is not drawn in any case.
      if (dep !== step.name && names.has(dep) && inside.has(dep) !== inside.has(step.name)) cut += 1;
    }
  }
  return {
    steps: shown,
    page: current,
    windows,
    first: shown.length === 0 ? 0 : start + 1,
    last: start + shown.length,
    cut,
  };
}

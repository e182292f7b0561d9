/**
 * A `parallel` step: one child run per item, at most `maxConcurrent` at once; the step ends
 * when every child has, failed if any child failed, partially succeeded if any child did, and
 * its output is `{summary, results, outputs}` (behaviour-notes 8). Pure.
 */
import type { Parallel, Step } from '../../../core/dag/index.ts';
import type { RunNode } from '../../../core/resources/schemas.ts';
import type { AttemptReport } from './attempt-verdict.ts';
import { foreachOutput } from './foreach-keys.ts';

export interface ItemChild {
  readonly item: number;
  readonly name: string;
  /** Undefined while the child runs. */
  readonly report?: AttemptReport;
}

export interface FanOut {
  /** Items to start now. */
  readonly start: readonly number[];
  /** The step's report once every item's child has finished. */
  readonly report?: AttemptReport;
  readonly subRuns: NonNullable<RunNode['subRuns']>;
}

interface ChildResult {
  readonly status?: string;
  readonly outputs?: Record<string, string>;
}

export function fanOut(
  step: Step,
  items: readonly unknown[],
  children: readonly ItemChild[],
  subRunId: (item: number) => string,
  vars: Readonly<Record<string, string>> = {},
): FanOut {
  const byItem = new Map(children.map((c) => [c.item, c]));
  const running = children.filter((c) => c.report === undefined).length;
  const limit = step.parallel?.maxConcurrent ?? 0;
  const free = limit > 0 ? Math.max(0, limit - running) : Number.POSITIVE_INFINITY;
  const start = items
    .map((_, i) => i)
    .filter((i) => !byItem.has(i))
    .slice(0, free);
  const subRuns = items.map((_, i) => {
    const result = byItem.get(i)?.report?.stdout;
    const status = result === undefined ? undefined : (JSON.parse(result) as ChildResult).status;
    return { dagRunId: subRunId(i), ...(status === undefined ? {} : { status }) };
  });
  const finished = children.filter((c) => c.report !== undefined);
  if (finished.length < items.length && items.length > 0) return { start, subRuns };
  const keyed = step.parallel !== undefined && (step.parallel.key !== undefined || step.parallel.collect !== undefined);
  return { start, subRuns, report: keyed ? keyedAggregate(step.parallel, items, finished, vars) : aggregate(finished) };
}

/** A Dagu 2.x foreach with `key` or `collect`: its output in Dagu's shape (foreach-keys.ts). */
function keyedAggregate(
  parallel: Parallel,
  items: readonly unknown[],
  finished: readonly ItemChild[],
  vars: Readonly<Record<string, string>>,
): AttemptReport {
  const runs = finished.map((c) => ({
    index: c.item,
    status: c.report?.childStatus ?? '',
    nodes: c.report?.childNodes ?? [],
  }));
  const { output, failed, partial } = foreachOutput(parallel, items, runs, vars);
  return {
    exitCode: failed > 0 ? 1 : 0,
    preconditionUnmet: false,
    stdout: output,
    childStatus: failed > 0 ? 'failed' : partial ? 'partially_succeeded' : 'succeeded',
  };
}

function aggregate(finished: readonly ItemChild[]): AttemptReport {
  const results = finished.map((c) => JSON.parse(c.report?.stdout ?? '{}') as ChildResult);
  const failed = results.filter((r) => r.status !== 'succeeded' && r.status !== 'partially_succeeded').length;
  const partial = results.some((r) => r.status === 'partially_succeeded');
  const output = {
    summary: { total: results.length, succeeded: results.length - failed, failed },
    results,
    outputs: results
      .filter((r) => r.status === 'succeeded' || r.status === 'partially_succeeded')
      .map((r) => r.outputs ?? {}),
  };
  return {
    exitCode: failed > 0 ? 1 : 0,
    preconditionUnmet: false,
    stdout: JSON.stringify(output),
    childStatus: failed > 0 ? 'failed' : partial ? 'partially_succeeded' : 'succeeded',
  };
}

/**
 * Items whose child params come out equal run once (behaviour-notes 8): the first keeps its
 * place, so item indices stay stable from one reconcile to the next.
 */
export function distinctByParams(
  items: readonly unknown[],
  paramsOf: (item: unknown) => string | undefined,
): unknown[] {
  const seen = new Set<string | undefined>();
  return items.filter((item) => {
    const params = paramsOf(item);
    if (seen.has(params)) return false;
    seen.add(params);
    return true;
  });
}

/**
 * The items of a `parallel` step: a static list, or the value of an expression split as a JSON
 * array, else one item per line, else per comma, else per whitespace-separated word.
 */
export function splitItems(value: string): unknown[] {
  const trimmed = value.trim();
  if (trimmed === '') return [];
  if (trimmed.startsWith('[')) {
    try {
      const parsed = JSON.parse(trimmed) as unknown;
      if (Array.isArray(parsed)) return parsed;
    } catch {
      // Not JSON: split as text below.
    }
  }
  for (const separator of ['\n', '\t', '|', ';', ',']) {
    if (trimmed.includes(separator))
      return trimmed
        .split(separator)
        .map((s) => s.trim())
        .filter((s) => s !== '');
  }
  return trimmed.split(/\s+/);
}

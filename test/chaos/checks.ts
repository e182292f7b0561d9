/**
 * What the chaos runs check, as plain data in and problems (sentences) out: each run ended as
 * its DAG says it must, and the node agents' ledgers show every step attempt started exactly
 * as often as the run needed, never twice. Pure.
 */
import type { LedgerEntry } from '../../cluster/node-agent/ledger.ts';
import { stepPodName } from '../../core/resources/names.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import type { Expected } from './fixtures.ts';

/** How a run ended against how it must: status, each step's status, retries. */
export function runProblems(name: string, run: DagRunResource | undefined, expected: Expected): string[] {
  if (run === undefined) return [`${name}: gone`];
  const status = run.status ?? {};
  if (status.finishedAt === undefined)
    return [`${name}: stuck (${status.statusLabel ?? 'no status'}, steps ${JSON.stringify(stepLabels(run))})`];
  const problems =
    status.statusLabel === expected.status
      ? []
      : [`${name}: ${status.statusLabel ?? '?'}, not ${expected.status} (${status.error ?? 'no error'})`];
  return [...problems, ...stepProblems(name, run, expected)];
}

function stepProblems(name: string, run: DagRunResource, expected: Expected): string[] {
  const labels = stepLabels(run);
  const retries = (step: string): number => run.status?.nodes?.find((n) => n.name === step)?.retryCount ?? 0;
  return [
    ...Object.entries(expected.steps)
      .filter(([step, label]) => labels[step] !== label)
      .map(([step, label]) => `${name}: step ${step} ${labels[step] ?? 'missing'}, not ${label}`),
    ...Object.entries(expected.pods)
      .filter(([step, pods]) => pods > 1 && retries(step) !== pods - 1)
      .map(([step, pods]) => `${name}: step ${step} retried ${String(retries(step))} times, not ${String(pods - 1)}`),
  ];
}

export function stepLabels(run: DagRunResource): Record<string, string> {
  return Object.fromEntries((run.status?.nodes ?? []).map((n) => [n.name, n.statusLabel]));
}

/** Starts of step containers per Pod of one namespace. */
export function startsPerPod(entries: readonly LedgerEntry[], namespace: string): Map<string, number> {
  const starts = new Map<string, number>();
  for (const e of entries)
    if (e.namespace === namespace && e.event === 'start' && e.container === 'step')
      starts.set(e.pod, (starts.get(e.pod) ?? 0) + 1);
  return starts;
}

/** Pods of the namespace whose step container started more than once. */
export function duplicateStarts(starts: ReadonlyMap<string, number>): string[] {
  return [...starts].filter(([, n]) => n > 1).map(([pod, n]) => `pod ${pod} started ${String(n)} times`);
}

/**
 * The attempt Pods of a run's own steps against the expected count: attempts 0..n-1 each
 * started once, attempt n never.
 */
export function attemptProblems(name: string, starts: ReadonlyMap<string, number>, expected: Expected): string[] {
  const problems: string[] = [];
  for (const [step, count] of Object.entries(expected.pods)) {
    for (let attempt = 0; attempt <= count; attempt += 1) {
      const started = starts.get(stepPodName(name, step, attempt)) ?? 0;
      const want = attempt < count ? 1 : 0;
      if (started !== want)
        problems.push(
          `${name}: step ${step} attempt ${String(attempt)} started ${String(started)} times, not ${String(want)}`,
        );
    }
  }
  return problems;
}

/**
 * Dagu 2.x's DAG-level options that Kubedag runs (read in dagucloud/dagu v2.15.1
 * internal/spec/dag.go, internal/ir/overlap_policy.go, internal/spec/duration.go): retention by
 * count (`hist_retention_runs`) and the catch-up of missed scheduled runs (`catchup_window`,
 * `overlap_policy`), and the DAG-level `retry_policy` (dag-retry.ts). The model keeps them only when the file writes them, so a DAG that does
 * not is the model it was before. Decisions: docs/decisions/2026-11-29-dagu-2x-dag-options.md.
 */
import { issue, type DagIssue } from './issues.ts';
import type { Catchup, DagRetryPolicy, OverlapPolicy } from './model.ts';
import { dagRetryPolicyOf, type DagRetryPolicyFile } from './dag-retry.ts';

export const OVERLAP_POLICIES: readonly OverlapPolicy[] = ['skip', 'all', 'latest'];

/** The options as written (1.x spelling: the dialect rewrite has renamed 2.x's keys). */
export interface DagOptionsFile {
  readonly histRetentionDays?: number;
  readonly histRetentionRuns?: number;
  readonly catchupWindow?: string;
  readonly overlapPolicy?: string;
  readonly artifacts?: { readonly enabled?: boolean; readonly dir?: string };
  readonly retryPolicy?: DagRetryPolicyFile;
  readonly steps?: unknown;
  readonly handlerOn?: unknown;
}

export interface DagOptions {
  readonly histRetentionRuns?: number;
  readonly catchup?: Catchup;
  readonly artifacts?: { readonly enabled: true };
  readonly retryPolicy?: DagRetryPolicy;
}

const UNITS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Dagu's durations (Go's, plus `d` for 24 h): `90m`, `1h30m`, `2d`, `1.5h`; positive. In ms, or
 * undefined when the text is not one.
 */
export function parseDuration(text: string): number | undefined {
  const source = text.trim().replace(/(\d+)d/g, (_, days: string) => `${Number(days) * 24}h`);
  if (source === '' || !/^(?:\d+(?:\.\d*)?(?:ns|us|µs|ms|s|m|h))+$/.test(source)) return undefined;
  let total = 0;
  for (const [, amount = '', unit = ''] of source.matchAll(/(\d+(?:\.\d*)?)(ns|us|µs|ms|s|m|h)/g))
    total += Number(amount) * (UNITS[unit] ?? 0);
  return total > 0 ? Math.round(total) : undefined;
}

export function dagOptionsFromFile(file: DagOptionsFile, errors: DagIssue[]): DagOptions {
  const runs = file.histRetentionRuns;
  if (runs !== undefined && runs <= 0) errors.push(issue('histRetentionRuns', 'must be > 0'));
  // Dagu: "hist_retention_days and hist_retention_runs cannot both be specified"; said in neither spelling.
  if (runs !== undefined && file.histRetentionDays !== undefined)
    errors.push(
      issue('histRetentionRuns', 'cannot be set together with the retention in days (one or the other, as in Dagu)'),
    );
  const catchup = catchupOf(file, errors);
  const retryPolicy = dagRetryPolicyOf(file.retryPolicy, errors);
  return {
    ...(runs === undefined || runs <= 0 ? {} : { histRetentionRuns: runs }),
    ...(catchup === undefined ? {} : { catchup }),
    ...(artifactsOn(file, errors) ? { artifacts: { enabled: true } as const } : {}),
    ...(retryPolicy === undefined ? {} : { retryPolicy }),
  };
}

/**
 * Dagu's rule (internal/spec/dag.go buildArtifacts): on when `enabled: true`, or when the file
 * uses DAG_RUN_ARTIFACTS_DIR, an artifact action (a step of type artifact) or an artifact output
 * (`stdout`/`stderr: {artifact}`) and does not say `enabled: false`; an artifact action or
 * output with `enabled: false` is an error. Dagu's `dir` is a directory of its host; a step Pod
 * has none, so it is refused rather than ignored.
 */
function artifactsOn(file: DagOptionsFile, errors: DagIssue[]): boolean {
  if (file.artifacts?.dir !== undefined)
    errors.push(
      issue(
        'artifacts.dir',
        "is not supported: Kubedag keeps a run's artifacts in its workspace and its log store (remove dir)",
      ),
    );
  const used = artifactUses([file.steps, file.handlerOn]);
  if (file.artifacts?.enabled === false)
    for (const what of used)
      errors.push(issue('artifacts.enabled', `artifact ${what} require artifacts.enabled to be true`));
  if (file.artifacts?.enabled !== undefined) return file.artifacts.enabled;
  return used.length > 0 || JSON.stringify(file).includes('DAG_RUN_ARTIFACTS_DIR');
}

const isMapping = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Which artifact forms the steps (a list, nested lists, a mapping of steps or of handlers) use. */
function artifactUses(containers: readonly unknown[]): ('actions' | 'outputs')[] {
  const steps: Record<string, unknown>[] = [];
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(collect);
    else if (isMapping(value)) {
      if (['type', 'executor', 'command', 'stdout', 'stderr', 'script', 'call'].some((k) => Object.hasOwn(value, k)))
        steps.push(value);
      else Object.values(value).forEach(collect);
    }
  };
  containers.forEach(collect);
  const typeOf = (step: Record<string, unknown>): unknown =>
    isMapping(step.executor) ? step.executor.type : (step.executor ?? step.type);
  const actions = steps.some((step) => typeOf(step) === 'artifact');
  const outputs = steps.some((step) =>
    [step.stdout, step.stderr].some((s) => isMapping(s) && s.artifact !== undefined),
  );
  return [...(actions ? (['actions'] as const) : []), ...(outputs ? (['outputs'] as const) : [])];
}

function catchupOf(file: DagOptionsFile, errors: DagIssue[]): Catchup | undefined {
  const policy = (file.overlapPolicy ?? '').trim().toLowerCase();
  const overlap = policy === '' ? 'skip' : OVERLAP_POLICIES.find((p) => p === policy);
  if (overlap === undefined)
    errors.push(
      issue(
        'overlapPolicy',
        `invalid overlap policy "${file.overlapPolicy ?? ''}": must be "skip", "all", or "latest"`,
      ),
    );
  if (file.catchupWindow === undefined || file.catchupWindow.trim() === '') return undefined;
  const windowMs = parseDuration(file.catchupWindow);
  if (windowMs === undefined) {
    errors.push(
      issue('catchupWindow', `"${file.catchupWindow}" is not a positive duration (for example 90m, 6h, 2d, 1h30m)`),
    );
    return undefined;
  }
  return { windowMs, overlap: overlap ?? 'skip' };
}

import { describe, expect, it } from 'vitest';
import { dagOptionsFromFile, parseDuration, type DagOptionsFile } from './dag-options.ts';
import { formatIssue, type DagIssue } from './issues.ts';
import { loadDag } from './load.ts';

function options(file: DagOptionsFile): { options: ReturnType<typeof dagOptionsFromFile>; errors: string[] } {
  const errors: DagIssue[] = [];
  return { options: dagOptionsFromFile(file, errors), errors: errors.map(formatIssue) };
}

describe('parseDuration reads Dagu durations', () => {
  it.each([
    { text: '90m', want: 5_400_000 },
    { text: '1h30m', want: 5_400_000 },
    { text: '2d', want: 172_800_000 },
    { text: '1d12h', want: 129_600_000 },
    { text: '1.5h', want: 5_400_000 },
    { text: ' 45s ', want: 45_000 },
    { text: '0s', want: undefined },
    { text: '', want: undefined },
    { text: '6 hours', want: undefined },
    { text: '-1h', want: undefined },
    { text: '10', want: undefined },
  ])('$text is $want ms', ({ text, want }) => {
    expect(parseDuration(text)).toBe(want);
  });
});

describe('the DAG-level options', () => {
  it.each([
    { name: 'nothing written is nothing kept', file: {}, want: {} },
    { name: 'retention by count', file: { histRetentionRuns: 3 }, want: { histRetentionRuns: 3 } },
    {
      name: 'a catch-up window skips overlapping runs by default',
      file: { catchupWindow: '6h' },
      want: { catchup: { windowMs: 21_600_000, overlap: 'skip' } },
    },
    {
      name: 'the overlap policy is read case-blind',
      file: { catchupWindow: '1h', overlapPolicy: ' Latest ' },
      want: { catchup: { windowMs: 3_600_000, overlap: 'latest' } },
    },
    { name: 'an overlap policy without a window catches nothing up', file: { overlapPolicy: 'all' }, want: {} },
    { name: 'artifacts turned on', file: { artifacts: { enabled: true } }, want: { artifacts: { enabled: true } } },
    { name: 'artifacts turned off', file: { artifacts: { enabled: false } }, want: {} },
  ])('$name', ({ file, want }) => {
    expect(options(file)).toEqual({ options: want, errors: [] });
  });

  it.each([
    {
      name: "Dagu's host directory for artifacts",
      file: { artifacts: { enabled: true, dir: '/data' } },
      error:
        "artifacts.dir: is not supported: Kubedag keeps a run's artifacts in its workspace and its log store (remove dir)",
    },
    { name: 'a count of zero', file: { histRetentionRuns: 0 }, error: 'histRetentionRuns: must be > 0' },
    {
      name: 'days and runs together',
      file: { histRetentionRuns: 2, histRetentionDays: 3 },
      error: 'histRetentionRuns: cannot be set together with the retention in days (one or the other, as in Dagu)',
    },
    {
      name: 'a policy Dagu does not know',
      file: { overlapPolicy: 'queue' },
      error: 'overlapPolicy: invalid overlap policy "queue": must be "skip", "all", or "latest"',
    },
    {
      name: 'a window that is not a duration',
      file: { catchupWindow: 'a day' },
      error: 'catchupWindow: "a day" is not a positive duration (for example 90m, 6h, 2d, 1h30m)',
    },
  ])('refuses $name', ({ file, error }) => {
    expect(options(file).errors).toEqual([error]);
  });

  it('keeps history by count instead of by days', () => {
    const dag = loadDag('hist_retention_runs: 4\nsteps:\n  - run: echo', { fileName: 'a' }).dag;
    expect([dag.histRetentionRuns, dag.histRetentionDays]).toEqual([4, 0]);
  });

  it('turns artifacts on for a 2.x file that uses DAG_RUN_ARTIFACTS_DIR, as Dagu does, unless it says enabled: false', () => {
    const using = 'steps:\n  - run: echo hi > "$DAG_RUN_ARTIFACTS_DIR/hi.txt"\n';
    expect(loadDag(using, { fileName: 'a' }).dag.artifacts).toEqual({ enabled: true });
    expect(loadDag(`artifacts: {enabled: false}\n${using}`, { fileName: 'a' }).dag.artifacts).toBeUndefined();
    expect(loadDag('steps:\n  - run: echo hi\n', { fileName: 'a' }).dag.artifacts).toBeUndefined();
  });

  it('reports the 2.x spelling of a wrong option', () => {
    expect(
      loadDag('hist_retention_runs: 4\nhist_retention_days: 2\nsteps:\n  - run: echo', { fileName: 'a' }).errors.map(
        formatIssue,
      ),
    ).toEqual([
      'hist_retention_runs: cannot be set together with the retention in days (one or the other, as in Dagu)',
    ]);
  });
});

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDag, type Step } from '../../../core/dag/index.ts';
import { ARTIFACT_LIMITS, parseArtifactLines } from '../../../core/logs/artifacts.ts';
import { stepArtifactsDir } from './artifact-lines.ts';
import { demux, runnerScript, stepPod, type PodRequest } from './step-pod.ts';

/** Runs one step's runner with /bin/sh on this machine, the artifacts directory given. */
function runStep(command: string, artifactsDir: string | undefined, fields = ''): { code: number | null; log: string } {
  const load = loadDag(
    `artifacts: {enabled: true}\nsteps:\n  - {name: s, run: ${JSON.stringify(command)}${fields}}\n`,
    {
      fileName: 'a',
    },
  );
  expect(load.errors).toEqual([]);
  const request: PodRequest = {
    run: { name: 'a-r1', namespace: 'team', uid: 'u', dagName: 'a', dagRunId: 'r1' },
    dag: load.dag,
    step: load.dag.steps[0] as Step,
    attempt: 0,
    pod: 'a-0',
    env: [],
    positional: [],
    command,
    defaultImage: 'busybox',
    podPreconditions: [],
    logDir: join(mkdtempSync(join(tmpdir(), 'kd-logs-')), 'logs'),
    ...(artifactsDir === undefined ? {} : { artifactsDir }),
  };
  const env = Object.fromEntries((stepPod(request).spec?.containers[0]?.env ?? []).map((e) => [e.name, e.value ?? '']));
  const run = spawnSync('/bin/sh', ['-c', runnerScript(request)], {
    env: { PATH: process.env.PATH, ...env, KUBEDAG_REPORT_FILE: '/dev/null' },
    encoding: 'utf8',
    timeout: 15_000,
  });
  return { code: run.status, log: run.stdout };
}

describe("the step runner's artifacts", () => {
  it('sends the streams a step keeps as artifacts, an empty one too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kd-artifacts-'));
    const { code, log } = runStep(
      'echo out',
      dir,
      ', stdout: {artifact: logs/out.txt}, stderr: {artifact: logs/err.txt}',
    );
    expect(code).toBe(0);
    const logs = demux(log);
    expect(logs.stdout).toBe('out\n');
    const parsed = parseArtifactLines(logs.artifacts ?? '');
    const files = 'files' in parsed ? parsed.files.sort((a, b) => a.path.localeCompare(b.path)) : parsed;
    expect(files).toEqual([
      { path: 'logs/err.txt', size: 0, data: '' },
      { path: 'logs/out.txt', size: 4, data: Buffer.from('out\n').toString('base64') },
    ]);
  });

  it('sends the files that are new or changed since the step began, and no other', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kd-artifacts-'));
    mkdirSync(join(dir, 'old'));
    writeFileSync(join(dir, 'old', 'same.txt'), 'kept from an earlier step');
    writeFileSync(join(dir, 'changed.txt'), 'before');
    const { code, log } = runStep(
      'printf after > "$DAG_RUN_ARTIFACTS_DIR/changed.txt"; mkdir -p "$DAG_RUN_ARTIFACTS_DIR/out dir"; printf "\\000\\377bin" > "$DAG_RUN_ARTIFACTS_DIR/out dir/b.bin"; echo done',
      dir,
    );
    expect(code).toBe(0);
    const logs = demux(log);
    expect(logs.stdout).toBe('done\n');
    const parsed = parseArtifactLines(logs.artifacts ?? '');
    const files = 'files' in parsed ? parsed.files.sort((a, b) => a.path.localeCompare(b.path)) : parsed;
    expect(files).toEqual([
      { path: 'changed.txt', size: 5, data: Buffer.from('after').toString('base64') },
      { path: 'out dir/b.bin', size: 5, data: Buffer.from([0, 255, 98, 105, 110]).toString('base64') },
    ]);
  });

  it('numbers the attempts of a run that send files, in the order they end', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kd-artifacts-'));
    const sequences = ['one', 'two'].map((name) => {
      const parsed = parseArtifactLines(
        demux(runStep(`echo x > "$DAG_RUN_ARTIFACTS_DIR/${name}"`, dir).log).artifacts ?? '',
      );
      return 'sequence' in parsed ? parsed.sequence : parsed.error;
    });
    expect(sequences).toEqual([1, 2]);
  });

  it('fails a step that leaves more files than the limit, with the reason, and sends none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kd-artifacts-'));
    const { code, log } = runStep(
      `i=0; while [ $i -le ${String(ARTIFACT_LIMITS.files)} ]; do : > "$DAG_RUN_ARTIFACTS_DIR/f$i"; i=$((i + 1)); done`,
      dir,
    );
    expect(code).toBe(1);
    const logs = demux(log);
    expect(logs.artifacts).toBeUndefined();
    expect(logs.stderr).toContain(`kubedag: ${String(ARTIFACT_LIMITS.files + 1)} files of 0 bytes`);
    expect(logs.stderr).toContain('at most 100 new artifact files of 2 MiB in all');
  });

  it('gives no directory and sends nothing when the run has no artifacts', () => {
    const { code, log } = runStep('echo "[${DAG_RUN_ARTIFACTS_DIR:-none}]"', undefined);
    expect(code).toBe(0);
    expect(demux(log)).toEqual({ stdout: '[none]\n', stderr: '' });
  });

  it('keeps the directory in the workspace when the run has one, so later steps see it', () => {
    expect(stepArtifactsDir({ claimName: 'c', mountPath: '/work', size: '1Gi', accessMode: 'ReadWriteOnce' })).toBe(
      '/work/.kubedag/artifacts',
    );
    expect(stepArtifactsDir(undefined)).toBe('/tmp/kubedag-artifacts');
  });
});

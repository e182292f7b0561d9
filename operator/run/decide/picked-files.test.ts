import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDag, type PickedOutputs, type Step } from '../../../core/dag/index.ts';
import { StepStatus } from '../../../core/resources/status.ts';
import { demux, runnerScript, stepPod, type PodRequest } from '../pods/step-pod.ts';
import { judgeAttempt } from './attempt-verdict.ts';
import { picksFiles, readPickedFiles } from './picked-files.ts';
import { withStepOutputsResolved } from './variables.ts';

const DAG = `max_output_size: 64
steps:
  - id: build
    run: |
      mkdir -p out
      printf '{"image": {"tag": "1.4.2"}}' > out/r.json
      printf 'v2\\n' > "$OUT/version.txt"
      printf '%070d' 0 > big.txt
      echo built
      exit "\${CODE:-0}"
    output:
      TAG: {from: file, path: out/r.json, select: .image.tag}
      VERSION: {from: file, path: '\${OUT_DIR}/version.txt'}
      ABSENT: {from: file, path: none.txt}
      FOLDER: {from: file, path: out}
      BIG: {from: file, path: big.txt}
      FIXED: {value: 1}
  - id: use
    run: echo`;

const load = loadDag(DAG, { fileName: 'f' });
const step = load.dag.steps[0] as Step;
const picked = step.pickedOutputs as PickedOutputs;

/** Runs the step's runner with the host's /bin/sh in a fresh working directory, as its Pod would. */
function run(env: Record<string, string>): { status: number | null; log: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'kd-picked-'));
  const request: PodRequest = {
    run: { name: 'f-r1', namespace: 'team', uid: 'u', dagName: 'f', dagRunId: 'r1' },
    dag: load.dag,
    step,
    attempt: 0,
    pod: 'f-0',
    env: [],
    positional: [],
    defaultImage: 'busybox',
    podPreconditions: [],
    logDir: join(dir, '.logs'),
  };
  const podEnv = Object.fromEntries((stepPod(request).spec?.containers[0]?.env ?? []).map((e) => [e.name, e.value]));
  const out = join(dir, 'outdir');
  mkdirSync(out);
  const result = spawnSync('/bin/sh', ['-c', runnerScript(request)], {
    cwd: dir,
    env: { PATH: process.env.PATH, ...podEnv, OUT: out, OUT_DIR: out, ...env, KUBEDAG_REPORT_FILE: '/dev/null' },
    encoding: 'utf8',
    timeout: 15_000,
  });
  return { status: result.status, log: result.stdout, dir };
}

describe('a step that picks outputs from files', () => {
  it('is known by name to the log archiver', () => {
    expect(load.errors).toEqual([]);
    expect([picksFiles(load.dag, 'build'), picksFiles(load.dag, 'use')]).toEqual([true, false]);
  });

  it('has its runner send each file after a success, relative to its working directory, variables expanded', () => {
    const { status, log, dir } = run({});
    expect(status).toBe(0);
    const logs = demux(log);
    expect(logs.stdout).toBe('built\n');
    expect(logs.picked).toBe(
      [
        'F 0',
        'L {"image": {"tag": "1.4.2"}}',
        'F 1',
        'L v2',
        `X 2 failed to read file "${dir}/none.txt": no such file or directory`,
        `X 3 failed to read file "${dir}/out": is a directory`,
        `X 4 failed to read file "${dir}/big.txt": output exceeded maximum size limit of 64 bytes`,
        '',
      ].join('\n'),
    );
  });

  it('has its runner send nothing when the command failed', () => {
    const { status, log } = run({ CODE: '3' });
    expect(status).toBe(3);
    expect(demux(log).picked).toBeUndefined();
  });

  it.each([
    ['lines, each with its break', 'F 0\nL a\nL \nL b\n', { text: 'a\n\nb\n' }],
    ['an empty file', 'F 0\n', { text: '' }],
    [
      'a reason',
      'X 0 failed to read file "/w/a": permission denied\n',
      { error: 'failed to read file "/w/a": permission denied' },
    ],
    [
      'nothing',
      '',
      {
        error:
          "the step's log holds no word of the file (a step that runs its image's own entrypoint has no runner to read it)",
      },
    ],
  ])('reads back a file sent as %s', (_name, stream, want) => {
    const one: PickedOutputs = { entries: [{ name: 'A', from: 'file', path: 'a', decode: 'text' }] };
    expect(readPickedFiles(stream, one)).toEqual({ A: want });
  });

  it('publishes the decoded values, or fails the step with the reason, as Dagu words it', () => {
    const context = { retryCount: 0, doneCount: 0, maxOutputSize: 1024, resolveCount: () => 0 };
    const only = (names: string[]): Step => ({
      ...step,
      pickedOutputs: { entries: 'entries' in picked ? picked.entries.filter((e) => names.includes(e.name)) : [] },
    });
    const sent =
      'F 0\nL {"image": {"tag": "1.4.2"}}\nF 1\nL v2\nX 2 failed to read file "/w/none.txt": no such file or directory\n';
    const report = { exitCode: 0, preconditionUnmet: false, pickedFiles: sent };
    expect(judgeAttempt(only(['TAG', 'VERSION', 'FIXED']), report, context)).toEqual({
      kind: 'done',
      status: StepStatus.Succeeded,
      continued: false,
      stepOutputs: { TAG: '1.4.2', VERSION: 'v2', FIXED: '1' },
    });
    expect(judgeAttempt(step, report, context)).toEqual({
      kind: 'done',
      status: StepStatus.Failed,
      continued: false,
      error:
        'failed to evaluate structured output: ABSENT: failed to read file "/w/none.txt": no such file or directory',
    });
    expect(judgeAttempt(only(['TAG']), { ...report, pickedFiles: 'F 0\nL not json\n' }, context)).toMatchObject({
      status: StepStatus.Failed,
      error: 'failed to evaluate structured output: TAG: failed to decode JSON',
    });
  });

  it('has ${steps.<id>.outputs.<name>} in its paths resolved, which reach the Pod as written', () => {
    const reader: Step = {
      ...step,
      pickedOutputs: { entries: [{ name: 'A', from: 'file', path: '${steps.prev.outputs.dir}/a', decode: 'text' }] },
    };
    expect(withStepOutputsResolved(reader, { prev: { outputs: { dir: '/data' } } }).pickedOutputs).toEqual({
      entries: [{ name: 'A', from: 'file', path: '/data/a', decode: 'text' }],
    });
  });
});

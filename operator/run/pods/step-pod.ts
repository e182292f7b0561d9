/**
 * The Pod of one step attempt: image, node selector, environment and a small POSIX shell
 * runner that evaluates command preconditions, runs the step's command or script, keeps its
 * stdout and stderr apart by tagging each line (`O ` / `E `), forwards `signalOnStop`, and
 * reports what the operator must know through the termination message. Pure.
 */
import type { V1EnvVar, V1Pod } from '@kubernetes/client-node';
import { quoteWord } from '../../../core/dag/command.ts';
import type { Condition, Dag, EnvVar, HandlerEvent, Step } from '../../../core/dag/index.ts';
import { ANNOTATIONS, API_VERSION, LABELS } from '../../../core/resources/constants.ts';
import { labelValue } from '../../../core/resources/names.ts';
import { EXECUTOR_ENV, type ExecutorSpec } from '../../../core/runner/spec.ts';
import { executorEnv } from './executor-spec.ts';
import { MAX_ENV_VALUE_BYTES } from './output-values.ts';
import type { RunRef } from '../ref.ts';
import { artifactLines } from './artifact-lines.ts';
import { pickedFileEnv, pickedFileLines } from './picked-file-lines.ts';
import { stepShell } from './step-shell.ts';
import { runLogFile, stepLogFile } from './workspace.ts';

export interface PodRequest {
  readonly run: RunRef;
  readonly dag: Dag;
  readonly step: Step;
  readonly attempt: number;
  readonly pod: string;
  readonly handler?: HandlerEvent;
  /** Run-level variables in order: params, DAG env, built-ins; then outputs of upstream steps. */
  readonly env: readonly EnvVar[];
  /** Positional parameters, `$1`, `$2`, ... in the step's shell. */
  readonly positional: readonly string[];
  /** The command line after the operator's expansion (JSON paths, step references). */
  readonly command?: string;
  readonly defaultImage: string;
  /** Preconditions only a Pod can decide (commands, backticks). */
  readonly podPreconditions: readonly Condition[];
  readonly runStatus?: string;
  /** The run's Secret and the secret names it holds: exposed last, over every other variable. */
  readonly secrets?: { readonly secretName: string; readonly names: readonly string[] };
  /** The directory the step runs in (workspace.ts), or the image's default. */
  readonly workingDir?: string;
  /** Where the run log and the step's stdout and stderr files are written while it runs. */
  readonly logDir: string;
  /** DAG_RUN_ARTIFACTS_DIR when the run keeps artifacts (artifact-lines.ts). */
  readonly artifactsDir?: string;
  /**
   * For http, jq, mail and ssh steps: the work `kubedag-step executor` does (executor-spec.ts)
   * and the image that has it (the operator's --runner-image).
   */
  readonly runner?: { readonly spec: ExecutorSpec; readonly image: string };
}

/** First line of the termination message of a runner that reports. */
export const REPORT_MARKER = 'kubedag:v1';

/**
 * The docker executor's image, then the Pod settings' (step over DAG), the default. A DAG-level
 * `container` is no step Pod's image: its steps exec into the run's one container Pod
 * (shared-container.ts), and the others run in Pods of their own, as Dagu runs them on its host.
 */
export function stepImage(step: Step, defaultImage: string): string {
  const fromExecutor = step.executor.type === 'docker' ? step.executor.config.image : undefined;
  if (typeof fromExecutor === 'string' && fromExecutor !== '') return fromExecutor;
  return step.kubernetes?.image ?? defaultImage;
}

function words(list: readonly string[]): string {
  return list.map(quoteWord).join(' ');
}

/** How the step's work is started inside the runner, as shell text. */
function runLine(request: PodRequest): string {
  const { step, dag } = request;
  // The step runner reads its work from KUBEDAG_EXECUTOR; the shell runner around it stays.
  if (request.runner !== undefined) return 'kd_run() { exec kubedag-step executor; }';
  const shell = words(stepShell(dag, step));
  if (step.script !== undefined) {
    // A command with a script is the script's interpreter, as in Dagu: `<command> [args]
    // <script file>`, over any shebang or shell; sh only splits the command line.
    // Otherwise a shebang decides the interpreter unless the step chose a shell (behaviour-notes 4.3).
    const direct = step.shell === undefined && step.script.startsWith('#!');
    const run =
      request.command !== undefined
        ? 'kd_run() { exec /bin/sh -c "exec $KUBEDAG_COMMAND \\"\\$0\\" \\"\\$@\\"" "$kd_dir/script" "$@"; }'
        : direct
          ? 'kd_run() { exec "$kd_dir/script" "$@"; }'
          : `kd_run() { exec ${shell} "$kd_dir/script" "$@"; }`;
    return ['printf \'%s\' "$KUBEDAG_SCRIPT" > "$kd_dir/script"', 'chmod +x "$kd_dir/script"', run].join('\n');
  }
  // `exec`: the background job becomes the step's own process, so a forwarded signal reaches it.
  return `kd_run() { exec ${shell} -c "$KUBEDAG_COMMAND" kubedag "$@"; }`;
}

function preconditionLines(conditions: readonly Condition[]): string[] {
  return conditions.map((condition, i) => {
    const name = `KUBEDAG_PRECONDITION_${String(i)}`;
    // A negated condition (Dagu 2.x `negate`) holds when the test fails.
    const unmetUnless = (test: string): string =>
      condition.negate === true ? `if ${test}; then kd_unmet; fi` : `${test} || kd_unmet`;
    if (condition.expected === undefined) return unmetUnless(`/bin/sh -c "$${name}" >/dev/null 2>&1`);
    const expected = condition.expected;
    const value = `"$(eval "printf '%s' \\"$${name}\\"")"`;
    return unmetUnless(
      expected.startsWith('re:')
        ? `printf '%s\\n' ${value} | grep -Eq ${quoteWord(expected.slice(3))}`
        : `[ ${value} = ${quoteWord(expected)} ]`,
    );
  });
}

function repeatLines(step: Step): string[] {
  const condition = step.repeatPolicy?.condition;
  if (condition === undefined) return [];
  if (condition.expected === undefined)
    return ['/bin/sh -c "$KUBEDAG_REPEAT_CONDITION" >/dev/null 2>&1; kd_report="$kd_report\ncondition-exit=$?"'];
  return ['kd_report="$kd_report\ncondition-value=$(eval "printf \'%s\' \\"$KUBEDAG_REPEAT_CONDITION\\"")"'];
}

/**
 * The files a step's output goes to besides its log: DAG_RUN_STEP_STDOUT_FILE and
 * DAG_RUN_STEP_STDERR_FILE (best effort: an unwritable log directory loses only them), and the
 * step's `stdout`/`stderr` redirects, relative to its working directory, variables expanded.
 * A redirect that cannot be written fails the step before it runs, as it does in Dagu.
 */
function logFileLines(): string[] {
  return [
    'kd_log() { printf \'%s %s\\n\' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$1" >> "$DAG_RUN_LOG_FILE" 2>/dev/null || true; }',
    // `true`, not `:`: a failed redirection of a special built-in ends a POSIX shell.
    'kd_file() { mkdir -p "$(dirname "$1")" 2>/dev/null; true 2>/dev/null >> "$1"; }',
    'kd_so=$DAG_RUN_STEP_STDOUT_FILE; kd_file "$kd_so" || kd_so=/dev/null',
    'kd_se=$DAG_RUN_STEP_STDERR_FILE; kd_file "$kd_se" || kd_se=/dev/null',
    'kd_ro=/dev/null; kd_re=/dev/null',
    'if [ -n "${KUBEDAG_STDOUT:-}" ]; then kd_ro=$(eval "printf \'%s\' \\"$KUBEDAG_STDOUT\\""); kd_file "$kd_ro" || { printf \'E kubedag: cannot write stdout to %s\\n\' "$kd_ro"; exit 1; }; fi',
    'if [ -n "${KUBEDAG_STDERR:-}" ]; then kd_re=$(eval "printf \'%s\' \\"$KUBEDAG_STDERR\\""); kd_file "$kd_re" || { printf \'E kubedag: cannot write stderr to %s\\n\' "$kd_re"; exit 1; }; fi',
  ];
}

/**
 * Dagu 2.x's declared outputs: the step gets an empty file in DAGU_OUTPUT_FILE, and once it has
 * succeeded the runner copies the file into its log, each line tagged `V `, for the archiver to
 * keep apart (demux) and the operator to read (declared-outputs.ts). Dagu reads the file only
 * after a success, so a failed step's records are not sent.
 */
function outputFileLines(request: PodRequest): { start: string[]; end: string[] } {
  if (request.step.declaredOutputs === undefined || request.runner !== undefined) return { start: [], end: [] };
  return {
    start: ['DAGU_OUTPUT_FILE="$kd_dir/outputs"; : > "$DAGU_OUTPUT_FILE"; export DAGU_OUTPUT_FILE'],
    end: ['if [ "$kd_code" = 0 ]; then kd_tag V < "$DAGU_OUTPUT_FILE"; fi'],
  };
}

/** The runner: POSIX sh only, so that any image with a shell can run a step. */
export function runnerScript(request: PodRequest): string {
  // kubedag-step is stopped with SIGTERM whatever signalOnStop says, and sends signalOnStop on
  // to the remote or exec'd command itself. Node.js acts on a signal before the runner listens
  // (it needs half a second to load): SIGUSR1 would start its inspector, SIGHUP kill it.
  const signal = request.runner === undefined ? request.step.signalOnStop.replace(/^SIG/, '') : 'TERM';
  return [
    'set -u',
    // A stop may come at any moment, even before the step's command starts: the handler only
    // notes it (and ignores the signal it is about to send to its own group); the main flow acts.
    `kd_stop=; kd_sent=; kd_pid=; trap 'trap "" TERM ${signal}; kd_stop=1' TERM`,
    `kd_report='${REPORT_MARKER}'`,
    'kd_say() { printf \'%b\\n\' "$kd_report" > "${KUBEDAG_REPORT_FILE:-/dev/termination-log}" 2>/dev/null || true; }',
    'kd_unmet() { kd_report="$kd_report\\nprecondition-unmet"; kd_say; exit 0; }',
    'if [ -n "${KUBEDAG_OVERSIZED_USED:-}" ]; then printf \'E kubedag: the step uses %s, too large for an environment variable (at most 128 KiB)\\n\' "$KUBEDAG_OVERSIZED_USED"; exit 1; fi',
    'if [ -n "${KUBEDAG_OVERSIZED:-}" ]; then printf \'E kubedag: not set, too large for an environment variable: %s\\n\' "$KUBEDAG_OVERSIZED"; fi',
    ...preconditionLines(request.podPreconditions),
    'kd_dir=$(mktemp -d 2>/dev/null) || { kd_dir=/tmp/kubedag.$$; mkdir -p "$kd_dir"; }',
    'mkfifo "$kd_dir/o" "$kd_dir/e"',
    // Before the redirects are opened: a `stdout: {artifact}` file made empty is new too.
    ...artifactLines(request.artifactsDir).start,
    ...logFileLines(),
    // Each tagged line is one write, so the two streams interleave only between lines.
    'kd_tag() { while IFS= read -r kd_l || [ -n "$kd_l" ]; do printf \'%s %s\\n\' "$1" "$kd_l"; done; }',
    // The taggers must outlive a stop signal sent to the whole group, to keep the last lines.
    // tee also keeps each stream in the step's log file and its redirect, as the step runs.
    `{ trap '' ${signal}; tee -a "$kd_so" "$kd_ro" < "$kd_dir/o" | kd_tag O; } & kd_o=$!`,
    `{ trap '' ${signal}; tee -a "$kd_se" "$kd_re" < "$kd_dir/e" | kd_tag E; } & kd_e=$!`,
    ...outputFileLines(request).start,
    'kd_log "step \\"$DAG_RUN_STEP_NAME\\" started"',
    runLine(request),
    `set -- ${words(request.positional)}`,
    // Background jobs of a non-interactive shell start with SIGINT and SIGQUIT ignored (POSIX).
    // Shells that allow it (bash) restore them here; dash and busybox refuse, and there those
    // two reach only programs that install their own handlers. SIGTERM and the rest arrive.
    // Like Dagu, the stop signal goes to every process of the step: a shell running a command
    // would otherwise die alone and leave the command holding the log open. That needs the
    // runner to lead its own process group (a container's first process does); else only the
    // step's main process is signalled.
    "kd_pgrp=$(sed 's/.*) [A-Za-z] [0-9]* \\([0-9]*\\).*/\\1/' /proc/$$/stat 2>/dev/null || true)",
    `kd_forward() { kd_sent=1; if [ "$kd_pgrp" = "$$" ]; then kill -s ${signal} 0; else kill -s ${signal} "$kd_pid"; fi 2>/dev/null; }`,
    // Stopped before the command started: it never runs, and the step ends as a SIGTERM would end it.
    'kd_code=143',
    'if [ -z "$kd_stop" ]; then { trap - INT QUIT; kd_run "$@"; } > "$kd_dir/o" 2> "$kd_dir/e" & kd_pid=$!; else : > "$kd_dir/o"; : > "$kd_dir/e"; fi',
    // The stop is forwarded here, between waits, never from inside the handler: a stop that
    // lands between starting the command and learning its pid is still forwarded, and only once.
    // 2>/dev/null: the shell's own "Terminated" notice would land untagged in the log.
    'while [ -n "$kd_pid" ]; do if [ -n "$kd_stop" ] && [ -z "$kd_sent" ]; then kd_forward; fi; wait "$kd_pid" 2>/dev/null; kd_code=$?; kill -0 "$kd_pid" 2>/dev/null || break; done',
    'wait "$kd_o" "$kd_e" 2>/dev/null',
    ...outputFileLines(request).end,
    ...pickedFileLines(request.step, request.dag.maxOutputSize),
    ...artifactLines(request.artifactsDir).end,
    'kd_log "step \\"$DAG_RUN_STEP_NAME\\" finished with exit code $kd_code"',
    ...repeatLines(request.step),
    'kd_say',
    'rm -rf "$kd_dir"',
    'exit "$kd_code"',
  ].join('\n');
}

function builtins(request: PodRequest): EnvVar[] {
  const { run, step, attempt, logDir } = request;
  const vars: EnvVar[] = [
    { name: 'DAG_NAME', value: run.dagName },
    { name: 'DAG_RUN_ID', value: run.dagRunId },
    { name: 'DAG_RUN_STEP_NAME', value: step.name },
    { name: 'DAG_RUN_LOG_FILE', value: runLogFile(logDir) },
    { name: 'DAG_RUN_STEP_STDOUT_FILE', value: stepLogFile(logDir, step.name, attempt, 'stdout') },
    { name: 'DAG_RUN_STEP_STDERR_FILE', value: stepLogFile(logDir, step.name, attempt, 'stderr') },
  ];
  if (request.runStatus !== undefined) vars.push({ name: 'DAG_RUN_STATUS', value: request.runStatus });
  if (request.artifactsDir !== undefined) vars.push({ name: 'DAG_RUN_ARTIFACTS_DIR', value: request.artifactsDir });
  return vars;
}

/**
 * Later entries win, as in a shell: the Pod gets one variable per name. Secrets come last,
 * by reference to the run's Secret, so their values never appear in the Pod spec.
 */
function envList(vars: readonly EnvVar[], secrets: PodRequest['secrets']): V1EnvVar[] {
  const byName = new Map<string, V1EnvVar>();
  const put = (variable: V1EnvVar): void => {
    byName.delete(variable.name);
    byName.set(variable.name, variable);
  };
  for (const v of vars) put({ name: v.name, value: v.value });
  for (const name of secrets?.names ?? [])
    put({ name, valueFrom: { secretKeyRef: { name: secrets?.secretName ?? '', key: name } } });
  return [...byName.values()];
}

/**
 * Values too long for one environment string (large captured outputs, mostly) cannot reach
 * the process: they are left out and named in KUBEDAG_OVERSIZED, and the runner fails the step
 * when the step's own text uses one (it would compute with an empty value), else warns.
 */
function withinEnvLimits(env: readonly V1EnvVar[], step: Step): V1EnvVar[] {
  const oversized = env.filter(
    (v) => v.value !== undefined && Buffer.byteLength(v.value) + v.name.length + 1 > MAX_ENV_VALUE_BYTES,
  );
  if (oversized.length === 0) return [...env];
  const text = [
    step.cmdWithArgs ?? '',
    step.script ?? '',
    ...step.env.map((v) => v.value),
    ...step.preconditions.map((c) => c.condition),
  ].join('\n');
  const used = oversized.filter(
    (v) => v.name.startsWith('KUBEDAG_') || new RegExp(`\\$\\{?${v.name}(?![A-Za-z0-9_])`).test(text),
  );
  const describe = (list: readonly V1EnvVar[]): string =>
    list.map((v) => `${v.name} (${String(Buffer.byteLength(v.value ?? ''))} bytes)`).join(', ');
  return [
    ...env.filter((v) => !oversized.includes(v)),
    { name: 'KUBEDAG_OVERSIZED', value: describe(oversized) },
    ...(used.length === 0 ? [] : [{ name: 'KUBEDAG_OVERSIZED_USED', value: describe(used) }]),
  ];
}

const entrypointOnly = (step: Step): boolean =>
  step.executor.type === 'kubernetes' && step.cmdWithArgs === undefined && step.script === undefined;

export function stepPod(request: PodRequest): V1Pod {
  const { run, dag, step, attempt } = request;
  const conditionEnv = [
    ...request.podPreconditions.map((c, i) => ({ name: `KUBEDAG_PRECONDITION_${String(i)}`, value: c.condition })),
    ...(step.repeatPolicy?.condition === undefined
      ? []
      : [{ name: 'KUBEDAG_REPEAT_CONDITION', value: step.repeatPolicy.condition.condition }]),
    ...(request.runner === undefined
      ? []
      : [{ name: EXECUTOR_ENV, value: JSON.stringify(request.runner.spec) }, ...executorEnv(request.runner.spec)]),
    ...(request.command === undefined || request.runner !== undefined
      ? []
      : [{ name: 'KUBEDAG_COMMAND', value: request.command }]),
    ...(step.script === undefined || request.runner !== undefined
      ? []
      : [{ name: 'KUBEDAG_SCRIPT', value: step.script }]),
    ...(step.stdout === undefined ? [] : [{ name: 'KUBEDAG_STDOUT', value: step.stdout }]),
    ...(step.stderr === undefined ? [] : [{ name: 'KUBEDAG_STDERR', value: step.stderr }]),
    ...pickedFileEnv(step),
  ];
  const nodeSelector = { ...dag.workerSelector, ...step.workerSelector };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: request.pod,
      namespace: run.namespace,
      labels: {
        [LABELS.dag]: labelValue(run.dagName),
        [LABELS.runId]: labelValue(run.dagRunId),
        [LABELS.run]: labelValue(run.name),
        [LABELS.step]: labelValue(step.name),
        [LABELS.attempt]: String(attempt),
      },
      annotations: { [ANNOTATIONS.step]: step.name },
      ownerReferences: [
        {
          apiVersion: API_VERSION,
          kind: 'DAGRun',
          name: run.name,
          uid: run.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: dag.maxCleanUpTimeSec,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      ...(Object.keys(nodeSelector).length === 0 ? {} : { nodeSelector }),
      containers: [
        {
          name: 'step',
          image: request.runner?.image ?? stepImage(step, request.defaultImage),
          // A Kubernetes-executor step without a command runs its image's entrypoint, as in
          // Dagu: no runner, so its output is not split into stdout and stderr.
          ...(entrypointOnly(step) ? {} : { command: ['/bin/sh', '-c', runnerScript(request)] }),
          env: withinEnvLimits(
            [...envList([...request.env, ...builtins(request), ...step.env], request.secrets), ...conditionEnv],
            step,
          ),
          ...(request.workingDir === undefined ? {} : { workingDir: request.workingDir }),
        },
      ],
    },
  };
}

/** What the runner wrote: precondition verdict and repeat condition. */
export function parseReport(message: string | undefined): {
  preconditionUnmet: boolean;
  conditionValue?: string;
  conditionExit?: number;
} {
  const lines = (message ?? '').split('\n');
  if (lines[0] !== REPORT_MARKER) return { preconditionUnmet: false };
  const valueLine = lines.findIndex((l) => l.startsWith('condition-value='));
  const exitLine = lines.find((l) => l.startsWith('condition-exit='));
  return {
    preconditionUnmet: lines.includes('precondition-unmet'),
    ...(valueLine === -1
      ? {}
      : {
          conditionValue: [lines[valueLine]?.slice('condition-value='.length) ?? '', ...lines.slice(valueLine + 1)]
            .join('\n')
            .replace(/\n$/, ''),
        }),
    ...(exitLine === undefined ? {} : { conditionExit: Number(exitLine.slice('condition-exit='.length)) }),
  };
}

type DemuxedExtra = 'outputs' | 'artifacts' | 'picked';

/**
 * Splits a runner's tagged log into the step's stdout, stderr, declared-output records (`V `),
 * artifact files (`A `, artifact-lines.ts) and files picked as outputs (`P `, picked-file-lines.ts).
 */
export function demux(log: string): Record<'stdout' | 'stderr', string> & Partial<Record<DemuxedExtra, string>> {
  const out: string[] = [];
  const err: string[] = [];
  const records: string[] = [];
  const files: string[] = [];
  const picked: string[] = [];
  for (const line of log.split('\n')) {
    if (line.startsWith('E ')) err.push(line.slice(2));
    else if (line.startsWith('O ')) out.push(line.slice(2));
    else if (line.startsWith('V ')) records.push(line.slice(2));
    else if (line.startsWith('A ')) files.push(line.slice(2));
    else if (line.startsWith('P ')) picked.push(line.slice(2));
    else if (line !== '') out.push(line);
  }
  const text = (lines: readonly string[]): string => (lines.length === 0 ? '' : `${lines.join('\n')}\n`);
  return {
    stdout: text(out),
    stderr: text(err),
    ...(records.length === 0 ? {} : { outputs: text(records) }),
    ...(files.length === 0 ? {} : { artifacts: text(files) }),
    ...(picked.length === 0 ? {} : { picked: text(picked) }),
  };
}

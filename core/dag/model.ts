/**
 * The canonical DAG model: one shape for every spelling a file may use. Everything after
 * loading (validation, the operator, the API shapes) works on these types only.
 *
 * Values are kept unevaluated: `${VAR}` and backticks are resolved per run, in Pods, never here.
 */
import type { DagKubernetesSettings, KubernetesSettings } from './kubernetes-model.ts';
import type { OtelSettings } from './otel-model.ts';
import type { PickedOutputs } from './picked-outputs.ts';

export * from './kubernetes-model.ts';
export type { PickDecode, PickedEntry, PickedOutputs } from './picked-outputs.ts';
export { mergeKubernetes, mergeMappings } from './kubernetes-merge.ts';
export { isMapping } from './mapping.ts';

export const DAG_TYPES = ['chain', 'graph'] as const;
export type DagType = (typeof DAG_TYPES)[number];

/**
 * `init` (Dagu 2.x) runs before the first step; `wait` (Dagu 2.x) each time the run starts waiting
 * for an approval; the others when the run ends.
 */
export const HANDLER_EVENTS = ['init', 'wait', 'success', 'failure', 'cancel', 'exit'] as const;
export type HandlerEvent = (typeof HANDLER_EVENTS)[number];
/** Handler steps carry fixed names so that logs and status can address them. */
export const HANDLER_STEP_NAMES: Record<HandlerEvent, string> = {
  init: 'onInit',
  wait: 'onWait',
  success: 'onSuccess',
  failure: 'onFailure',
  cancel: 'onCancel',
  exit: 'onExit',
};

export const DEFAULTS = {
  type: 'chain' as DagType,
  maxActiveRuns: 1,
  /** 0 means no per-run limit (behaviour-notes 4.2 DECISION). */
  maxActiveSteps: 0,
  histRetentionDays: 30,
  maxCleanUpTimeSec: 5,
  maxOutputSize: 1_048_576,
  dotenv: ['.env'] as readonly string[],
  signalOnStop: 'SIGTERM',
} as const;

/**
 * Whether the DAG names its dotenv files itself. The implicit default (`.env` beside the file)
 * is kept as the very DEFAULTS array, so this is an identity check on purpose.
 */
export function dotenvWritten(dag: { readonly dotenv: readonly string[] }): boolean {
  return dag.dotenv !== DEFAULTS.dotenv;
}

export interface EnvVar {
  readonly name: string;
  /** Unevaluated: may hold `${VAR}` references and backticks. */
  readonly value: string;
}

export interface Condition {
  readonly condition: string;
  /** Compared line by line, exactly or as a regex with the `re:` prefix; absent for commands. */
  readonly expected?: string;
  /** Dagu 2.x's `negate`: the condition holds when it is not met (a command that fails, a value that differs). */
  readonly negate?: boolean;
}

export interface Schedule {
  /** As written, including a `CRON_TZ=`/`TZ=` prefix. */
  readonly expression: string;
  /** The five cron fields. */
  readonly cron: string;
  /** IANA zone from the prefix; absent means the scheduler's zone. */
  readonly timezone?: string;
}

export interface Schedules {
  readonly start: readonly Schedule[];
  readonly stop: readonly Schedule[];
  readonly restart: readonly Schedule[];
}

export interface ParamDef {
  /** `1`, `2`, ... for positional parameters. */
  readonly name: string;
  /** Unevaluated default. */
  readonly value: string;
  readonly positional: boolean;
}

export interface Params {
  readonly entries: readonly ParamDef[];
  /** JSON Schema that validates (and defaults) parameter values: inline, or a file/URL reference. */
  readonly schema?: Record<string, unknown> | string;
}

export interface Executor {
  /** `shell` for plain commands. */
  readonly type: string;
  readonly config: Readonly<Record<string, unknown>>;
}

export interface ContinueOn {
  readonly failure: boolean;
  readonly skipped: boolean;
  readonly exitCode: readonly number[];
  readonly output: readonly string[];
  readonly markSuccess: boolean;
}

export interface RetryPolicy {
  /** An integer, or a string evaluated at run time. */
  readonly limit: number | string;
  readonly intervalSec: number | string;
  /** Codes that are retried; empty means any non-zero. */
  readonly exitCode: readonly number[];
  /** Multiplier; absent means constant interval. */
  readonly backoff?: number;
  readonly maxIntervalSec?: number;
}

export interface RepeatPolicy {
  readonly repeat: 'while' | 'until';
  readonly intervalSec: number;
  /** Maximum executions; 0 means no limit. */
  readonly limit: number;
  readonly condition?: Condition;
  readonly exitCode: readonly number[];
  readonly backoff?: number;
  readonly maxIntervalSec?: number;
}

/** Dagu 2.x's DAG-level retry_policy, concrete at load (core/dag/dag-retry.ts). */
export interface DagRetryPolicy {
  readonly limit: number;
  readonly intervalSec: number;
  /** Absent: every wait is intervalSec. */
  readonly backoff?: number;
  readonly maxIntervalSec: number;
}

export interface Parallel {
  /** Static items, or an expression evaluated at run time. */
  readonly items: readonly unknown[] | string;
  /** 0 means no limit. */
  readonly maxConcurrent: number;
  /**
   * Dagu 2.x `foreach` items written as an expression: its value must be a JSON array, and each
   * item runs (equal ones too) with the params FOREACH_INDEX and FOREACH_ITEM (dialect-foreach.ts).
   */
  readonly foreach?: true;
  /**
   * Dagu 2.x `foreach.key`: an expression over the item's params (FOREACH_ITEM, FOREACH_INDEX)
   * and the DAG's variables that names each item; resolved by the operator, passed as FOREACH_KEY.
   */
  readonly key?: string;
  /** Dagu 2.x `foreach.collect`: output name to an expression read from each succeeded item's run. */
  readonly collect?: Readonly<Record<string, string>>;
}

/**
 * A value a step publishes by name (Dagu 2.x `outputs:`): written as a `name=value` record into
 * the file DAGU_OUTPUT_FILE names, read by later steps as `${steps.<id>.outputs.<name>}`.
 */
/** Dagu 2.x's `approval`: once its command succeeded, the step waits for a person's answer. */
export interface Approval {
  /** What the person is shown. */
  readonly prompt?: string;
  /** The inputs a person may give; later steps read an approval's inputs as variables. */
  readonly input: readonly string[];
  /** The inputs an approval or a push-back must give. */
  readonly required: readonly string[];
  /** The step (name or id: itself or one upstream) a push-back re-runs from; default the step itself. */
  readonly rewindTo?: string;
}

export interface DeclaredOutput {
  readonly name: string;
  /** `json`: the value must be valid JSON, else the step fails. */
  readonly type: 'string' | 'json';
}

export interface Step {
  readonly name: string;
  readonly id?: string;
  readonly description?: string;
  readonly dir?: string;
  /** Executable, when the step has a one-line command. */
  readonly command?: string;
  readonly args: readonly string[];
  /** The command line as written (string form), or rebuilt from the list form. */
  readonly cmdWithArgs?: string;
  readonly script?: string;
  readonly shell?: readonly string[];
  readonly shellPackages: readonly string[];
  readonly stdout?: string;
  readonly stderr?: string;
  readonly output?: string;
  readonly declaredOutputs?: readonly DeclaredOutput[];
  /** Dagu 2.x's object-form `output:` or `stdout.outputs`: values the operator picks out of a succeeded attempt's streams. */
  readonly pickedOutputs?: PickedOutputs;
  /** Dagu 2.x's `output_schema`: a JSON Schema a succeeded attempt's stdout, decoded as JSON, must pass. */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  readonly approval?: Approval;
  readonly depends: readonly string[];
  readonly continueOn: ContinueOn;
  readonly retryPolicy?: RetryPolicy;
  readonly repeatPolicy?: RepeatPolicy;
  readonly mailOnError: boolean;
  readonly preconditions: readonly Condition[];
  readonly signalOnStop: string;
  readonly call?: string;
  /**
   * Dagu 2.x's `dag.enqueue`: the called DAG's run is queued (on `queue` when given, else the
   * DAG's own) and the step succeeds without waiting for it. The operator creates that run.
   */
  readonly enqueue?: { readonly queue?: string };
  readonly params?: string | Readonly<Record<string, unknown>>;
  readonly parallel?: Parallel;
  readonly executor: Executor;
  readonly workerSelector: Readonly<Record<string, string>>;
  readonly env: readonly EnvVar[];
  readonly timeoutSec: number;
  /**
   * The step Pod's effective settings: the DAG-level block merged with the step's own (its
   * `kubernetes:` block, or a kubernetes executor's settings). Absent when neither has any,
   * and always for call steps, which run no Pod of their own.
   */
  readonly kubernetes?: KubernetesSettings;
}

export interface Secret {
  readonly name: string;
  readonly provider: string;
  readonly key: string;
  readonly options: Readonly<Record<string, string>>;
}

export interface MailConfig {
  readonly from?: string;
  readonly to: readonly string[];
  readonly prefix?: string;
  readonly attachLogs: boolean;
}

export interface Dag {
  readonly name: string;
  readonly group?: string;
  readonly description?: string;
  readonly tags: readonly string[];
  readonly type: DagType;
  readonly shell?: readonly string[];
  readonly workingDir?: string;
  readonly dotenv: readonly string[];
  readonly schedule: Schedules;
  readonly skipIfSuccessful: boolean;
  readonly logDir?: string;
  readonly env: readonly EnvVar[];
  readonly params: Params;
  readonly steps: readonly Step[];
  readonly handlerOn: Partial<Record<HandlerEvent, Step>>;
  readonly preconditions: readonly Condition[];
  readonly timeoutSec: number;
  readonly delaySec: number;
  readonly restartWaitSec: number;
  /** Days of history kept; 0 when `histRetentionRuns` keeps history by count instead. */
  readonly histRetentionDays: number;
  /** Dagu 2.x `hist_retention_runs`: the newest runs kept, by count. */
  readonly histRetentionRuns?: number;
  /** Dagu 2.x's DAG-level retry_policy: a failed root run is retried whole by the operator. */
  readonly retryPolicy?: DagRetryPolicy;
  /** Dagu 2.x `catchup_window`/`overlap_policy`: missed scheduled runs started afterwards. */
  readonly catchup?: Catchup;
  /** Dagu 2.x `artifacts`: each step gets DAG_RUN_ARTIFACTS_DIR and its new files are kept. */
  readonly artifacts?: { readonly enabled: true };
  readonly maxActiveRuns: number;
  readonly maxActiveSteps: number;
  readonly maxCleanUpTimeSec: number;
  readonly maxOutputSize: number;
  readonly queue?: string;
  readonly workerSelector: Readonly<Record<string, string>>;
  /** The DAG-level block as written (normalised): step defaults, and the run's workspace. */
  readonly kubernetes?: DagKubernetesSettings;
  readonly runConfig: { readonly disableParamEdit: boolean; readonly disableRunIdEdit: boolean };
  readonly secrets: readonly Secret[];
  /** `wait` (Dagu 2.x): mail `waitMail` each time the run starts waiting for an approval. */
  readonly mailOn: { readonly success: boolean; readonly failure: boolean; readonly wait: boolean };
  readonly errorMail?: MailConfig;
  readonly infoMail?: MailConfig;
  readonly waitMail?: MailConfig;
  readonly smtp?: {
    readonly host?: string;
    readonly port?: string;
    readonly username?: string;
    readonly password?: string;
  };
  /** Dagu 2.x's DAG-level `s3` block, as written: the s3 steps' connection defaults. */
  readonly s3?: Readonly<Record<string, unknown>>;
  /** Settings passed through to the runtime unchanged (already shape-checked). */
  readonly container?: Readonly<Record<string, unknown>>;
  readonly ssh?: Readonly<Record<string, unknown>>;
  readonly registryAuths?: string | Readonly<Record<string, unknown>>;
  /** Tracing (otel.ts): checked, with the exporter's URL resolved. */
  readonly otel?: OtelSettings;
}

/** Dagu 2.x's overlap policy: what becomes of missed runs while a run of the DAG is active. */
export type OverlapPolicy = 'skip' | 'all' | 'latest';

/** Catch-up of missed scheduled runs: how far back (ms), and the overlap policy. */
export interface Catchup {
  readonly windowMs: number;
  readonly overlap: OverlapPolicy;
}

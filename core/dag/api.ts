/**
 * The `/api/v2` shapes of a DAG: the summary of list items, the details of GET /dags/{f}, and
 * the step object. Built here so that the API server and the operator agree on them.
 */
import { quoteWord } from './command.ts';
import { HANDLER_EVENTS, type Condition, type Dag, type HandlerEvent, type Step } from './model.ts';
import { encodeParams } from './params.ts';

export interface ScheduleObject {
  readonly expression: string;
}

export interface ConditionObject {
  readonly condition: string;
  readonly expected: string;
  /** Filled in by runs when a condition is not met; empty in definitions. */
  readonly error: string;
}

export interface RunConfigObject {
  readonly disableParamEdit: boolean;
  readonly disableRunIdEdit: boolean;
}

export interface DagSummary {
  readonly name: string;
  readonly group: string;
  readonly schedule: ScheduleObject[];
  readonly description: string;
  /** Parameter names; positional ones are "1", "2", ... */
  readonly params: string[];
  /** JSON object of default values in effective order, "" when there are none. */
  readonly defaultParams: string;
  readonly tags: string[];
  readonly queue: string;
  readonly maxActiveRuns: number;
  readonly runConfig: RunConfigObject;
}

export interface RepeatPolicyObject {
  /** The contract's boolean; `repeatMode` says which kind. */
  readonly repeat: boolean;
  readonly repeatMode: 'while' | 'until';
  readonly interval: number;
  readonly limit: number;
  readonly backoff?: number;
  readonly maxIntervalSec?: number;
  readonly condition?: ConditionObject;
  readonly exitCode: number[];
}

export interface StepObject {
  readonly name: string;
  readonly id?: string;
  readonly description?: string;
  readonly dir?: string;
  readonly command?: string;
  readonly args: string[];
  readonly cmdWithArgs?: string;
  readonly script?: string;
  readonly shell?: string;
  readonly stdout?: string;
  readonly stderr?: string;
  readonly output?: string;
  readonly depends: string[];
  readonly preconditions: ConditionObject[];
  readonly continueOn: {
    failure: boolean;
    skipped: boolean;
    exitCode: number[];
    output: string[];
    markSuccess: boolean;
  };
  readonly retryPolicy?: {
    limit: number | string;
    intervalSec: number | string;
    exitCode: number[];
    backoff?: number;
    maxIntervalSec?: number;
  };
  readonly repeatPolicy?: RepeatPolicyObject;
  readonly mailOnError: boolean;
  readonly call?: string;
  /** Legacy name of `call`, for clients that still read it. */
  readonly run?: string;
  readonly params?: string;
  readonly parallel?: { items: string[] | string; maxConcurrent: number };
  readonly executor: { type: string; config: Record<string, unknown> };
  readonly signalOnStop: string;
  readonly timeoutSec: number;
  readonly workerSelector: Record<string, string>;
  readonly env: string[];
  /** Dagu 2.x's approval gate (its Step schema's `approval`), when the step has one. */
  readonly approval?: { prompt?: string; input: string[]; required: string[]; rewindTo?: string };
}

export interface DagDetails extends DagSummary {
  readonly type: string;
  readonly env: string[];
  readonly logDir: string;
  readonly handlerOn: Partial<Record<HandlerEvent, StepObject>>;
  readonly steps: StepObject[];
  /** `delaySec`, under the contract's name. */
  readonly delay: number;
  readonly timeoutSec: number;
  readonly histRetentionDays: number;
  readonly maxActiveSteps: number;
  readonly maxCleanUpTimeSec: number;
  readonly preconditions: ConditionObject[];
  readonly workerSelector: Record<string, string>;
}

export function dagSummary(dag: Dag): DagSummary {
  return {
    name: dag.name,
    group: dag.group ?? '',
    schedule: dag.schedule.start.map((s) => ({ expression: s.expression })),
    description: dag.description ?? '',
    params: dag.params.entries.map((p) => p.name),
    defaultParams: encodeParams(dag.params.entries),
    tags: [...dag.tags],
    queue: dag.queue ?? '',
    maxActiveRuns: dag.maxActiveRuns,
    runConfig: { ...dag.runConfig },
  };
}

export function dagDetails(dag: Dag): DagDetails {
  const handlerOn: Partial<Record<HandlerEvent, StepObject>> = {};
  for (const event of HANDLER_EVENTS) {
    const step = dag.handlerOn[event];
    if (step !== undefined) handlerOn[event] = stepObject(step);
  }
  return {
    ...dagSummary(dag),
    type: dag.type,
    env: dag.env.map((v) => `${v.name}=${v.value}`),
    logDir: dag.logDir ?? '',
    handlerOn,
    steps: dag.steps.map(stepObject),
    delay: dag.delaySec,
    timeoutSec: dag.timeoutSec,
    histRetentionDays: dag.histRetentionDays,
    maxActiveSteps: dag.maxActiveSteps,
    maxCleanUpTimeSec: dag.maxCleanUpTimeSec,
    preconditions: dag.preconditions.map(conditionObject),
    workerSelector: { ...dag.workerSelector },
  };
}

export function conditionObject(condition: Condition): ConditionObject {
  return { condition: condition.condition, expected: condition.expected ?? '', error: '' };
}

/** Only set fields appear; lists and flags always do. */
export function stepObject(step: Step): StepObject {
  const object: StepObject = {
    name: step.name,
    id: step.id,
    description: step.description,
    dir: step.dir,
    command: step.command,
    args: [...step.args],
    cmdWithArgs: step.cmdWithArgs,
    script: step.script,
    shell: step.shell === undefined ? undefined : step.shell.map(quoteWord).join(' '),
    stdout: step.stdout,
    stderr: step.stderr,
    output: step.output,
    depends: [...step.depends],
    preconditions: step.preconditions.map(conditionObject),
    continueOn: { ...step.continueOn, exitCode: [...step.continueOn.exitCode], output: [...step.continueOn.output] },
    retryPolicy: step.retryPolicy && { ...step.retryPolicy, exitCode: [...step.retryPolicy.exitCode] },
    repeatPolicy: repeatPolicyObject(step),
    mailOnError: step.mailOnError,
    call: step.call,
    run: step.call,
    params:
      step.params === undefined
        ? undefined
        : typeof step.params === 'string'
          ? step.params
          : JSON.stringify(step.params),
    parallel: step.parallel && {
      items:
        typeof step.parallel.items === 'string'
          ? step.parallel.items
          : step.parallel.items.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))),
      maxConcurrent: step.parallel.maxConcurrent,
    },
    executor: { type: step.executor.type, config: { ...step.executor.config } },
    signalOnStop: step.signalOnStop,
    timeoutSec: step.timeoutSec,
    workerSelector: { ...step.workerSelector },
    env: step.env.map((v) => `${v.name}=${v.value}`),
    approval:
      step.approval &&
      withoutUndefined({
        prompt: step.approval.prompt,
        input: [...step.approval.input],
        required: [...step.approval.required],
        rewindTo: step.approval.rewindTo,
      }),
  };
  return withoutUndefined(object);
}

function repeatPolicyObject(step: Step): RepeatPolicyObject | undefined {
  const policy = step.repeatPolicy;
  if (policy === undefined) return undefined;
  return withoutUndefined({
    repeat: true,
    repeatMode: policy.repeat,
    interval: policy.intervalSec,
    limit: policy.limit,
    backoff: policy.backoff,
    maxIntervalSec: policy.maxIntervalSec,
    condition: policy.condition && conditionObject(policy.condition),
    exitCode: [...policy.exitCode],
  });
}

/** JSON would drop them anyway; dropping them here keeps objects comparable in tests. */
function withoutUndefined<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}

/**
 * What one finished step attempt means: success, a retry, another repetition, a skip for an
 * unmet precondition, a failure that continueOn lets pass, or a plain failure; and what an
 * attempt lost without an exit code means. Pure.
 */
import type { RepeatPolicy, RetryPolicy, Step } from '../../../core/dag/index.ts';
import { StepStatus, type StepStatusValue } from '../../../core/resources/status.ts';
import { readDeclaredOutputs } from './declared-outputs.ts';
import { readPickedFiles } from './picked-files.ts';
import { pickValues, type PickSources } from './picked-values.ts';
import { outputFromStdout } from '../pods/output-values.ts';
import { outputSchemaError } from './output-schema.ts';

/** What the step Pod reported besides its exit code (its termination message). */ import type { ChildNode } from './foreach-keys.ts';

export interface AttemptReport {
  readonly exitCode: number;
  readonly preconditionUnmet: boolean;
  /** The repeat condition's value (expected form) or exit code (command form), if evaluated. */
  readonly conditionValue?: string;
  readonly conditionExit?: number;
  /** The step's stdout, when it was needed (output capture, continueOn.output). */
  readonly stdout?: string;
  /** The step's stderr, when a picked output reads it. */
  readonly stderr?: string;
  /** The records a step that declares outputs wrote into DAGU_OUTPUT_FILE (sent only on success). */
  readonly outputRecords?: string;
  /** The files a step picks outputs from, as its runner sent them (picked-files.ts; sent only on success). */
  readonly pickedFiles?: string;
  /** For a sub-DAG step: the child run's final status label. */
  readonly childStatus?: string;
  /** For a sub-DAG step: the child run's steps, for a foreach's `collect` (foreach-keys.ts). */
  readonly childNodes?: readonly ChildNode[];
}

export type AttemptVerdict =
  | {
      readonly kind: 'done';
      readonly status: StepStatusValue;
      readonly continued: boolean;
      readonly error?: string;
      readonly output?: string;
      readonly stepOutputs?: Readonly<Record<string, string>>;
    }
  | {
      readonly kind: 'again';
      readonly why: 'retry' | 'repeat';
      readonly delayMs: number;
      readonly error?: string;
      readonly output?: string;
      readonly stepOutputs?: Readonly<Record<string, string>>;
    };

export interface AttemptContext {
  readonly retryCount: number;
  readonly doneCount: number;
  readonly maxOutputSize: number;
  /** Resolves `limit`/`intervalSec` written as variables. */
  readonly resolveCount: (value: number | string) => number;
  /** The variables a picked output's literal may name (given only when the step picks outputs). */
  readonly variables?: Readonly<Record<string, string>>;
  /** The outputs earlier steps published, for a literal's `${steps.<id>.outputs.<name>}` (given with variables). */
  readonly steps?: PickSources['steps'];
}

function matchesText(pattern: string, text: string): boolean {
  if (pattern.startsWith('re:')) {
    try {
      return new RegExp(pattern.slice(3)).test(text);
    } catch {
      return false;
    }
  }
  return text.includes(pattern);
}

/** `expected` matched against a value line by line, exactly or as `re:<regex>`. */
export function matchesExpected(value: string, expected: string): boolean {
  const lines = value.split('\n');
  if (expected.startsWith('re:'))
    return lines.some((line) => matchesText(expected, line)) || matchesText(expected, value);
  return value === expected || lines.includes(expected);
}

function waitMs(
  intervalSec: number,
  backoff: number | undefined,
  n: number,
  maxIntervalSec: number | undefined,
): number {
  const raw = intervalSec * (backoff === undefined ? 1 : backoff ** n);
  const capped = maxIntervalSec === undefined || maxIntervalSec <= 0 ? raw : Math.min(raw, maxIntervalSec);
  return Math.round(capped * 1000);
}

function conditionHolds(policy: RepeatPolicy, report: AttemptReport): boolean {
  if (policy.condition !== undefined) {
    const expected = policy.condition.expected;
    if (expected !== undefined) return matchesExpected(report.conditionValue ?? '', expected);
    if (report.conditionExit !== undefined) return report.conditionExit === 0;
  }
  if (policy.exitCode.length > 0) return policy.exitCode.includes(report.exitCode);
  // `repeat: true` with nothing to check: repeat while the step succeeds.
  return report.exitCode === 0;
}

function repeatVerdict(
  policy: RepeatPolicy,
  report: AttemptReport,
  context: AttemptContext,
): AttemptVerdict | undefined {
  const executions = context.doneCount + 1;
  if (policy.limit > 0 && executions >= policy.limit) return undefined;
  const holds = conditionHolds(policy, report);
  const again = policy.repeat === 'while' ? holds : !holds;
  if (!again) return undefined;
  return {
    kind: 'again',
    why: 'repeat',
    delayMs: waitMs(policy.intervalSec, policy.backoff, executions, policy.maxIntervalSec),
  };
}

function retryVerdict(
  policy: RetryPolicy,
  report: AttemptReport,
  context: AttemptContext,
  error: string,
): AttemptVerdict | undefined {
  if (context.retryCount >= context.resolveCount(policy.limit)) return undefined;
  if (policy.exitCode.length > 0 && !policy.exitCode.includes(report.exitCode)) return undefined;
  const delayMs = waitMs(
    context.resolveCount(policy.intervalSec),
    policy.backoff,
    context.retryCount,
    policy.maxIntervalSec,
  );
  return { kind: 'again', why: 'retry', delayMs, error };
}

function continueOnMatches(step: Step, report: AttemptReport): boolean {
  const rule = step.continueOn;
  if (rule.failure || rule.exitCode.includes(report.exitCode)) return true;
  const lines = (report.stdout ?? '').split('\n');
  return rule.output.some((pattern) => lines.some((line) => matchesText(pattern, line)));
}

interface Captured {
  readonly output?: string;
  readonly stepOutputs?: Readonly<Record<string, string>>;
  readonly error?: string;
}

/**
 * The values `${steps.<id>.outputs.<name>}` reads, of a succeeded attempt: its declared outputs,
 * else its picked ones (Dagu reads the declared ones when a step has both); or why reading them
 * failed the step. Undefined when the step publishes none, or failed.
 */
function publishedOutputs(step: Step, report: AttemptReport, context: AttemptContext): Captured | undefined {
  if (report.exitCode !== 0) return undefined;
  const { maxOutputSize } = context;
  const declared =
    step.declaredOutputs === undefined
      ? undefined
      : readDeclaredOutputs(report.outputRecords ?? '', step.declaredOutputs, maxOutputSize);
  const picked =
    step.pickedOutputs === undefined
      ? undefined
      : pickValues(step.pickedOutputs, pickSources(step.pickedOutputs, report, context), maxOutputSize);
  for (const read of [declared, picked]) if (read !== undefined && 'error' in read) return { error: read.error };
  const values = [declared, picked].find((read) => read !== undefined && 'values' in read);
  return values === undefined || !('values' in values) ? undefined : { stepOutputs: values.values };
}

/** What a step's picked outputs are taken from: its streams, the files it sent back, the values a literal may name. */
function pickSources(
  picked: NonNullable<Step['pickedOutputs']>,
  report: AttemptReport,
  context: AttemptContext,
): PickSources {
  return {
    stdout: report.stdout ?? '',
    stderr: report.stderr ?? '',
    files: readPickedFiles(report.pickedFiles ?? '', picked),
    variables: context.variables ?? {},
    ...(context.steps === undefined ? {} : { steps: context.steps }),
  };
}

/** The captured output and published outputs, or why capturing them failed the step. */
function captureOutput(step: Step, report: AttemptReport, context: AttemptContext): Captured {
  const { maxOutputSize } = context;
  // Dagu judges the schema first, and only of an attempt that succeeded.
  const schemaError =
    step.outputSchema === undefined || report.exitCode !== 0
      ? undefined
      : outputSchemaError(step.outputSchema, report.stdout ?? '', maxOutputSize);
  if (schemaError !== undefined) return { error: schemaError };
  const published = publishedOutputs(step, report, context);
  if (published?.error !== undefined) return { error: published.error };
  const stepOutputs = published?.stepOutputs === undefined ? {} : { stepOutputs: published.stepOutputs };
  if (step.output === undefined) return stepOutputs;
  const captured = outputFromStdout(report.stdout ?? '');
  if (Buffer.byteLength(captured) > maxOutputSize)
    return { error: `output exceeds maxOutputSize (${String(maxOutputSize)} bytes)` };
  return { output: captured, ...stepOutputs };
}

function withOutput<T extends AttemptVerdict>(verdict: T, captured: Captured): T {
  return {
    ...verdict,
    ...(captured.output === undefined ? {} : { output: captured.output }),
    ...(captured.stepOutputs === undefined ? {} : { stepOutputs: captured.stepOutputs }),
  };
}

/** The verdict on one finished attempt of `step`. */
export function judgeAttempt(step: Step, report: AttemptReport, context: AttemptContext): AttemptVerdict {
  if (report.preconditionUnmet) return { kind: 'done', status: StepStatus.Skipped, continued: false };
  const captured = captureOutput(step, report, context);
  const failure =
    report.childStatus === undefined ? `exit code ${String(report.exitCode)}` : `sub-DAG run ${report.childStatus}`;
  const error = captured.error ?? (report.exitCode === 0 ? undefined : failure);
  if (step.repeatPolicy !== undefined && captured.error === undefined) {
    const again = repeatVerdict(step.repeatPolicy, report, context);
    if (again !== undefined) return withOutput(again, captured);
  }
  if (error === undefined) {
    // A partially succeeded child makes its calling step partially succeeded (behaviour-notes 8).
    const status = report.childStatus === 'partially_succeeded' ? StepStatus.PartiallySucceeded : StepStatus.Succeeded;
    return withOutput({ kind: 'done', status, continued: false }, captured);
  }
  const again =
    step.retryPolicy !== undefined && report.exitCode !== 0
      ? retryVerdict(step.retryPolicy, report, context, error)
      : undefined;
  if (again !== undefined) return again;
  if (!continueOnMatches(step, report)) return { kind: 'done', status: StepStatus.Failed, continued: false, error };
  const status = step.continueOn.markSuccess ? StepStatus.Succeeded : StepStatus.Failed;
  return withOutput({ kind: 'done', status, continued: true, error }, captured);
}

/**
 * The verdict on an attempt that ended without an exit code: its Pod vanished, or went down
 * with its node (lost.ts). A failure like any other for retryPolicy and continueOn, except
 * that a policy retrying only on some exit codes cannot match it: it is not retried then.
 */
export function judgeLostAttempt(step: Step, why: string, context: AttemptContext): AttemptVerdict {
  const policy = step.retryPolicy;
  if (policy !== undefined && policy.exitCode.length === 0 && context.retryCount < context.resolveCount(policy.limit)) {
    return {
      kind: 'again',
      why: 'retry',
      delayMs: waitMs(
        context.resolveCount(policy.intervalSec),
        policy.backoff,
        context.retryCount,
        policy.maxIntervalSec,
      ),
      error: why,
    };
  }
  const continued = step.continueOn.failure;
  return {
    kind: 'done',
    status: continued && step.continueOn.markSuccess ? StepStatus.Succeeded : StepStatus.Failed,
    continued,
    error: why,
  };
}

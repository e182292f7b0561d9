/**
 * The variables a step sees and the values the operator expands for it: run env and params,
 * outputs of upstream steps (all steps for a handler), step references. Pure.
 */
import {
  expand,
  pickedFiles,
  type Condition,
  type Dag,
  type Step,
  type StepReference,
} from '../../../core/dag/index.ts';
import type { DagRunStatus } from '../../../core/resources/schemas.ts';
import { runStatusLabel } from '../../../core/resources/status.ts';
import { pushBackVars } from './approval.ts';
import { upstreamOf, type RunDefinition } from './run-definition.ts';
import { stepsOutcome } from './outcome.ts';
import { stepLogFile } from '../pods/workspace.ts';

export function resolveCount(value: number | string, definition: RunDefinition): number {
  if (typeof value === 'number') return value;
  const scope = Object.fromEntries(definition.env.map((v) => [v.name, v.value]));
  const parsed = Number(expand(value, { scopes: [scope], shell: true }).value.trim());
  return Number.isInteger(parsed) && parsed >= 0 ? parsed : 0;
}

/** Outputs of the steps upstream of `step` (all finished steps for a handler). */
export function outputVars(
  step: Step,
  steps: readonly Step[],
  status: DagRunStatus,
): { name: string; value: string }[] {
  const handler = !steps.some((s) => s.name === step.name);
  const upstream = handler ? new Set(steps.map((s) => s.name)) : upstreamOf(step, steps);
  return (status.nodes ?? [])
    .filter((n) => upstream.has(n.name))
    .flatMap((n) => Object.entries(n.outputs ?? {}).map(([name, value]) => ({ name, value })));
}

export function variables(
  definition: RunDefinition,
  status: DagRunStatus,
  step?: Step,
  steps?: readonly Step[],
): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const v of definition.env) vars[v.name] = v.value;
  definition.positional.forEach((value, i) => (vars[String(i + 1)] = value));
  const outputs =
    step === undefined || steps === undefined
      ? (status.nodes ?? []).flatMap((n) => Object.entries(n.outputs ?? {}).map(([name, value]) => ({ name, value })))
      : outputVars(step, steps, status);
  for (const o of outputs) vars[o.name] = o.value;
  // A step re-run by a push-back reads the push-back's inputs over any output of the same name,
  // the later approval's inputs included, as Dagu layers them (docs/decisions/2026-11-29-approval.md).
  if (step !== undefined) for (const v of pushBackVars(step, status)) vars[v.name] = v.value;
  return vars;
}

/**
 * `${id.stdout}`, `${id.stderr}`, `${id.exitCode}` for steps with an id: the log files of the
 * step's latest attempt, which other steps can read where the run has a workspace; and the
 * declared outputs it published, for Dagu 2.x's `${steps.<id>.outputs.<name>}`.
 */
export function stepRefs(dag: Dag, status: DagRunStatus, logDir: string): Record<string, StepReference> {
  const refs: Record<string, StepReference> = {};
  for (const step of dag.steps) {
    if (step.id === undefined) continue;
    const node = status.nodes?.find((n) => n.name === step.name);
    const attempt = node?.attempt ?? 0;
    const outputs = node?.stepOutputs === undefined ? {} : { outputs: node.stepOutputs };
    refs[step.id] = {
      stdout: stepLogFile(logDir, step.name, attempt, 'stdout'),
      stderr: stepLogFile(logDir, step.name, attempt, 'stderr'),
      exitCode: node?.exitCode ?? '',
      ...outputs,
    };
  }
  return refs;
}

/** The declared outputs the steps with an id published, for `${steps.<id>.outputs.<name>}`. */
export function declaredOutputRefs(dag: Dag, status: DagRunStatus): Record<string, StepReference> {
  const refs: Record<string, StepReference> = {};
  for (const step of dag.steps) {
    const outputs = step.id === undefined ? undefined : status.nodes?.find((n) => n.name === step.name)?.stepOutputs;
    if (step.id !== undefined && outputs !== undefined) refs[step.id] = { outputs };
  }
  return refs;
}

const STEP_OUTPUT_REF = /\$\{steps\.([A-Za-z][A-Za-z0-9_]*)\.outputs\.([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * A step with `${steps.<id>.outputs.<name>}` resolved in its env values, preconditions and
 * `from: file` paths, which reach the Pod as they are written (its command and script are
 * expanded whole, above): a shell could not read the reference ("bad substitution"), and Dagu
 * resolves it there too.
 */
export function withStepOutputsResolved(step: Step, steps: Readonly<Record<string, StepReference>>): Step {
  const texts = [
    ...step.env.map((v) => v.value),
    ...step.preconditions.flatMap((c) => [c.condition, c.expected ?? '']),
    ...pickedFiles(step.pickedOutputs).map((entry) => entry.path),
  ];
  if (!texts.some((text) => text.includes('${steps.'))) return step;
  const picked = step.pickedOutputs;
  return {
    ...step,
    env: step.env.map((v) => ({ ...v, value: resolveStepOutputs(v.value, steps) })),
    preconditions: step.preconditions.map((c) => conditionWithStepOutputs(c, steps)),
    ...(picked === undefined || !('entries' in picked)
      ? {}
      : {
          pickedOutputs: {
            entries: picked.entries.map((e) =>
              'from' in e && e.from === 'file' ? { ...e, path: resolveStepOutputs(e.path, steps) } : e,
            ),
          },
        }),
  };
}

/** A precondition with `${steps.<id>.outputs.<name>}` resolved, for the operator or the Pod to decide. */
export function conditionWithStepOutputs(
  condition: Condition,
  steps: Readonly<Record<string, StepReference>>,
): Condition {
  return {
    ...condition,
    condition: resolveStepOutputs(condition.condition, steps),
    ...(condition.expected === undefined ? {} : { expected: resolveStepOutputs(condition.expected, steps) }),
  };
}

function resolveStepOutputs(text: string, steps: Readonly<Record<string, StepReference>>): string {
  return text.replace(STEP_OUTPUT_REF, (match, id: string, name: string) => steps[id]?.outputs?.[name] ?? match);
}

/** DAG_RUN_STATUS for handlers: the label of the outcome the steps gave the run. */
export function handlerStatus(status: DagRunStatus): string {
  return runStatusLabel(stepsOutcome(status.nodes ?? [], status.endReason));
}

/**
 * A step's script with `${VAR.path}` and `${id.stdout}`-style references resolved, as Dagu
 * resolves them in scripts before they run: a shell could not (`${R.results[0].x}` is a bad
 * substitution there). Plain `$VAR` stays for the shell, which has every variable in its
 * environment; backticks stay too.
 */
export function withResolvedScript(
  step: Step,
  vars: Readonly<Record<string, string>>,
  steps: Readonly<Record<string, StepReference>>,
): Step {
  if (step.script === undefined) return step;
  const script = expand(step.script, { scopes: [], environment: vars, steps }).value;
  return script === step.script ? step : { ...step, script };
}

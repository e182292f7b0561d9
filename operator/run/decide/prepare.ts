/**
 * The prepare step: what a run evaluates once, in a Pod, before its first step. Values with
 * command substitution in DAG env and params, the DAG's dotenv files and its secrets all need
 * the step image's shell and file system, which the operator has neither of nor should touch.
 *
 * The Pod prints one `KEY=base64` line per result; parsePrepared reads them back. Secret
 * values are picked out there by the reconciler and never reach the run's status or logs.
 */
import { parse as parseDotenv } from 'dotenv';
import type { DagRunStatus } from '../../../core/resources/schemas.ts';
import {
  applyParamsSchema,
  dotenvWritten,
  formatIssue,
  hasCommandSubstitution,
  plainStep,
  type Condition,
  type Dag,
  type EnvVar,
  type ParamDef,
  type Step,
} from '../../../core/dag/index.ts';
import { matchesExpected } from './attempt-verdict.ts';

export const PREPARE_STEP = 'kubedag-prepare';

/**
 * What the prepare Pod reported, as kept in the run's status (secrets never are): DAG env and
 * param values evaluated in definition order; dotenv variables, later files winning, minus
 * names the image's environment already sets.
 */
export type Prepared = NonNullable<DagRunStatus['prepared']>;

export interface PrepareOutput extends Prepared {
  /** Secret values by secret name: for a Kubernetes Secret, never for the status. */
  readonly secrets: Readonly<Record<string, string>>;
}

/** A condition only a shell can decide: a command (met on exit 0), or a value with backticks. */
export function needsShell(condition: Condition): boolean {
  return condition.expected === undefined || hasCommandSubstitution(condition.condition);
}

/**
 * Whether a run must run the prepare step before its steps. DAG preconditions that need a shell
 * are decided there too: the operator runs no user code, and no step may start before they hold.
 */
export function needsPreparing(dag: Dag, params: readonly ParamDef[]): boolean {
  const substitution =
    dag.env.some((v) => hasCommandSubstitution(v.value)) || params.some((p) => hasCommandSubstitution(p.value));
  return (
    substitution ||
    (dotenvWritten(dag) && dag.dotenv.length > 0) ||
    dag.secrets.length > 0 ||
    dag.preconditions.some(needsShell)
  );
}

const HELPERS = [
  'set -e',
  "kd_out() { printf '%s=' \"$1\"; printf '%s' \"$2\" | base64 | tr -d '\\n'; printf '\\n'; }",
  // Quote marks and backslashes of a value stay literal; `$` and backticks do their work.
  // The value as a double-quoted assignment, in kd_r; its status is its last command substitution's.
  'kd_try() { kd_raw=$(printf \'%s\' "$1" | sed -e \'s/\\\\/\\\\\\\\/g\' -e \'s/"/\\\\"/g\'); eval "kd_r=\\"$kd_raw\\""; }',
  // The same, printed; a failed command only leaves its (empty) output.
  'kd_eval() { kd_try "$1" || :; printf \'%s\' "$kd_r"; }',
  'kd_fail() { printf \'%s\\n\' "$1" >&2; exit 1; }',
  // A variable of the Pod's own environment, by a name that arrives as data.
  'kd_env() { case "$1" in ""|[0-9]*|*[!A-Za-z0-9_]*) return 1 ;; esac; eval "[ -n \\"\\${$1+x}\\" ] && printf \'%s\' \\"\\$$1\\""; }',
];

/**
 * The script: dotenv files and the image's variable names (system variables are never
 * overridden by dotenv), secrets, then DAG env and params, each evaluated in order so that
 * backticks run and later values see earlier ones, then every DAG precondition with those
 * values in scope: a command's exit status, or a condition's evaluated value, which the
 * operator compares with `expected` (parsePrepared). Raw values arrive as KUBEDAG_* variables
 * (prepareVariables), so nothing from the DAG is ever spliced into the script's text.
 */
export function prepareScript(dag: Dag, params: readonly ParamDef[]): string {
  const lines = [...HELPERS];
  if (dotenvWritten(dag)) {
    dag.dotenv.forEach((_, i) =>
      lines.push(
        `if [ -f "$KUBEDAG_F${String(i)}" ]; then kd_out F${String(i)} "$(cat -- "$KUBEDAG_F${String(i)}")"; fi`,
      ),
    );
    lines.push('kd_out N "$(awk \'BEGIN { for (k in ENVIRON) print k }\')"');
  }
  dag.secrets.forEach((secret, i) => {
    const key = `"$KUBEDAG_S${String(i)}"`;
    const read = secret.provider === 'env' ? `kd_env ${key}` : `cat -- ${key}`;
    const problem = secret.provider === 'env' ? 'environment variable' : 'file';
    lines.push(
      `kd_v=$(${read}) || kd_fail "secret ${secret.name}: cannot read ${problem} $KUBEDAG_S${String(i)}"; kd_out S${String(i)} "$kd_v"`,
    );
  });
  dag.env.forEach((v, i) =>
    lines.push(`${v.name}="$(kd_eval "$KUBEDAG_E${String(i)}")"; export ${v.name}; kd_out E${String(i)} "$${v.name}"`),
  );
  const fallbacks = paramFallbacks(dag, params);
  params.forEach((p, i) => {
    const n = String(i);
    // A failed command in a value fails the run (as Dagu's evaluation does), unless the
    // schema gives the parameter a default to fall back to (Dagu 2.x's typed-param eval).
    const failed =
      fallbacks[i] === undefined
        ? `kd_fail "params: evaluating parameter ${p.name} failed: a command in its value exited non-zero"`
        : `kd_r="$KUBEDAG_D${n}"`;
    lines.push(`kd_try "$KUBEDAG_P${n}" || ${failed}`);
    if (p.positional) lines.push(`kd_out P${n} "$kd_r"`);
    else lines.push(`${p.name}="$kd_r"; export ${p.name}; kd_out P${n} "$${p.name}"`);
  });
  dag.preconditions.forEach((c, i) => {
    const raw = `"$KUBEDAG_C${String(i)}"`;
    // `|| kd_v=$?` keeps `set -e` from ending the script on an unmet condition.
    if (c.expected === undefined)
      lines.push(`kd_v=0; /bin/sh -c ${raw} >/dev/null 2>&1 || kd_v=$?; kd_out C${String(i)} "$kd_v"`);
    else lines.push(`kd_out C${String(i)} "$(kd_eval ${raw})"`);
  });
  return lines.join('\n');
}

/** Per parameter, the default its inline schema gives it (as text), which a failed evaluation falls back to. */
function paramFallbacks(dag: Dag, params: readonly ParamDef[]): (string | undefined)[] {
  const schema = dag.params.schema;
  const properties = typeof schema === 'object' ? schema.properties : undefined;
  return params.map((p) => {
    const property: unknown =
      p.positional || properties === null || typeof properties !== 'object'
        ? undefined
        : (properties as Record<string, unknown>)[p.name];
    if (property === null || typeof property !== 'object' || !Object.hasOwn(property, 'default')) return undefined;
    const value: unknown = (property as { default: unknown }).default;
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** The raw values the prepare script works on. */
export function prepareVariables(dag: Dag, params: readonly ParamDef[]): EnvVar[] {
  return [
    ...(dotenvWritten(dag) ? dag.dotenv.map((file, i) => ({ name: `KUBEDAG_F${String(i)}`, value: file })) : []),
    ...dag.secrets.map((s, i) => ({ name: `KUBEDAG_S${String(i)}`, value: s.key })),
    ...dag.env.map((v, i) => ({ name: `KUBEDAG_E${String(i)}`, value: v.value })),
    ...params.map((p, i) => ({ name: `KUBEDAG_P${String(i)}`, value: p.value })),
    ...paramFallbacks(dag, params).flatMap((value, i) =>
      value === undefined ? [] : [{ name: `KUBEDAG_D${String(i)}`, value }],
    ),
    ...dag.preconditions.map((c, i) => ({ name: `KUBEDAG_C${String(i)}`, value: c.condition })),
  ];
}

/**
 * The prepare step itself: a plain shell step in the DAG's working directory, with the DAG's
 * Pod settings (its tolerations and selectors place it; its `env` is where `provider: env`
 * secrets come from on Kubernetes).
 */
export function prepareStep(dag: Dag, params: readonly ParamDef[]): Step {
  const { workspace: _workspace, ...settings } = dag.kubernetes ?? {};
  return plainStep(PREPARE_STEP, {
    script: prepareScript(dag, params),
    env: prepareVariables(dag, params),
    ...(dag.workingDir === undefined ? {} : { dir: dag.workingDir }),
    workerSelector: dag.workerSelector,
    ...(dag.kubernetes === undefined ? {} : { kubernetes: settings }),
  });
}

/** Reads the prepare Pod's stdout back. Values it did not print keep their raw form. */
export function parsePrepared(stdout: string, dag: Dag, params: readonly ParamDef[]): PrepareOutput {
  const values = new Map(
    stdout
      .split('\n')
      .map((line) => /^([EPFSNC]\d*)=(.*)$/.exec(line))
      .flatMap((m) => (m === null ? [] : [[m[1] ?? '', Buffer.from(m[2] ?? '', 'base64').toString('utf8')] as const])),
  );
  const system = new Set((values.get('N') ?? '').split('\n').filter((name) => !name.startsWith('KUBEDAG_')));
  const fromFiles: Record<string, string> = {};
  dag.dotenv.forEach((_, i) => Object.assign(fromFiles, parseDotenv(values.get(`F${String(i)}`) ?? '')));
  const dotenv = Object.entries(fromFiles)
    .filter(([name]) => !system.has(name))
    .map(([name, value]) => ({ name, value }));
  return {
    env: dag.env.map((v, i) => values.get(`E${String(i)}`) ?? v.value),
    params: params.map((p, i) => values.get(`P${String(i)}`) ?? p.value),
    ...(dotenv.length === 0 ? {} : { dotenv }),
    ...(dag.preconditions.length === 0
      ? {}
      : { preconditions: dag.preconditions.map((c, i) => conditionMet(c, values.get(`C${String(i)}`))) }),
    secrets: Object.fromEntries(dag.secrets.map((s, i) => [s.name, values.get(`S${String(i)}`) ?? ''])),
  };
}

/** A condition the prepare Pod did not report (it never does when it succeeds) counts as unmet. */
function conditionMet(condition: Condition, reported: string | undefined): boolean {
  if (reported === undefined) return false;
  return (
    (condition.expected === undefined ? reported === '0' : matchesExpected(reported, condition.expected)) !==
    (condition.negate === true)
  );
}

/** The prepare Pod's stdout with the secret lines blanked: what the log store may keep. */
export function withoutSecrets(stdout: string): string {
  return stdout.replace(/^S(\d+)=.*$/gm, 'S$1=');
}

/** What the status keeps of the prepare step's report: everything but the secrets. */
export function statusPrepared(
  stdout: string,
  definition: { readonly dag: Dag; readonly params: readonly ParamDef[] },
): Prepared {
  const { secrets: _secrets, ...prepared } = parsePrepared(stdout, definition.dag, definition.params);
  return prepared;
}

/**
 * The evaluated parameters checked against the DAG's inline schema: values with `$` or
 * backticks could not be checked when the run started (run-definition.ts withParamsSchema),
 * so they are once they are known, before any step sees them.
 */
export function preparedParamProblems(dag: Dag, params: readonly ParamDef[], values: readonly string[]): string[] {
  const schema = dag.params.schema;
  if (schema === undefined || typeof schema === 'string') return [];
  const evaluated = params.map((p, i) => ({ ...p, value: values[i] ?? p.value }));
  return applyParamsSchema(schema, evaluated).errors.map(formatIssue);
}

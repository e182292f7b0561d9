/**
 * What a run runs: its frozen definition loaded with core/dag, the effective parameters and
 * variables, and the features this version cannot run yet, which reject the run with a clear
 * error instead of being ignored. Pure.
 */
import { applyParamOverrides, encodeParams, expand, formatIssue, hasCommandSubstitution, loadDag, parseParamOverrides, type Condition, type Dag, type EnvVar, type ParamDef, type Step } from '../../core/dag/index.ts';
import { specDocuments } from '../../core/resources/types.ts';
import { matchesExpected } from './attempt.ts';

export interface RunDefinition {
  readonly dag: Dag;
  /** Set when the run cannot start. */
  readonly rejection?: string;
  readonly params: readonly ParamDef[];
  /** Named parameters and DAG env, evaluated in order; what every step sees. */
  readonly env: readonly EnvVar[];
  readonly positional: readonly string[];
  readonly paramsJson: string;
  /** The later documents of the definition, callable by name. */
  readonly localDags: readonly { readonly name: string; readonly document: Record<string, unknown> }[];
  /** Env or params use command substitution and have not been evaluated in a Pod yet. */
  readonly needsPrepare: boolean;
}

/** What the prepare Pod reported: every DAG env value and every param value, evaluated. */
export interface Prepared {
  readonly env: readonly string[];
  readonly params: readonly string[];
}

const UNSUPPORTED_EXECUTORS = new Set(['ssh', 'http', 'jq', 'mail', 'gha']);

function stepProblem(step: Step): string | undefined {
  if (step.call !== undefined) return undefined;
  if (UNSUPPORTED_EXECUTORS.has(step.executor.type)) return `step ${step.name}: the ${step.executor.type} executor is not supported on Kubernetes yet`;
  const { image, exec } = step.executor.config;
  if (step.executor.type === 'docker' && (typeof image !== 'string' || exec !== undefined)) return `step ${step.name}: running in an existing container (containerName/exec) is not supported on Kubernetes`;
  return undefined;
}

/** Features this version rejects; a later version implements them (see the issue notes). */
export function unsupported(dag: Dag): string[] {
  const problems = [...dag.steps, ...Object.values(dag.handlerOn)].flatMap((step) => stepProblem(step) ?? []);
  const containerExtras = Object.keys(dag.container ?? {}).filter((key) => !['image', 'env', 'workingDir', 'user', 'pullPolicy'].includes(key));
  if (containerExtras.length > 0) problems.push(`container: ${containerExtras.join(', ')} (one shared container for all steps) is not supported yet`);
  if (dag.ssh !== undefined) problems.push('ssh: DAG-level ssh is not supported on Kubernetes yet');
  if (dag.secrets.length > 0) problems.push('secrets: not supported yet');
  if (dag.dotenv.length > 0 && !(dag.dotenv.length === 1 && dag.dotenv[0] === '.env')) problems.push('dotenv: DAG resources have no files; dotenv is not supported');
  return problems;
}

export function runDefinition(spec: Record<string, unknown>, fileName: string, overrides: string | undefined, prepared?: Prepared, baseEnv: Readonly<Record<string, string>> = {}): RunDefinition {
  const documents = specDocuments(spec);
  const text = JSON.stringify(documents[0] ?? {});
  // core/dag reads YAML; JSON is YAML, so the stored spec goes through the same loader.
  const load = loadDag([text, ...documents.slice(1).map((d) => JSON.stringify(d))].join('\n---\n'), { fileName });
  const parsed = parseParamOverrides(overrides ?? '');
  const params = applyParamOverrides(load.dag.params.entries, parsed.tokens);
  const problems = [...load.errors.map(formatIssue), ...(parsed.error === undefined ? [] : [`params: ${parsed.error}`]), ...(load.errors.length === 0 ? unsupported(load.dag) : [])];
  const env = evaluateVariables(load.dag, params, baseEnv, prepared);
  const substitution = load.dag.env.some((v) => hasCommandSubstitution(v.value)) || params.some((p) => hasCommandSubstitution(p.value));
  return {
    dag: load.dag,
    ...(problems.length === 0 ? {} : { rejection: problems.join('; ') }),
    params,
    env,
    positional: params.flatMap((p, i) => (p.positional ? [prepared?.params[i] ?? p.value] : [])),
    paramsJson: encodeParams(params),
    localDags: load.localDags.map((local, i) => ({ name: local.name, document: documents[i + 1] ?? {} })),
    needsPrepare: substitution && prepared === undefined,
  };
}

/**
 * DAG env first, in order, each value seeing the ones before (env cannot see params); then
 * named params, which may use env and earlier params (behaviour-notes 4.5, 4.6).
 */
function evaluateVariables(dag: Dag, params: readonly ParamDef[], baseEnv: Readonly<Record<string, string>>, prepared: Prepared | undefined): EnvVar[] {
  const scope: Record<string, string> = {};
  const out: EnvVar[] = [];
  dag.env.forEach((variable, i) => {
    const value = prepared?.env[i] ?? expand(variable.value, { scopes: [scope], environment: baseEnv, shell: true }).value;
    scope[variable.name] = value;
    out.push({ name: variable.name, value });
  });
  const paramScope: Record<string, string> = {};
  params.forEach((param, i) => {
    const value = prepared?.params[i] ?? expand(param.value, { scopes: [paramScope, scope], environment: baseEnv, shell: true }).value;
    paramScope[param.name] = value;
    if (!param.positional) out.push({ name: param.name, value });
  });
  return out;
}

/**
 * The prepare Pod's script: DAG env, then params, each evaluated by the shell in order (so
 * backticks run and later values see earlier ones), printed as `E<i>=`/`P<i>=` and base64.
 * The raw values come in as KUBEDAG_E<i> / KUBEDAG_P<i>; see prepareVariables.
 */
export function prepareScript(dag: Dag, params: readonly ParamDef[]): string {
  const lines = [
    'set -e',
    // Quote marks and backslashes of a value stay literal; `$` and backticks do their work.
    'kd_eval() { kd_raw=$(printf \'%s\' "$1" | sed -e \'s/\\\\/\\\\\\\\/g\' -e \'s/"/\\\\"/g\'); eval "printf \'%s\' \\"$kd_raw\\""; }',
    'kd_out() { printf \'%s=\' "$1"; printf \'%s\' "$2" | base64 | tr -d \'\\n\'; printf \'\\n\'; }',
  ];
  dag.env.forEach((v, i) => lines.push(`${v.name}="$(kd_eval "$KUBEDAG_E${String(i)}")"; export ${v.name}; kd_out E${String(i)} "$${v.name}"`));
  params.forEach((p, i) => {
    if (p.positional) lines.push(`kd_v="$(kd_eval "$KUBEDAG_P${String(i)}")"; kd_out P${String(i)} "$kd_v"`);
    else lines.push(`${p.name}="$(kd_eval "$KUBEDAG_P${String(i)}")"; export ${p.name}; kd_out P${String(i)} "$${p.name}"`);
  });
  return lines.join('\n');
}

/** The raw values the prepare script evaluates. */
export function prepareVariables(dag: Dag, params: readonly ParamDef[]): { name: string; value: string }[] {
  return [...dag.env.map((v, i) => ({ name: `KUBEDAG_E${String(i)}`, value: v.value })), ...params.map((p, i) => ({ name: `KUBEDAG_P${String(i)}`, value: p.value }))];
}

/** Reads the prepare Pod's stdout back into evaluated values. */
export function parsePrepared(stdout: string, dag: Dag, params: readonly ParamDef[]): { env: string[]; params: string[] } {
  const values = new Map(
    stdout
      .split('\n')
      .map((line) => /^([EP]\d+)=(.*)$/.exec(line))
      .flatMap((m) => (m === null ? [] : [[m[1] ?? '', Buffer.from(m[2] ?? '', 'base64').toString('utf8')] as const])),
  );
  return { env: dag.env.map((v, i) => values.get(`E${String(i)}`) ?? v.value), params: params.map((p, i) => values.get(`P${String(i)}`) ?? p.value) };
}

/** Decides a precondition without a Pod when it is plain text; undefined otherwise. */
export function literalPrecondition(condition: Condition, variables: Readonly<Record<string, string>>): boolean | undefined {
  if (condition.expected === undefined || hasCommandSubstitution(condition.condition)) return undefined;
  return matchesExpected(expand(condition.condition, { scopes: [variables], shell: true }).value, condition.expected);
}

/** Steps upstream of `step`, transitively: whose outputs it may see. */
export function upstreamOf(step: Step, steps: readonly Step[]): Set<string> {
  const byName = new Map(steps.map((s) => [s.name, s]));
  const seen = new Set<string>();
  const stack = [...step.depends];
  for (let name = stack.pop(); name !== undefined; name = stack.pop()) {
    if (seen.has(name)) continue;
    seen.add(name);
    stack.push(...(byName.get(name)?.depends ?? []));
  }
  return seen;
}

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
  const substituted = [...dag.env.filter((v) => hasCommandSubstitution(v.value)).map((v) => `env ${v.name}`), ...dag.params.entries.filter((p) => hasCommandSubstitution(p.value)).map((p) => `param ${p.name}`)];
  if (substituted.length > 0) problems.push(`${substituted.join(', ')}: command substitution in env and params is not supported yet`);
  return problems;
}

export function runDefinition(spec: Record<string, unknown>, fileName: string, overrides: string | undefined, baseEnv: Readonly<Record<string, string>> = {}): RunDefinition {
  const documents = specDocuments(spec);
  const text = JSON.stringify(documents[0] ?? {});
  // core/dag reads YAML; JSON is YAML, so the stored spec goes through the same loader.
  const load = loadDag([text, ...documents.slice(1).map((d) => JSON.stringify(d))].join('\n---\n'), { fileName });
  const parsed = parseParamOverrides(overrides ?? '');
  const params = applyParamOverrides(load.dag.params.entries, parsed.tokens);
  const problems = [...load.errors.map(formatIssue), ...(parsed.error === undefined ? [] : [`params: ${parsed.error}`]), ...(load.errors.length === 0 ? unsupported(load.dag) : [])];
  const env = evaluateVariables(load.dag, params, baseEnv);
  return {
    dag: load.dag,
    ...(problems.length === 0 ? {} : { rejection: problems.join('; ') }),
    params,
    env,
    positional: params.filter((p) => p.positional).map((p) => p.value),
    paramsJson: encodeParams(params),
    localDags: load.localDags.map((local, i) => ({ name: local.name, document: documents[i + 1] ?? {} })),
  };
}

/**
 * DAG env first, in order, each value seeing the ones before (env cannot see params); then
 * named params, which may use env and earlier params (behaviour-notes 4.5, 4.6).
 */
function evaluateVariables(dag: Dag, params: readonly ParamDef[], baseEnv: Readonly<Record<string, string>>): EnvVar[] {
  const scope: Record<string, string> = {};
  const out: EnvVar[] = [];
  for (const variable of dag.env) {
    const value = expand(variable.value, { scopes: [scope], environment: baseEnv, shell: true }).value;
    scope[variable.name] = value;
    out.push({ name: variable.name, value });
  }
  const paramScope: Record<string, string> = {};
  for (const param of params) {
    const value = expand(param.value, { scopes: [paramScope, scope], environment: baseEnv, shell: true }).value;
    paramScope[param.name] = value;
    if (!param.positional) out.push({ name: param.name, value });
  }
  return out;
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

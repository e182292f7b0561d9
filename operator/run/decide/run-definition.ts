/**
 * What a run runs: its frozen definition loaded with core/dag, the effective parameters and
 * variables, and the features this version cannot run yet, which reject the run with a clear
 * error instead of being ignored. Pure.
 */
import {
  applyParamOverrides,
  applyParamsSchema,
  encodeParams,
  expand,
  formatIssue,
  parseParamOverrides,
  type Condition,
  type Dag,
  type EnvVar,
  type ParamDef,
  type Step,
} from '../../../core/dag/index.ts';
import { loadDagSpec } from '../../../core/resources/dag.ts';
import { specDocuments } from '../../../core/resources/types.ts';
import { matchesExpected } from './attempt-verdict.ts';
import { containerExecProblems, runsInSharedContainer } from '../pods/executor-spec.ts';
import { needsPreparing, needsShell, type Prepared } from './prepare.ts';
import { sharedContainer, type SharedContainer } from '../pods/shared-container.ts';

export interface RunDefinition {
  readonly dag: Dag;
  /** Set when the run cannot start. */
  readonly rejection?: string;
  readonly params: readonly ParamDef[];
  /** DAG env, dotenv values, then named parameters, evaluated; what every step sees. */
  readonly env: readonly EnvVar[];
  readonly positional: readonly string[];
  readonly paramsJson: string;
  /** The later documents of the definition, callable by name. */
  readonly localDags: readonly { readonly name: string; readonly document: Record<string, unknown> }[];
  /** Env or params use command substitution and have not been evaluated in a Pod yet. */
  readonly needsPrepare: boolean;
  /** The run's one container (DAG-level `container`), as a Pod carries it out. */
  readonly container?: SharedContainer;
}

function stepProblems(step: Step): string[] {
  if (step.call !== undefined) return [];
  // GitHub Actions need a container engine inside the cluster (Dagu 2.x dropped the executor).
  if (step.executor.type === 'gha')
    return [
      `step ${step.name}: the gha executor is not supported on Kubernetes (it needs a container engine in the cluster)`,
    ];
  // Dagu execs nothing and fails the step; refused before the run starts here.
  if (runsInSharedContainer(step) && step.command === undefined && step.script === undefined)
    return [`step ${step.name}: has no command or script to run in the DAG's container`];
  return containerExecProblems(step);
}

/** Features this version rejects; a later version implements them (see the issue notes). */
export function unsupported(dag: Dag): string[] {
  const problems = [...dag.steps, ...Object.values(dag.handlerOn)].flatMap(stepProblems);
  // The operator may turn the workspace off for DAGs that say nothing: run-resources.ts checks that case.
  const shared =
    dag.container === undefined
      ? undefined
      : sharedContainer(dag.container, dag.kubernetes?.workspace?.enabled !== false);
  if (shared !== undefined && 'problems' in shared) problems.push(...shared.problems);
  return problems;
}

/**
 * A Dagu file may name the namespace its Pods run in; here they always run in the run's own,
 * so a run elsewhere is refused rather than silently moved.
 */
export function namespaceProblems(dag: Dag, namespace: string): string[] {
  const named = [
    ...(dag.kubernetes?.namespace === undefined
      ? []
      : [{ where: 'kubernetes.namespace', value: dag.kubernetes.namespace }]),
    ...[...dag.steps, ...Object.values(dag.handlerOn)].flatMap((step) =>
      step.kubernetes?.namespace === undefined || step.kubernetes.namespace === dag.kubernetes?.namespace
        ? []
        : [{ where: `step ${step.name}: kubernetes.namespace`, value: step.kubernetes.namespace }],
    ),
  ];
  return named
    .filter((n) => n.value !== namespace)
    .map(
      (n) =>
        `${n.where} is "${n.value}", but the run is in namespace "${namespace}": step Pods run in their run's namespace`,
    );
}

export function runDefinition(
  spec: Record<string, unknown>,
  fileName: string,
  overrides: string | undefined,
  prepared?: Prepared,
  baseEnv: Readonly<Record<string, string>> = {},
): RunDefinition {
  const documents = specDocuments(spec);
  const load = loadDagSpec(spec, { fileName });
  const parsed = parseParamOverrides(overrides ?? '');
  const checked = withParamsSchema(load.dag, applyParamOverrides(load.dag.params.entries, parsed.tokens));
  const params = checked.params;
  const problems = [
    ...load.errors.map(formatIssue),
    ...(parsed.error === undefined ? [] : [`params: ${parsed.error}`]),
    ...checked.problems,
    ...(load.errors.length === 0 ? unsupported(load.dag) : []),
  ];
  const env = evaluateVariables(load.dag, params, baseEnv, prepared);
  const shared = load.dag.container === undefined ? undefined : sharedContainer(load.dag.container, true);
  return {
    dag: load.dag,
    ...(problems.length === 0 ? {} : { rejection: problems.join('; ') }),
    params,
    env,
    positional: params.flatMap((p, i) => (p.positional ? [prepared?.params[i] ?? p.value] : [])),
    paramsJson: encodeParams(params),
    localDags: load.localDags.map((local, i) => ({
      name: local.name,
      document: local.document ?? documents[i + 1] ?? {},
    })),
    needsPrepare: prepared === undefined && needsPreparing(load.dag, params),
    ...(shared !== undefined && 'container' in shared ? { container: shared.container } : {}),
  };
}

/**
 * The values a run is given, checked against the DAG's inline params schema (Dagu 2.x's typed
 * params, or 1.x's `params: {schema, values}`) and completed with its defaults, as the loader
 * checks the file's own defaults. Values known only when the run is evaluated (`$VAR`,
 * backticks) are not checked, as there.
 */
export function withParamsSchema(dag: Dag, params: ParamDef[]): { params: ParamDef[]; problems: string[] } {
  const schema = dag.params.schema;
  if (schema === undefined || typeof schema === 'string' || params.some((p) => /[$`]/.test(p.value)))
    return { params, problems: [] };
  const applied = applyParamsSchema(schema, params);
  return applied.errors.length === 0
    ? { params: applied.entries, problems: [] }
    : { params, problems: applied.errors.map(formatIssue) };
}

/**
 * DAG env first, in order, each value seeing the ones before (env cannot see params); dotenv
 * values over it; then named params, which may use env and earlier params (behaviour-notes
 * 4.5, 4.6). Dotenv values take no part in evaluation: they come from the prepare Pod, which
 * evaluates env and params itself whenever there are dotenv files.
 */
function evaluateVariables(
  dag: Dag,
  params: readonly ParamDef[],
  baseEnv: Readonly<Record<string, string>>,
  prepared: Prepared | undefined,
): EnvVar[] {
  const scope: Record<string, string> = {};
  const out: EnvVar[] = [];
  dag.env.forEach((variable, i) => {
    const value =
      prepared?.env[i] ?? expand(variable.value, { scopes: [scope], environment: baseEnv, shell: true }).value;
    scope[variable.name] = value;
    out.push({ name: variable.name, value });
  });
  out.push(...(prepared?.dotenv ?? []));
  const paramScope: Record<string, string> = {};
  params.forEach((param, i) => {
    const value =
      prepared?.params[i] ??
      expand(param.value, { scopes: [paramScope, scope], environment: baseEnv, shell: true }).value;
    paramScope[param.name] = value;
    if (!param.positional) out.push({ name: param.name, value });
  });
  return out;
}

/** Decides a precondition without a Pod when it is plain text; undefined otherwise. */
export function literalPrecondition(
  condition: Condition,
  variables: Readonly<Record<string, string>>,
): boolean | undefined {
  if (condition.expected === undefined || needsShell(condition)) return undefined;
  return (
    matchesExpected(expand(condition.condition, { scopes: [variables], shell: true }).value, condition.expected) !==
    (condition.negate === true)
  );
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

/**
 * Dagu 2.x `foreach.key` and `foreach.collect` (v2.15.1 `internal/runtime/builtin/foreach/`
 * expandItems, collectOutputs, aggregate): each item's key from its params, the values each
 * succeeded item's run contributes, and the step's output in Dagu's shape. Expressions are
 * resolved as data (nothing runs here: a backtick command is refused when the DAG is loaded).
 * Pure; the rules are in docs/decisions/2026-11-29-foreach-key-collect.md.
 */
import { expand, FOREACH_INDEX, FOREACH_KEY, type Parallel, type StepReference } from '../../../core/dag/index.ts';

type Params = Readonly<Record<string, string>>;

/** What a finished child run's steps left, for `collect` to read. */
export interface ChildNode {
  readonly name: string;
  readonly outputs?: Readonly<Record<string, string>>;
  readonly stepOutputs?: Readonly<Record<string, string>>;
}

/** A reference Dagu would still resolve (`${X}`, `${a.b}`), left after expansion: the value is not known. */
const UNRESOLVED = /\$\{[A-Za-z_][^}]*\}/;

function paramsOf(item: unknown): Params {
  return item !== null && typeof item === 'object' ? (item as Params) : {};
}

/**
 * The items with FOREACH_KEY added, resolved from each item's params and the DAG's variables;
 * or, as in Dagu, why the step fails before any item starts: an empty key, a reference left
 * unresolved, or two items with the same key.
 */
export function keyedItems(
  template: string,
  items: readonly unknown[],
  vars: Params,
  steps: Readonly<Record<string, StepReference>>,
): { readonly items: unknown[] } | { readonly error: string } {
  const seen = new Map<string, number>();
  const keyed: unknown[] = [];
  for (const [index, item] of items.entries()) {
    const params = paramsOf(item);
    const key = expand(template, { scopes: [params, vars], steps }).value;
    if (key === '') return { error: `foreach.key resolved to an empty string for item ${String(index)}` };
    if (UNRESOLVED.test(key))
      return { error: `foreach.key resolved with unresolved reference for item ${String(index)}: ${key}` };
    const first = seen.get(key);
    if (first !== undefined)
      return {
        error: `duplicate foreach item key ${JSON.stringify(key)} at item ${String(index)}; first seen at item ${String(first)}`,
      };
    seen.set(key, index);
    keyed.push({ ...params, [FOREACH_KEY]: key });
  }
  return { items: keyed };
}

/** `${<id>.output}`: the value of the `output:` variable of the body step so named (Dagu's step reference). */
const STEP_OUTPUT_VALUE = /\$\{([A-Za-z][A-Za-z0-9_-]*)\.output\}/g;

/**
 * The values one succeeded item's run contributes (`collect`), with the item's params, the
 * output variables of its steps, the DAG's variables (Dagu resolves it in the step's context), `${steps.<id>.outputs.<name>}` and `${<id>.output}` in reach;
 * or why the item fails (a reference left unresolved), in Dagu's words.
 */
export function collected(
  collect: Readonly<Record<string, string>>,
  item: unknown,
  nodes: readonly ChildNode[],
  vars: Params = {},
): { readonly outputs: Record<string, string> } | { readonly error: string } {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const variables = Object.assign({}, ...nodes.map((n) => n.outputs ?? {})) as Record<string, string>;
  const steps = Object.fromEntries(nodes.map((n) => [n.name, { outputs: n.stepOutputs ?? {} }]));
  const outputs: Record<string, string> = {};
  for (const name of Object.keys(collect).sort()) {
    const text = (collect[name] ?? '').replace(STEP_OUTPUT_VALUE, (whole, id: string) => {
      const values = Object.values(byName.get(id)?.outputs ?? {});
      return values.length === 1 ? (values[0] ?? '') : whole;
    });
    const value = expand(text, { scopes: [paramsOf(item), variables, vars], steps }).value;
    if (UNRESOLVED.test(value))
      return { error: `foreach.collect.${name} resolved with unresolved reference: ${value}` };
    outputs[name] = value;
  }
  return { outputs };
}

/** One item's finished run, as the aggregate reads it. */
export interface ItemRun {
  readonly index: number;
  readonly status: string;
  readonly nodes: readonly ChildNode[];
}

interface ItemRecord {
  readonly index: number;
  readonly key: string;
  readonly status: string;
  readonly outputs?: Record<string, string>;
  readonly error?: string;
}

const SUCCEEDED = new Set(['succeeded', 'partially_succeeded']);

/**
 * The step's output once every item's run ended, in Dagu's shape: `{summary: {total, succeeded,
 * failed}, items: [{index, key, status, outputs | error}], outputs: [collect maps of the
 * succeeded items]}`, by item index; no raw item in it. An item whose collect fails is failed.
 */
export function foreachOutput(
  parallel: Parallel,
  items: readonly unknown[],
  runs: readonly ItemRun[],
  vars: Params = {},
): { readonly output: string; readonly failed: number; readonly partial: boolean } {
  const records = [...runs]
    .sort((a, b) => a.index - b.index)
    .map((run): ItemRecord => {
      const params = paramsOf(items[run.index]);
      const key = params[FOREACH_KEY] ?? params[FOREACH_INDEX] ?? String(run.index);
      const base = { index: run.index, key };
      if (!SUCCEEDED.has(run.status))
        return { ...base, status: run.status === '' ? 'failed' : run.status, error: `item run ended ${run.status}` };
      const result = collected(parallel.collect ?? {}, params, run.nodes, vars);
      if ('error' in result) return { ...base, status: 'failed', error: result.error };
      return { ...base, status: run.status, outputs: result.outputs };
    });
  const succeeded = records.filter((r) => r.outputs !== undefined);
  const output = {
    summary: { total: records.length, succeeded: succeeded.length, failed: records.length - succeeded.length },
    items: records,
    outputs: succeeded.map((r) => r.outputs),
  };
  return {
    output: JSON.stringify(output),
    failed: records.length - succeeded.length,
    partial: records.some((r) => r.status === 'partially_succeeded'),
  };
}

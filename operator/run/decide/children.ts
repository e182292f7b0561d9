/**
 * Sub-DAG steps as child DAGRuns: the items of a `parallel` step, a child's params, derived
 * child run ids, and the result JSON a finished child hands back as the step's output. Pure.
 */
import { createHash } from 'node:crypto';
import {
  expand,
  FOREACH_INDEX,
  FOREACH_ITEM,
  MAX_PARALLEL_ITEMS,
  type Step,
  type StepReference,
} from '../../../core/dag/index.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import { distinctByParams, splitItems } from './parallel.ts';

/** The items of a `parallel` step: a static list, or its expression's value split into items. */
export function parallelItems(step: Step, vars: Readonly<Record<string, string>>): unknown[] {
  const items = step.parallel?.items ?? [];
  const all = typeof items === 'string' ? splitItems(expand(items, { scopes: [vars], shell: true }).value) : [...items];
  return distinctByParams(all, (item) => childParams(step, vars, item));
}

/**
 * The items of a Dagu 2.x foreach whose `items` is an expression (`${steps.list.outputs.files}`):
 * its value, with the variables and the declared outputs of the steps the operator knows, must be
 * a JSON array (Dagu's rule); each item becomes the params of its child as the static rewrite
 * writes them (dialect-foreach.ts), its index keeping equal items apart. Or why the step fails.
 */
export function foreachItems(
  step: Step,
  vars: Readonly<Record<string, string>>,
  steps: Readonly<Record<string, StepReference>>,
): { readonly items: unknown[] } | { readonly error: string } {
  const expression = typeof step.parallel?.items === 'string' ? step.parallel.items : '';
  const value = expand(expression, { scopes: [vars], steps, shell: true }).value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed))
    return { error: `foreach.items string must resolve to a JSON array: ${JSON.stringify(value.slice(0, 200))}` };
  if (parsed.length > MAX_PARALLEL_ITEMS)
    return {
      error: `foreach expansion produced ${String(parsed.length)} items; maximum is ${String(MAX_PARALLEL_ITEMS)}`,
    };
  return {
    items: parsed.map((item: unknown, i) => ({
      [FOREACH_INDEX]: String(i),
      [FOREACH_ITEM]: typeof item === 'string' ? item : JSON.stringify(item),
    })),
  };
}

/**
 * A child's params: the step's `params` with the parent's variables (and `${ITEM}` for a
 * parallel item) expanded; without `params`, a parallel item is the child's params itself.
 */
export function childParams(step: Step, vars: Readonly<Record<string, string>>, item: unknown): string | undefined {
  const itemText = item === undefined ? undefined : typeof item === 'string' ? item : JSON.stringify(item);
  const scope = itemText === undefined ? vars : { ...vars, ITEM: itemText };
  if (step.params === undefined) return itemText;
  const text = typeof step.params === 'string' ? step.params : JSON.stringify(step.params);
  return expand(text, { scopes: [scope], shell: true }).value;
}

/** Child run ids: derived, so that a parent reconciled twice reaches the same child. */
export function subRunId(parentRunId: string, step: string, attempt: number): string {
  return createHash('sha256')
    .update(`${parentRunId}:${step}:${String(attempt)}`)
    .digest('hex')
    .slice(0, 32);
}

/** What a sub-DAG step outputs: `${R.outputs.NAME}` reads the child's outputs from it. */
export function childResult(child: DagRunResource): Record<string, unknown> {
  const status = child.status ?? {};
  const outputs = Object.assign({}, ...(status.nodes ?? []).map((n) => n.outputs ?? {})) as Record<string, string>;
  return {
    name: child.spec.dagName ?? '',
    dagRunId: child.spec.dagRunId ?? '',
    params: status.params ?? '',
    outputs,
    status: status.statusLabel ?? '',
  };
}

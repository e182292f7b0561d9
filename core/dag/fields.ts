/**
 * Normalisers for fields that appear both at DAG and at step level: env, preconditions,
 * label selectors and shells. Each takes the shape-checked value and a path for its errors.
 */
import { splitCommand } from './command.ts';
import { childPath, issue, type DagIssue } from './issues.ts';
import type { Condition, EnvVar } from './model.ts';
import { paramValue } from './params.ts';

export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export type EnvInput = readonly (string | Record<string, unknown>)[] | Record<string, unknown> | undefined;

/** `[A=1, {B: 2}]` or `{A: 1, B: 2}` into ordered variables; order matters for evaluation. */
export function envFromFile(input: EnvInput, path: string, errors: DagIssue[]): EnvVar[] {
  if (input === undefined) return [];
  const add = (vars: EnvVar[], name: string, value: unknown, at: string): void => {
    if (!ENV_NAME.test(name))
      errors.push(
        issue(at, `"${name}" is not a valid variable name (letters, digits and _, not starting with a digit)`),
      );
    else vars.push({ name, value: paramValue(value) });
  };
  const vars: EnvVar[] = [];
  if (!Array.isArray(input)) {
    for (const [name, value] of Object.entries(input)) add(vars, name, value, childPath(path, name));
    return vars;
  }
  (input as readonly (string | Record<string, unknown>)[]).forEach((item, i) => {
    const at = childPath(path, i);
    if (typeof item !== 'string') {
      for (const [name, value] of Object.entries(item)) add(vars, name, value, at);
      return;
    }
    const eq = item.indexOf('=');
    if (eq <= 0) errors.push(issue(at, `must be NAME=value or a NAME: value mapping, not ${JSON.stringify(item)}`));
    else add(vars, item.slice(0, eq).trim(), item.slice(eq + 1), at);
  });
  return vars;
}

type ConditionInput = string | Record<string, unknown>;
type ConditionsInput = ConditionInput | readonly ConditionInput[] | undefined;

/** Merges `preconditions` and the legacy `precondition` into one list of conditions. */
export function conditionsFromFile(
  plural: ConditionsInput,
  singular: ConditionsInput,
  path: string,
  errors: DagIssue[],
): Condition[] {
  const read = (input: ConditionsInput, at: string): Condition[] => {
    if (input === undefined) return [];
    if (!Array.isArray(input)) return oneCondition(input as ConditionInput, at, errors);
    return (input as readonly ConditionInput[]).flatMap((item, i) => oneCondition(item, childPath(at, i), errors));
  };
  return [...read(plural, childPath(path, 'preconditions')), ...read(singular, childPath(path, 'precondition'))];
}

function oneCondition(input: ConditionInput, path: string, errors: DagIssue[]): Condition[] {
  if (typeof input === 'string') {
    if (input.trim() === '') errors.push(issue(path, 'condition is empty'));
    return [{ condition: input }];
  }
  const { condition, command, expected, negate } = input as {
    condition?: string;
    command?: string;
    expected?: string;
    negate?: boolean;
  };
  if (condition !== undefined && command !== undefined) {
    errors.push(issue(path, 'use either condition or command, not both'));
    return [];
  }
  const text = condition ?? command;
  if (text === undefined || text.trim() === '') {
    errors.push(issue(path, 'condition (or command) is required'));
    return [];
  }
  if (command !== undefined && expected !== undefined) {
    errors.push(
      issue(childPath(path, 'expected'), 'applies to a condition, not to a command (a command is met when it exits 0)'),
    );
  }
  return [{ condition: text, ...(expected === undefined ? {} : { expected }), ...(negate === true ? { negate } : {}) }];
}

/** Node labels as strings; YAML may have read `gpu: true` as a boolean. */
export function labelsFromFile(input: Record<string, unknown> | undefined): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(input ?? {})) labels[key.trim()] = paramValue(value).trim();
  return labels;
}

/** `bash -e` or `[bash, -e]` into program and arguments. */
export function shellFromFile(
  input: string | readonly string[] | undefined,
  path: string,
  errors: DagIssue[],
): string[] | undefined {
  if (input === undefined) return undefined;
  const words = typeof input === 'string' ? splitCommand(input).words : [...input];
  if (words.length === 0 || words[0] === '') {
    errors.push(issue(path, 'shell is empty'));
    return undefined;
  }
  return words;
}

/** `a, b` or `[a, b]` into a list, dropping blanks. */
export function listFromFile(input: string | readonly string[] | undefined, splitCommas = false): string[] {
  if (input === undefined) return [];
  const items = typeof input === 'string' ? (splitCommas ? input.split(',') : [input]) : input;
  return items.map((item) => item.trim()).filter((item) => item !== '');
}

/** An integer that may also be written as a numeric string. */
export function integerFrom(value: number | string, path: string, errors: DagIssue[]): number | undefined {
  if (typeof value === 'number') return value;
  if (/^-?\d+$/.test(value.trim())) return Number(value.trim());
  errors.push(issue(path, `must be an integer, not ${JSON.stringify(value)}`));
  return undefined;
}

/**
 * Dagu 2.x's `log_output` (on the DAG and on a step): whether a step's stdout and stderr go to
 * two log files (`separate`, the default) or one (`merged`). Kubedag's log store keeps the two
 * streams apart, always: `separate` is what Kubedag does, so it is read and taken out; `merged`
 * is refused by name, with what to write instead. Dagu's value rules (v2.15.1
 * internal/spec/types/logoutput.go): a string, trimmed and lower-cased, empty meaning separate;
 * null means not set. Pure.
 */
import { refusal } from './dialect-refusal.ts';
import { childPath, issue, type DagIssue } from './issues.ts';

type Mapping = Record<string, unknown>;

/** The mapping without `log_output`, its value checked (errors say what is wrong with it). */
export function withoutLogOutput(mapping: Mapping, path: string, errors: DagIssue[]): Mapping {
  if (!Object.hasOwn(mapping, 'log_output')) return mapping;
  const { log_output: value, ...rest } = mapping;
  const problem = logOutputProblem(value, childPath(path, 'log_output'));
  if (problem !== undefined) errors.push(problem);
  return rest;
}

function logOutputProblem(value: unknown, path: string): DagIssue | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'string') return issue(path, `log_output must be a string, got ${typeName(value)}`);
  const mode = value.trim().toLowerCase();
  if (mode === '' || mode === 'separate') return undefined;
  if (mode === 'merged') return refusal(path, 'log_output: merged');
  return issue(path, `invalid log_output value: "${value}" (must be 'separate' or 'merged')`);
}

function typeName(value: unknown): string {
  if (Array.isArray(value)) return 'a sequence';
  return typeof value === 'object' ? 'a mapping' : `a ${typeof value}`;
}

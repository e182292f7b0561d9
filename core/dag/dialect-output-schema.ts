/**
 * A 2.x step's `output_schema`, checked (core/dag/output-schema.ts) and kept as written for the
 * 1.x shape, which takes it under the same name. A sub-DAG step has no stdout in Kubedag, so
 * there it is refused by name. Pure.
 */
import { outputSchemaProblem } from './output-schema.ts';
import { refusal } from './dialect-refusal.ts';
import { childPath, issue, type DagIssue } from './issues.ts';

type Mapping = Record<string, unknown>;

export function withOutputSchema(step: Mapping, path: string, errors: DagIssue[]): Mapping {
  if (step.output_schema === undefined || step.output_schema === null) {
    if (!Object.hasOwn(step, 'output_schema')) return step;
    const { output_schema: _, ...rest } = step;
    return rest;
  }
  const at = childPath(path, 'output_schema');
  const problem =
    step.call !== undefined ? refusal(at, 'output_schema on a sub-DAG step') : issueOf(at, step.output_schema);
  if (problem === undefined) return step;
  errors.push(problem);
  const { output_schema: _, ...rest } = step;
  return rest;
}

function issueOf(at: string, value: unknown): DagIssue | undefined {
  const problem = outputSchemaProblem(value);
  return problem === undefined ? undefined : issue(at, problem);
}

/**
 * A document none of whose keys tells Dagu's two dialects apart is read as 1.x
 * (docs/decisions/2026-11-29-dagu-2x-dialect.md, "Ambiguous files are 1.x"). Such a document
 * means the same in both dialects but for two forms, and for those the reader says, as a
 * warning, that it chose 1.x and what Dagu 2.x would have read instead:
 *
 * - `run: <a DAG name>` calls that DAG in 1.x and runs it as a shell command in 2.x;
 * - a step with an `id` and no `name` gets a generated name (`cmd_1`) in 1.x and its id in 2.x.
 *
 * A warning, not an error: both readings are valid, and every file Kubedag accepted keeps its
 * meaning. Pure: the document as written and the model built from it in, warnings out.
 */
import { isMapping } from './mapping.ts';
import { childPath, issue, type DagIssue } from './issues.ts';
import type { Dag } from './model.ts';

type Mapping = Record<string, unknown>;

const READ_AS =
  'this file has no key written only in Dagu 1.x or only in 2.x, so it is read as 1.x, as Dagu 1.24 reads it';
/** What the 1.x reader already says of every `run:` (step.ts); the fuller warning takes its place. */
const RUN_DEPRECATED = '"run" is deprecated; use "call"';

interface WrittenStep {
  readonly path: string;
  readonly step: Mapping;
}

/** The 1.x reader matches keys case-insensitively, so `Run:` is `run:`. */
function valueOf(step: Mapping, key: string): unknown {
  const found = Object.keys(step).find((k) => k.toLowerCase() === key);
  return found === undefined ? undefined : step[found];
}

/**
 * Every step mapping as written: the list (groups flattened) or the name-to-step mapping. Not
 * the handlers: `handlerOn` is a 1.x spelling, so a file that has them is never ambiguous.
 */
function writtenSteps(document: Mapping): WrittenStep[] {
  const found: WrittenStep[] = [];
  const walk = (value: unknown, path: string): void => {
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        walk(item, childPath(path, i));
      });
    } else if (isMapping(value)) found.push({ path, step: value });
  };
  const steps = valueOf(document, 'steps');
  if (isMapping(steps)) for (const [name, step] of Object.entries(steps)) walk(step, childPath('steps', name));
  else walk(steps, 'steps');
  return found;
}

function runWarning({ path, step }: WrittenStep): DagIssue[] {
  const run = valueOf(step, 'run');
  if (typeof run !== 'string') return [];
  const name = run.trim();
  if (name === '') return [];
  return [
    issue(
      childPath(path, 'run'),
      `${RUN_DEPRECATED}: ${READ_AS}, and "run: ${name}" calls the DAG "${name}"; a Dagu 2.x file runs "${name}" as a shell command (a key only 2.x writes, snake_case such as working_dir, makes the file 2.x)`,
    ),
  ];
}

function idWarning({ path, step }: WrittenStep, dag: Dag): DagIssue[] {
  const id = valueOf(step, 'id');
  if (typeof id !== 'string' || valueOf(step, 'name') !== undefined || !path.startsWith('steps[')) return [];
  const generated = dag.steps.find((s) => s.id === id)?.name;
  if (generated === undefined || generated === id) return [];
  return [
    issue(
      path,
      `${READ_AS}, and this step without a name is named "${generated}"; Dagu 2.x names it by its id "${id}" (write "name: ${id}" to have that name in both)`,
    ),
  ];
}

/**
 * The warnings of a document read as 1.x because none of its keys decided (the caller knows):
 * those found so far, each `run:` deprecation replaced by the fuller warning, then the names.
 */
export function withAmbiguityWarnings(warnings: readonly DagIssue[], document: unknown, dag: Dag): DagIssue[] {
  if (!isMapping(document)) return [...warnings];
  const steps = writtenSteps(document);
  const runs = new Map(steps.flatMap(runWarning).map((w) => [w.path, w]));
  const kept = warnings.map((w) => (w.message === RUN_DEPRECATED ? (runs.get(w.path) ?? w) : w));
  return [...kept, ...steps.flatMap((step) => idWarning(step, dag))];
}

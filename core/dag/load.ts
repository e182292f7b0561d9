/**
 * The entry point of the definition language: DAG file text in, canonical DAG (and the local
 * DAGs of a multi-document file) out, with every problem as a located error. Never throws on
 * any input.
 */
import { readDialect, twoXPath, withoutFollowOns } from './dialect.ts';
import { withAmbiguityWarnings } from './dialect-ambiguous.ts';
import type { ForeachBody } from './dialect-foreach.ts';
import { childPath, issue, nestIssues, type DagIssue } from './issues.ts';
import { DEFAULTS, type Dag } from './model.ts';
import { normalizeDag } from './normalize.ts';
import type { DagFile } from './schema.ts';
import { checkStructure } from './structure.ts';
import { dagNameProblem, validateSteps } from './validate.ts';
import { parseYamlDocuments } from './yaml.ts';

export interface LoadOptions {
  /** The DAG file name without extension; the default DAG name. */
  readonly fileName?: string;
  /** A name that wins over the file's own (an inline run's `name`, a start's `dagName`). */
  readonly name?: string;
}

export interface LocalDag {
  readonly name: string;
  readonly dag: Dag;
  readonly errors: DagIssue[];
  /** The document a sub-run of a generated local DAG (a foreach body) runs; a written one's is in `documents`. */
  readonly document?: Record<string, unknown>;
}

export interface DagLoad {
  /** Always present; partial (invalid parts left at their defaults) when there are errors. */
  readonly dag: Dag;
  /** The DAGs of the later documents, callable by name from the first. */
  readonly localDags: LocalDag[];
  /** Every error, those of local DAGs prefixed with `documents[i]`. */
  readonly errors: DagIssue[];
  readonly warnings: DagIssue[];
  /** The non-empty documents as written: the first is the DAG, the rest its local DAGs. */
  readonly documents: Record<string, unknown>[];
}

export function loadDag(text: string, options: LoadOptions = {}): DagLoad {
  const fallbackName = options.name ?? options.fileName ?? '';
  const parsed = parseYamlDocuments(text);
  const documents = parsed.documents.filter((value) => !isEmptyDocument(value));
  if (parsed.errors.length > 0) return failed(fallbackName, parsed.errors, documents);
  const [first, ...rest] = documents;
  if (first === undefined) return failed(fallbackName, [issue('', 'the file holds no DAG (it is empty)')], []);
  const main = loadDocument(first, options.name, options.fileName);
  const localDags = rest.map((document) => loadDocument(document, undefined, undefined, true));
  const errors = [...main.errors];
  const warnings = [...main.warnings];
  const seen = new Set<string>();
  localDags.forEach((local, i) => {
    const prefix = childPath('documents', i + 1);
    if (local.dag.name !== '' && seen.has(local.dag.name))
      local.errors.push(
        issue('name', `"${local.dag.name}" names another DAG of this file; local DAG names must be unique`),
      );
    seen.add(local.dag.name);
    errors.push(...nestIssues(prefix, local.errors));
    warnings.push(...nestIssues(prefix, local.warnings));
  });
  // Foreach bodies come after the written local DAGs, so that `documents[i + 1]` stays the i-th's.
  const bodies = [main, ...localDags].flatMap((load, i) =>
    load.bodies.map((body) => {
      const loaded = loadDocument(body.document, undefined, undefined, true);
      const at = i === 0 ? body.path : childPath(childPath('documents', i), body.path);
      errors.push(...nestIssues(at, loaded.errors));
      warnings.push(...nestIssues(at, loaded.warnings));
      if (seen.has(body.name))
        errors.push(
          issue(at, `its body's DAG name "${body.name}" names another DAG of this file; give the step another id`),
        );
      seen.add(body.name);
      return { name: body.name, dag: loaded.dag, errors: loaded.errors, document: body.document };
    }),
  );
  return {
    dag: main.dag,
    localDags: [
      ...localDags.map((local) => ({ name: local.dag.name, dag: local.dag, errors: local.errors })),
      ...bodies,
    ],
    errors,
    warnings,
    documents: documents as Record<string, unknown>[],
  };
}

interface DocumentLoad {
  readonly dag: Dag;
  readonly errors: DagIssue[];
  readonly warnings: DagIssue[];
  readonly bodies: readonly ForeachBody[];
}

function loadDocument(
  document: unknown,
  override: string | undefined,
  fileName: string | undefined,
  local = false,
): DocumentLoad {
  const read = readDialect(document);
  const structure = checkStructure(read.document);
  const errors = [...structure.errors];
  const warnings: DagIssue[] = [];
  const file = withoutBrokenFields(structure.value, structure.errors);
  const name = (override ?? file.name ?? fileName ?? '').trim();
  const nameProblem = dagNameProblem(name);
  if (nameProblem !== undefined) {
    errors.push(
      issue('name', local && name === '' ? 'is required for a DAG after the first document of a file' : nameProblem),
    );
  }
  const { dag, drafts } = normalizeDag(file, name, { errors, warnings }, read.dialect);
  errors.push(...validateSteps(drafts, dag));
  const stepsBroken = structure.errors.some((e) => e.path === '' || e.path.startsWith('steps'));
  if (dag.steps.length === 0 && !stepsBroken) errors.push(issue('steps', 'a DAG needs at least one step'));
  if (read.dialect === '1.x') {
    const told = read.ambiguous ? withAmbiguityWarnings(warnings, document, dag) : warnings;
    return { dag, errors: [...read.errors, ...errors], warnings: told, bodies: [] };
  }
  // A 2.x file's problems are told in its own keys, though found in its 1.x shape.
  const spelled = (found: DagIssue): DagIssue => issue(twoXPath(found.path), found.message);
  return {
    dag,
    errors: [...read.errors, ...withoutFollowOns(read.errors, errors.map(spelled))],
    warnings: warnings.map(spelled),
    bodies: read.bodies,
  };
}

/** Keys whose children fail alone: one broken step or handler leaves the others usable. */
const PARTIAL_KEYS = new Set(['steps', 'handlerOn']);

/**
 * Drops the parts of a document that failed the shape check, so that the rest can still be
 * normalised into a partial DAG: a broken step or handler goes alone, any other key whole.
 */
function withoutBrokenFields(value: DagFile, errors: readonly DagIssue[]): DagFile {
  if (errors.length === 0) return value;
  const broken = errors.flatMap((error) => brokenPart(error.path));
  const whole = new Set(
    broken.filter((part) => part.child === undefined || !PARTIAL_KEYS.has(part.key)).map((part) => part.key),
  );
  const kept = Object.entries(value as Record<string, unknown>)
    .filter(([key]) => !whole.has(key))
    .map(([key, item]) => {
      if (!PARTIAL_KEYS.has(key)) return [key, item] as const;
      const children = new Set(broken.filter((part) => part.key === key).map((part) => part.child));
      return [key, withoutChildren(item, children)] as const;
    });
  return Object.fromEntries(kept);
}

function brokenPart(path: string): { key: string; child?: string }[] {
  const match = /^([A-Za-z0-9_]+)(?:\[(\d+)\]|\.([A-Za-z0-9_-]+)|\["((?:[^"\\]|\\.)*)"\])?/.exec(path);
  if (match?.[1] === undefined) return [];
  const quoted = match[4] === undefined ? undefined : (JSON.parse(`"${match[4]}"`) as string);
  const child = match[2] ?? match[3] ?? quoted;
  return [child === undefined ? { key: match[1] } : { key: match[1], child }];
}

/** List entries become holes (positions still name generated steps); mapping keys go. */
function withoutChildren(container: unknown, children: ReadonlySet<string | undefined>): unknown {
  if (Array.isArray(container))
    return container.map((item: unknown, i) => (children.has(String(i)) ? undefined : item));
  if (container === null || typeof container !== 'object') return container;
  return Object.fromEntries(Object.entries(container).filter(([key]) => !children.has(key)));
}

function isEmptyDocument(value: unknown): boolean {
  return (
    value === null ||
    value === undefined ||
    (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0)
  );
}

function failed(name: string, errors: DagIssue[], documents: unknown[]): DagLoad {
  return {
    dag: emptyDag(name),
    localDags: [],
    errors,
    warnings: [],
    documents: documents as Record<string, unknown>[],
  };
}

/** The DAG a file that could not be read at all stands for: a name and the defaults. */
export function emptyDag(name: string): Dag {
  return {
    name,
    tags: [],
    type: DEFAULTS.type,
    dotenv: DEFAULTS.dotenv,
    schedule: { start: [], stop: [], restart: [] },
    skipIfSuccessful: false,
    env: [],
    params: { entries: [] },
    steps: [],
    handlerOn: {},
    preconditions: [],
    timeoutSec: 0,
    delaySec: 0,
    restartWaitSec: 0,
    histRetentionDays: DEFAULTS.histRetentionDays,
    maxActiveRuns: DEFAULTS.maxActiveRuns,
    maxActiveSteps: DEFAULTS.maxActiveSteps,
    maxCleanUpTimeSec: DEFAULTS.maxCleanUpTimeSec,
    maxOutputSize: DEFAULTS.maxOutputSize,
    workerSelector: {},
    runConfig: { disableParamEdit: false, disableRunIdEdit: false },
    secrets: [],
    mailOn: { success: false, failure: false, wait: false },
  };
}

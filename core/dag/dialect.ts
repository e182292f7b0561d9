/**
 * Dagu's two dialects of the DAG format: 1.x (camelCase keys, `executor:`, `run:` calls a
 * sub-DAG) and 2.x (snake_case keys, `run:` is a shell command). The dialect is decided per
 * document from the keys it writes (decideDialect); a 2.x document is rewritten into the 1.x
 * shape (toOneX) so that one normaliser builds the model of both. The tables are in
 * dialect-spellings.ts; the rules in docs/decisions/2026-11-29-dagu-2x-dialect.md and
 * 2026-11-29-dagu-2x-actions-values.md. What a step runs is rewritten by dialect-commands.ts,
 * named values (defaults, labels, consts, references) by withNamedValues.
 */
import { stepExecution, withShellArgs } from './dialect-commands.ts';
import { withStepDefaults } from './dialect-defaults.ts';
import { withLabelsAsTags } from './dialect-labels.ts';
import { schemaParamsAsOneX, typedParamsAsSchema } from './dialect-params.ts';
import { withApproval } from './dialect-approval.ts';
import { withoutLogOutput } from './dialect-log-output.ts';
import { withOutputSchema } from './dialect-output-schema.ts';
import { refuseOutputsInContainer, withDeclaredOutputs, withPickedOutputs } from './dialect-outputs.ts';
import { withPreconditionEval } from './dialect-preconditions.ts';
import { readConsts, withValues } from './dialect-values.ts';
import { templateRefErrors } from './dialect-template-ref.ts';
import { bodyDocument, foreachReferenceErrors, withForeachSteps, type ForeachBody } from './dialect-foreach.ts';
import { isRefusal, refusal, type DeliberateFeature } from './dialect-refusal.ts';
import { referenceWhy } from './dialect-refusal-narrow.ts';
import { withoutCustomActions } from './dialect-custom-actions.ts';
import { withResourceLimits } from './dialect-resources.ts';
import { withRouterSteps } from './dialect-router.ts';
import { decideDialect, isTypedParams, oneXName, type Dialect } from './dialect-decide.ts';
import { isMapping } from './mapping.ts';
import { CHILD_SCOPES, REFUSED_FEATURES, SETTINGS_SPELLINGS, SPELLINGS, type Scope } from './dialect-spellings.ts';
import { childPath, type DagIssue } from './issues.ts';

export { decideDialect, type Dialect, type DialectDecision, type DialectMarker } from './dialect-decide.ts';

type Mapping = Record<string, unknown>;

export interface DialectRead {
  readonly dialect: Dialect;
  /** The document in the 1.x shape the rest of the loader reads. */
  readonly document: unknown;
  readonly errors: DagIssue[];
  /** The bodies of its foreach steps, each to load as a local DAG (2.x documents). */
  readonly bodies: readonly ForeachBody[];
  /** No key decided: read as 1.x, the reader's choice rather than the file's (dialect-ambiguous.ts). */
  readonly ambiguous: boolean;
}

/** Decides the dialect and, for a 2.x document, rewrites it into the 1.x shape. */
export function readDialect(document: unknown): DialectRead {
  const decision = decideDialect(document);
  if (decision.dialect === '1.x' || !isMapping(document))
    return {
      dialect: decision.dialect,
      document,
      errors: decision.errors,
      bodies: [],
      ambiguous: decision.marker === undefined,
    };
  const errors = [...decision.errors, ...templateRefErrors(document, '')];
  const valued = withNamedValues(withoutCustomActions(document, errors), errors);
  const looped = withForeachSteps(valued, errors);
  const rewritten = toOneX(withRouterSteps(looped.document, errors), errors);
  errors.push(...referenceErrors(valued, ''), ...foreachReferenceErrors(rewritten, ''));
  const bodies = looped.bodies.map((body) => ({ ...body, document: bodyDocument(body, valued) }));
  return { dialect: '2.x', document: rewritten, errors, bodies, ambiguous: false };
}

/** Step defaults written into the steps, labels as tags, constants substituted, `${params.x}`/`${env.X}` made variables. */
function withNamedValues(document: Mapping, errors: DagIssue[]): Mapping {
  const { consts, ...rest } = withLabelsAsTags(withStepDefaults(document, errors), errors);
  return withValues(rest, readConsts(consts, errors), '', errors) as Mapping;
}

/** A 2.x document in the 1.x shape; what this slice does not read becomes an error. */
export function toOneX(document: Mapping, errors: DagIssue[]): Mapping {
  return rewriteMapping(document, 'root', '', errors);
}

function rewriteMapping(input: Mapping, scope: Scope, path: string, errors: DagIssue[]): Mapping {
  const value =
    scope === 'step'
      ? withApproval(
          withOutputs(
            stepExecution(withTextDepends(namedById(withoutLogOutput(input, path, errors))), path, errors),
            path,
            errors,
          ),
          path,
          errors,
        )
      : scope === 'root'
        ? withShellArgs(withResourceLimits(withoutLogOutput(input, path, errors), errors), path, errors)
        : scope === 'precondition'
          ? withPreconditionEval(input, path, errors)
          : input;
  const out: Mapping = {};
  for (const [key, item] of Object.entries(value)) {
    const at = childPath(path, key);
    const feature = REFUSED_BY_SCOPE[scope]?.[key];
    if (feature !== undefined) {
      errors.push(refusal(at, feature));
      continue;
    }
    const name = oneXName(scope, key);
    out[name] = rewriteChild(scope, name, item, at, errors);
  }
  if (scope === 'root') refuseRootForms(out, errors);
  return out;
}

/** Declared outputs, the object forms of `output`/`stdout`/`stderr` (picked outputs, artifacts), output_schema. */
function withOutputs(step: Mapping, path: string, errors: DagIssue[]): Mapping {
  return withOutputSchema(withPickedOutputs(withDeclaredOutputs(step, path, errors), path, errors), path, errors);
}

/** A 2.x step without a name is named by its id (Dagu's finalizeBuiltStepName); 1.x generates one. */
function namedById(step: Mapping): Mapping {
  return step.name === undefined && typeof step.id === 'string' ? { name: step.id, ...step } : step;
}

/**
 * 2.x reads a number in `depends` as the step name it spells (`depends: [42]` names the step
 * "42"; Dagu's conformance fixture valid_non_string_depends); 1.x takes only text.
 */
function withTextDepends(step: Mapping): Mapping {
  const text = (item: unknown): unknown => (typeof item === 'number' ? String(item) : item);
  const depends = step.depends;
  if (typeof depends === 'number') return { ...step, depends: text(depends) };
  return Array.isArray(depends) ? { ...step, depends: depends.map(text) } : step;
}

/** The refused keys by scope; the type checks each feature has its reason in DELIBERATE. */
const REFUSED_BY_SCOPE: Readonly<Partial<Record<Scope, Readonly<Record<string, DeliberateFeature>>>>> =
  REFUSED_FEATURES;

/** 2.x kinds of DAG Kubedag does not run (`type: agent`, `build`, `controller`). */
export const REFUSED_DAG_TYPES: Readonly<Record<string, DeliberateFeature>> = {
  agent: 'type: agent (agent DAGs)',
  build: 'type: build (build DAGs)',
  controller: 'type: controller (controller DAGs)',
};

function refuseRootForms(out: Mapping, errors: DagIssue[]): void {
  // 2.x runs the steps of a DAG that names no type as a graph (README_SCHEMA.md, `buildType`);
  // 1.x as a chain: the default is written out so that the 1.x reader keeps 2.x's meaning.
  if (out.type === undefined) out.type = 'graph';
  refuseOutputsInContainer(out, errors);
  if (isTypedParams(out.params)) out.params = typedParamsAsSchema(out.params, errors);
  else if (out.params !== undefined) out.params = schemaParamsAsOneX(out.params, errors);
  if (out.params === undefined) delete out.params;
  const refusedType =
    typeof out.type === 'string' && Object.hasOwn(REFUSED_DAG_TYPES, out.type)
      ? REFUSED_DAG_TYPES[out.type]
      : undefined;
  if (refusedType !== undefined) {
    errors.push(refusal('type', refusedType));
    delete out.type;
  }
}

/**
 * Drops what the loader found wrong with a part only because the rewrite took something out of
 * it: a problem of a mapping (or any part above) that held a refused key (a jq step whose
 * `with.input` was refused "needs script"), and a "needs ..." of a step whose `action:` was
 * miswritten ("needs a command or a script", its `parallel` "needs call").
 */
export function withoutFollowOns(dialectErrors: readonly DagIssue[], later: readonly DagIssue[]): DagIssue[] {
  const refusedIn = new Set(dialectErrors.filter(isRefusal).flatMap((e) => ancestors(e.path)));
  const above = new Set(dialectErrors.flatMap((e) => ancestors(e.path)));
  return later.filter(
    (e) =>
      !refusedIn.has(e.path) &&
      !(e.message.startsWith('needs ') && (above.has(e.path) || above.has(parentPath(e.path)))),
  );
}

function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let at = path, up = parentPath(at); up !== at; at = up, up = parentPath(at)) out.push(up);
  return out;
}

function parentPath(path: string): string {
  return path.replace(/(?:\.[A-Za-z_][A-Za-z0-9_-]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\])$/, '');
}

function rewriteChild(scope: Scope, name: string, item: unknown, path: string, errors: DagIssue[]): unknown {
  if (scope === 'root' && name === 'steps') return rewriteSteps(item, path, errors);
  if (scope === 'handlerOn') return rewriteAny(item, 'step', path, errors);
  const child = CHILD_SCOPES[scope]?.[name];
  return child === undefined ? item : rewriteAny(item, child, path, errors);
}

function rewriteAny(item: unknown, scope: Scope, path: string, errors: DagIssue[]): unknown {
  if (Array.isArray(item)) return item.map((entry: unknown, i) => rewriteAny(entry, scope, childPath(path, i), errors));
  return isMapping(item) ? rewriteMapping(item, scope, path, errors) : item;
}

function rewriteSteps(item: unknown, path: string, errors: DagIssue[]): unknown {
  if (Array.isArray(item)) return rewriteAny(item, 'step', path, errors);
  if (!isMapping(item)) return item;
  return Object.fromEntries(
    Object.entries(item).map(([name, step]) => [name, rewriteAny(step, 'step', childPath(path, name), errors)]),
  );
}

const REFERENCE = /\$\{(params|steps|env)\.([^}$]*)(\}?)/g;

/** `${steps.<id>.outputs.<name>}`, the one `${steps.…}` form Dagu 2.x resolves (strict, four parts). */
const STEP_OUTPUT = /^[A-Za-z][A-Za-z0-9_]*\.outputs\.[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The `${steps.…}` references other than a step's declared output, and the
 * `${params.…}`/`${env.…}` that withValues could not make a variable (a name no variable can have).
 */
function referenceErrors(value: unknown, path: string): DagIssue[] {
  if (typeof value === 'string') {
    const refused = [...value.matchAll(REFERENCE)].find(
      (m) => !(m[1] === 'steps' && m[3] === '}' && STEP_OUTPUT.test(m[2] ?? '')),
    );
    return refused === undefined
      ? []
      : [
          refusal(
            path,
            `\${${refused[1] ?? ''}.…} references${refused[1] === 'steps' ? ' other than ${steps.<id>.outputs.<name>}' : ''}`,
            referenceWhy(refused[1] ?? ''),
          ),
        ];
  }
  if (Array.isArray(value)) return value.flatMap((item: unknown, i) => referenceErrors(item, childPath(path, i)));
  if (!isMapping(value)) return [];
  return Object.entries(value).flatMap(([key, item]) => referenceErrors(item, childPath(path, key)));
}

const TWO_X_KEYS = Object.fromEntries(
  (Object.keys(SPELLINGS) as Scope[]).map((scope) => [
    scope,
    Object.fromEntries(Object.entries(SPELLINGS[scope]).map(([twoX, oneX]) => [oneX, twoX])),
  ]),
) as unknown as Record<Scope, Readonly<Record<string, string>>>;

/** Where the walk of a path is: in a mapping of a scope, among steps, or in user data. */
type PathState = Scope | 'steps' | 'stepList' | 'settings' | 'opaque';

/** 1.x key -> 2.x key of every executor's settings (no 1.x key is two types' with different 2.x keys). */
const SETTINGS_TWO_X: Readonly<Record<string, string>> = Object.fromEntries(
  Object.values(SETTINGS_SPELLINGS).flatMap((spellings) =>
    Object.entries(spellings).map(([twoX, oneX]) => [oneX, twoX]),
  ),
);

const SEGMENT = /\.?([A-Za-z_][A-Za-z0-9_-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/gy;

function segmentsOf(path: string): (string | number)[] | undefined {
  const segments: (string | number)[] = [];
  SEGMENT.lastIndex = 0;
  let match: RegExpExecArray | null;
  while (SEGMENT.lastIndex < path.length && (match = SEGMENT.exec(path)) !== null) {
    segments.push(match[2] !== undefined ? Number(match[2]) : (match[1] ?? (JSON.parse(match[3] ?? '""') as string)));
  }
  return SEGMENT.lastIndex === path.length ? segments : undefined;
}

function nextState(state: PathState, segment: string | number): PathState {
  if (state === 'opaque' || state === 'settings') return 'opaque';
  if (typeof segment === 'number') return state === 'steps' ? 'stepList' : state;
  if (state === 'steps') return 'step';
  const scope = state === 'stepList' ? 'step' : state;
  const name = oneXName(scope, segment);
  if (scope === 'root' && name === 'steps') return 'steps';
  if (scope === 'handlerOn') return 'step';
  // A typed step's executor settings, renamed by SETTINGS_SPELLINGS.
  if (scope === 'step' && (name === 'with' || name === 'config')) return 'settings';
  return CHILD_SCOPES[scope]?.[name] ?? 'opaque';
}

/**
 * A path into the 1.x shape of a 2.x document, as the file spelled it:
 * `steps[0].retryPolicy.intervalSec` -> `steps[0].retry_policy.interval_sec`. A path already in
 * 2.x keys is returned as it is.
 */
export function twoXPath(path: string): string {
  const segments = segmentsOf(path);
  if (segments === undefined) return path;
  let state: PathState = 'root';
  let out = '';
  for (const segment of segments) {
    const scope = state === 'stepList' ? 'step' : state;
    const spelled =
      typeof segment !== 'string' || scope === 'steps' || scope === 'opaque'
        ? segment
        : scope === 'settings'
          ? (SETTINGS_TWO_X[segment] ?? segment)
          : (TWO_X_KEYS[scope][segment] ?? segment);
    out = childPath(out, spelled);
    state = nextState(state, segment);
  }
  return out;
}

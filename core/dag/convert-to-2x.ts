/**
 * A Dagu 1.x document rewritten in Dagu 2.x keys, as plain data (`kubedag convert --to 2.x`).
 * The spellings come from the one table (dialect-spellings.ts) read backwards; the rules that
 * are more than a rename are each a function below. What has no faithful 2.x form is a loss,
 * reported at the 1.x path and left out. docs/decisions/2026-11-29-dagu-2x-convert.md.
 */
import { quoteWord } from './command.ts';
import { hasCommandSubstitution } from './expand.ts';
import { canonicalExecutorType } from './executors.ts';
import { CHILD_SCOPES, SETTINGS_SPELLINGS, SPELLINGS, type Scope } from './dialect-spellings.ts';
import { childPath, issue, type DagIssue } from './issues.ts';
import { schemaAsTypedParams } from './convert-params.ts';
import { withoutOwnDockerSettings } from './convert-container.ts';
import { DAG_NAME_PATTERN } from './validate.ts';
import { dagSchema, stepSchema } from './schema.ts';
import { isMapping } from './mapping.ts';

type Mapping = Record<string, unknown>;

export interface Rewrite {
  /** The document in the target dialect; what could not be carried over is left out. */
  readonly document: Mapping;
  /** What could not be carried over, at the path the source wrote it. */
  readonly losses: DagIssue[];
  /**
   * Documents the target needs besides this one, written after the file's own: the local DAG a
   * 2.x `foreach` body is in 1.x.
   */
  readonly documents?: readonly Mapping[];
}

/** 1.x key (lower-cased, as the 1.x reader matches keys) -> 2.x key, per scope. */
const TO_TWO_X = Object.fromEntries(
  (Object.keys(SPELLINGS) as Scope[]).map((scope) => [
    scope,
    new Map([
      ...Object.keys(CHILD_SCOPES[scope] ?? {}).map((oneX) => [oneX.toLowerCase(), oneX] as const),
      ...Object.entries(SPELLINGS[scope]).map(([twoX, oneX]) => [oneX.toLowerCase(), twoX] as const),
    ]),
  ]),
) as unknown as Record<Scope, ReadonlyMap<string, string>>;

/** Keys 1.x removed in 2.x that are only renamed (the others have a rule below). */
const RENAMED_ONE_X_ONLY: Readonly<Partial<Record<Scope, Readonly<Record<string, string>>>>> = {
  root: { precondition: 'preconditions' },
  step: { precondition: 'preconditions', dir: 'working_dir' },
  container: { workdir: 'working_dir' },
};

/**
 * The keys of the root and of a step as the schema spells them, by lower case: 1.x matches
 * keys in any case (`Steps`, `Description`), 2.x only in its own spelling.
 */
const CANONICAL: Readonly<Partial<Record<Scope, ReadonlyMap<string, string>>>> = {
  root: new Map(Object.keys(dagSchema.properties).map((key) => [key.toLowerCase(), key])),
  step: new Map(Object.keys(stepSchema.properties).map((key) => [key.toLowerCase(), key])),
};

/** The 2.x spelling of a 1.x key in a scope (the key itself when both spell it alike). */
export function twoXKey(scope: Scope, key: string): string {
  const lower = key.toLowerCase();
  return RENAMED_ONE_X_ONLY[scope]?.[lower] ?? TO_TWO_X[scope].get(lower) ?? CANONICAL[scope]?.get(lower) ?? key;
}

function hasKey(mapping: Mapping, key: string): boolean {
  return Object.keys(mapping).some((k) => k.toLowerCase() === key);
}

/** The 1.x spelling a key of a scope is matched by, for finding its child scope. */
function oneXKey(scope: Scope, key: string): string {
  const lower = key.toLowerCase();
  const children = [...Object.keys(CHILD_SCOPES[scope] ?? {}), 'steps'];
  return children.find((name) => name.toLowerCase() === lower) ?? key;
}

export function oneXToTwoX(document: Mapping): Rewrite {
  const losses: DagIssue[] = [];
  const out = withoutOwnDockerSettings(rewriteMapping(document, 'root', '', losses), '2.x', losses);
  return { document: withExplicitType(document, out), losses };
}

/**
 * 1.x runs a DAG that names no type as a chain, 2.x as a graph: the type is written out, after
 * the name, so that both dialects (and an ambiguous reading of the result) keep 1.x's meaning.
 */
function withExplicitType(source: Mapping, out: Mapping): Mapping {
  if (hasKey(source, 'type') || !hasKey(source, 'steps')) return out;
  const entries = Object.entries(out);
  const at = entries.findIndex(([key]) => key === 'name') + 1;
  return Object.fromEntries([...entries.slice(0, at), ['type', 'chain'], ...entries.slice(at)]);
}

function rewriteMapping(input: Mapping, scope: Scope, path: string, losses: DagIssue[]): Mapping {
  const out: Mapping = {};
  for (const [key, value] of Object.entries(input)) {
    const at = childPath(path, key);
    const replaced = ruleFor(scope, key.toLowerCase())?.(value, at, input, losses);
    if (replaced !== undefined) {
      Object.assign(out, replaced);
      continue;
    }
    out[twoXKey(scope, key)] = rewriteChild(scope, oneXKey(scope, key), value, at, losses);
  }
  return out;
}

type Rule = (value: unknown, path: string, holder: Mapping, losses: DagIssue[]) => Mapping | undefined;

/** The keys whose 2.x form is more than a rename, by scope and lower-cased 1.x key. */
function ruleFor(scope: Scope, key: string): Rule | undefined {
  if (scope === 'root' && key === 'params') return paramsRule;
  if ((scope === 'root' || scope === 'step') && key === 'shell') return shellRule;
  if (scope === 'precondition' && key === 'condition') return conditionRule;
  if (scope !== 'step') return undefined;
  if (key === 'executor') return executorRule;
  if (key === 'run') return (value) => ({ call: value });
  if (key === 'command') return commandRule;
  if (key === 'config') return (value, _path, holder) => ({ config: twoXSettings(holder.type, value) });
  return undefined;
}

/**
 * 1.x compares a condition with `expected` after running its backtick commands; 2.x does that
 * only for `eval` (it compares a `condition` as written), so such a condition is written `eval`.
 */
const conditionRule: Rule = (value, _path, holder) =>
  typeof value === 'string' && hasKey(holder, 'expected') && hasCommandSubstitution(value)
    ? { eval: value }
    : undefined;

/** 1.x `shell: [bash, -e]` is 2.x `shell: bash` + `shell_args: [-e]`. */
const shellRule: Rule = (value) => {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const [shell, ...args] = value as unknown[];
  return args.length === 0 ? { shell } : { shell, shell_args: args };
};

/**
 * 1.x's list means an executable and its arguments, each passed as it is; 2.x's list is commands
 * run in turn. The one command line with each word quoted where a shell would split it means
 * the same in both. A shell step's command is written `run:`, 2.x's own spelling, which also
 * tells Kubedag that the file is 2.x (an executor's 2.x settings are read only in a 2.x file).
 */
const commandRule: Rule = (value, path, holder, losses) => {
  if (Array.isArray(value) && value.every((word) => ['string', 'number', 'boolean'].includes(typeof word)))
    return listCommand((value as unknown[]).map(String), path, holder, losses);
  if (typeof value !== 'string') return undefined;
  return runnable(holder, value) ? { run: value } : { command: value };
};

/** 1.x keys 2.x's `exec:` cannot sit beside (it runs one executable, without a shell). */
const NOT_BESIDE_EXEC = ['executor', 'type', 'config', 'script', 'shell', 'shellpackages', 'call', 'run'];

/**
 * 2.x's `exec: {command, args}` is exactly 1.x's list; beside keys it refuses, the one command
 * line with each word quoted where a shell would split it, unless a word spans lines.
 */
function listCommand(words: string[], path: string, holder: Mapping, losses: DagIssue[]): Mapping {
  const [command, ...args] = words;
  if (command === undefined) return { command: '' };
  if (!Object.keys(holder).some((key) => NOT_BESIDE_EXEC.includes(key.toLowerCase())))
    return { exec: { command, args } };
  if (!words.some((word) => word.includes('\n'))) return { command: words.map(quoteWord).join(' ') };
  losses.push(issue(path, 'a list command with a line break in a word, on a typed step, has no Dagu 2.x form'));
  return {};
}

/** 1.x keys `run:` cannot sit beside in 2.x (NOT_WITH_RUN, in their 1.x spelling). */
const NOT_BESIDE_RUN = ['run', 'call', 'executor', 'type', 'config', 'script', 'shell', 'shellpackages', 'params'];

/** Whether a 1.x step's command line reads the same as 2.x's `run:` (never as a sub-DAG name). */
function runnable(step: Mapping, line: string): boolean {
  if (Object.keys(step).some((key) => NOT_BESIDE_RUN.includes(key.toLowerCase()))) return false;
  return !DAG_NAME_PATTERN.test(line.trim().replace(/\.ya?ml$/, ''));
}

/** `executor: docker` or `executor: {type, config}` is 2.x's `type:` + `config:`. */
const executorRule: Rule = (value, path, _holder, losses) => {
  if (typeof value === 'string') return { type: value };
  if (!isMapping(value)) return undefined;
  const { type, config, ...rest } = value;
  for (const key of Object.keys(rest)) losses.push(issue(childPath(path, key), 'has no Dagu 2.x counterpart'));
  return {
    ...(type === undefined ? {} : { type }),
    ...(config === undefined ? {} : { config: twoXSettings(type, config) }),
  };
};

/** An executor's settings in 2.x spelling (`containerName` -> `container_name`). */
function twoXSettings(type: unknown, settings: unknown): unknown {
  const canonical = typeof type === 'string' ? canonicalExecutorType(type) : undefined;
  if (canonical === undefined || !isMapping(settings)) return settings;
  const names = new Map(
    Object.entries(SETTINGS_SPELLINGS[canonical] ?? {}).map(([twoX, oneX]) => [oneX.toLowerCase(), twoX]),
  );
  return Object.fromEntries(Object.entries(settings).map(([key, item]) => [names.get(key.toLowerCase()) ?? key, item]));
}

/**
 * `params: {schema, values}` is 2.x's typed list when the schema is one that list can say; any
 * other inline schema stays as written, which 2.x reads as a JSON Schema too (dialect-params.ts).
 */
const paramsRule: Rule = (value, path, _holder, losses) => {
  if (!isMapping(value) || !Object.hasOwn(value, 'schema')) return undefined;
  const typed = schemaAsTypedParams(value);
  if (typed.list !== undefined) return { params: typed.list };
  if (isMapping(value.schema)) return { params: value };
  losses.push(issue(typed.path === '' ? path : `${path}.${typed.path}`, typed.reason));
  return {};
};

function rewriteChild(scope: Scope, name: string, value: unknown, path: string, losses: DagIssue[]): unknown {
  if (scope === 'root' && name === 'steps') return rewriteSteps(value, path, losses);
  if (scope === 'handlerOn') return rewriteAny(value, 'step', path, losses);
  const child = CHILD_SCOPES[scope]?.[name];
  return child === undefined ? value : rewriteAny(value, child, path, losses);
}

function rewriteAny(value: unknown, scope: Scope, path: string, losses: DagIssue[]): unknown {
  if (Array.isArray(value)) return value.map((item: unknown, i) => rewriteAny(item, scope, childPath(path, i), losses));
  return isMapping(value) ? rewriteMapping(value, scope, path, losses) : value;
}

function rewriteSteps(value: unknown, path: string, losses: DagIssue[]): unknown {
  if (Array.isArray(value)) return rewriteAny(value, 'step', path, losses);
  if (!isMapping(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, step]) => [name, rewriteAny(step, 'step', childPath(path, name), losses)]),
  );
}

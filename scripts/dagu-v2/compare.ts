/**
 * "Read as Dagu reads it": both loaders' results projected onto what both models can express
 * (each step's name, dependencies, commands or script, executor type and called DAG; the
 * handlers written; the params' names and defaults; the start schedules), then compared field
 * by field. Pure functions over plain data: Dagu's side is the JSON of its built DAG
 * (dagu-read.ts), Kubedag's its model (core/dag).
 */
import type { Dag, Step } from '../../core/dag/index.ts';

export interface CommonStep {
  readonly name: string;
  readonly depends: readonly string[];
  /**
   * What a shell, docker, ssh or kubernetes step runs: its commands in turn, or its script as
   * one entry (Dagu keeps some one-line `run:` commands as a script; both run them in a shell).
   * Empty for other executors, whose command is their own form (Kubedag's http `GET <url>`).
   */
  readonly runs: readonly string[];
  /** The executor, in Kubedag's names (Dagu's `command` and empty type are `shell`). */
  readonly type: string;
  readonly call: string;
}

export interface CommonDag {
  readonly steps: readonly CommonStep[];
  readonly handlers: readonly string[];
  readonly params: readonly string[];
  readonly schedule: readonly string[];
}

type Json = Record<string, unknown>;

const asRecord = (value: unknown): Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const asText = (value: unknown): string =>
  typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value);

/** Dagu's executor names that are Kubedag's under another name. */
const DAGU_TYPES: Readonly<Record<string, string>> = {
  '': 'shell',
  noop: 'shell',
  command: 'shell',
  docker: 'docker',
  container: 'docker',
  k8s: 'kubernetes',
  kubernetes: 'kubernetes',
};

export function daguType(type: string): string {
  return DAGU_TYPES[type] ?? type;
}

/**
 * Kubedag reads `${params.x}` and `${env.X}` as its variables `${x}` and `${X}` (the 2.x
 * reference decision, docs/decisions/2026-11-29-dagu-2x-actions-values.md): the same value.
 */
export function asVariables(text: string): string {
  return text.replace(/\$\{(?:params|env)\.([A-Za-z_][A-Za-z0-9_]*)\}/g, '${$1}');
}

/** Dagu's step types that Kubedag writes as a call (a `parallel` call is a call with items). */
const CALL_TYPES = new Set(['dag', 'parallel']);

/** Executors whose commands are commands. */
const COMMAND_TYPES = new Set(['shell', 'docker', 'ssh', 'kubernetes']);

function runs(type: string, commands: readonly string[], script: string): string[] {
  if (!COMMAND_TYPES.has(type)) return [];
  const text = script.trimEnd();
  return commands.length > 0 ? [...commands] : text === '' ? [] : [text];
}

/** `${consts.NAME}` replaced by the value Dagu's loader fixed (Kubedag substitutes them at load). */
export function withConsts(text: string, consts: Json): string {
  return text.replace(/\$\{consts\.([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) =>
    Object.hasOwn(consts, name) ? asText(consts[name]) : whole,
  );
}

function daguStep(value: unknown, consts: Json): CommonStep {
  const step = asRecord(value);
  const text = (written: string): string => asVariables(withConsts(written, consts));
  const commands = asList(step.commands).map((entry) => {
    const command = asRecord(entry);
    const written = asText(command.cmdWithArgs);
    return text(written !== '' ? written : [asText(command.command), ...asList(command.args).map(asText)].join(' '));
  });
  const daguName = asText(asRecord(step.executorConfig).type);
  const type = daguName === 'dag_enqueue' ? 'dag.enqueue' : daguType(daguName);
  return {
    name: asText(step.name),
    depends: asList(step.depends).map(asText).sort(),
    // Kubedag runs a noop step (written, or inferred for a step that only publishes) as `true`.
    runs: type === 'shell' && daguName === 'noop' ? ['true'] : runs(type, commands, text(asText(step.script))),
    type: CALL_TYPES.has(type) ? 'dag' : type,
    call: asText(asRecord(step.childDag).name),
  };
}

/** Kubedag's list of several commands is a script of subshells (core/dag/dialect-commands.ts). */
const SUBSHELL = /^\(\n([\s\S]*?)\n\) \|\| exit \$\?\n/;

export function scriptCommands(script: string): string[] | undefined {
  const commands: string[] = [];
  let rest = script;
  for (let match = SUBSHELL.exec(rest); match !== null; match = SUBSHELL.exec(rest)) {
    commands.push(match[1] ?? '');
    rest = rest.slice(match[0].length);
  }
  return commands.length > 1 && rest === '' ? commands : undefined;
}

/** Kubedag's executor names that Dagu spells otherwise (a DAG-level container runs as docker). */
const KUBEDAG_TYPES: Readonly<Record<string, string>> = { container: 'docker' };

/** `bodies`: the names of the local DAGs Kubedag generated for 2.x foreach steps (dialect-foreach.ts). */
function kubedagType(step: Step, foreach: boolean): string {
  if (foreach) return 'foreach';
  if (step.enqueue !== undefined) return 'dag.enqueue';
  if (step.call !== undefined) return 'dag';
  return KUBEDAG_TYPES[step.executor.type] ?? step.executor.type;
}

function kubedagStep(step: Step, bodies: ReadonlySet<string>): CommonStep {
  const listed = step.script === undefined ? undefined : scriptCommands(step.script);
  const line = step.cmdWithArgs ?? (step.command === undefined ? '' : [step.command, ...step.args].join(' '));
  const foreach = step.call !== undefined && bodies.has(step.call);
  const type = kubedagType(step, foreach);
  return {
    name: step.name,
    depends: [...step.depends].sort(),
    runs: runs(type, listed ?? (line === '' ? [] : [line]), listed === undefined ? (step.script ?? '') : ''),
    type,
    call: foreach ? '' : (step.call ?? ''),
  };
}

const DAGU_HANDLERS: Readonly<Record<string, string>> = { abort: 'cancel' };

export function fromDagu(value: unknown): CommonDag {
  const dag = asRecord(value);
  const consts = asRecord(dag.consts);
  const handlers = Object.keys(asRecord(dag.handlerOn)).map((event) => DAGU_HANDLERS[event] ?? event);
  return {
    steps: asList(dag.steps).map((step) => daguStep(step, consts)),
    handlers: handlers.sort(),
    params: asList(dag.paramDefs).map(
      (def) => `${asText(asRecord(def).name)}=${asVariables(withConsts(asText(asRecord(def).default), consts))}`,
    ),
    schedule: asList(dag.schedule).map((schedule) => asText(asRecord(schedule).expression)),
  };
}

export function fromKubedag(dag: Dag, bodies: ReadonlySet<string> = new Set()): CommonDag {
  return {
    steps: dag.steps.map((step) => kubedagStep(step, bodies)),
    handlers: Object.keys(dag.handlerOn).sort(),
    params: kubedagParams(dag),
    schedule: dag.schedule.start.map((schedule) => schedule.expression),
  };
}

export interface Difference {
  /** `steps[].commands`, `params`, ... */
  readonly field: string;
  readonly dagu: unknown;
  readonly kubedag: unknown;
}

/**
 * A default that is one command substitution (a 2.x `eval:` param, `$(...)` or backticks) is
 * worked out when a run starts; Dagu's loader, without evaluation, leaves it empty.
 */
export function unevaluated(value: string): string {
  return /^(\$\([\s\S]*\)|`[^`]*`)$/.test(value) ? '' : value;
}

/** Typed 2.x params are a JSON Schema in Kubedag's model (its properties, in order); the rest are entries. */
function kubedagParams(dag: Dag): string[] {
  const schema = dag.params.schema;
  const properties = typeof schema === 'object' ? asRecord(schema.properties) : {};
  const value = new Map(dag.params.entries.map((entry) => [entry.name, entry.value]));
  // An eval param whose evaluation fails falls back to the schema's default (dialect-params.ts).
  const typed = Object.entries(properties).map(([name, property]) => {
    const written = unevaluated(value.get(name) ?? '');
    return `${name}=${written !== '' ? written : asText(asRecord(property).default)}`;
  });
  const rest = dag.params.entries.filter((entry) => !Object.hasOwn(properties, entry.name));
  // Dagu names a positional param "" (Kubedag "1", "2", ...).
  return [...typed, ...rest.map((entry) => `${entry.positional ? '' : entry.name}=${unevaluated(entry.value)}`)];
}

/** The first difference of each field that differs, with both values. */
export function differences(dagu: CommonDag, kubedag: CommonDag): Difference[] {
  const out = new Map<string, Difference>();
  const note = (field: string, a: unknown, b: unknown): void => {
    if (!out.has(field) && JSON.stringify(a) !== JSON.stringify(b)) out.set(field, { field, dagu: a, kubedag: b });
  };
  if (dagu.steps.length !== kubedag.steps.length)
    note(
      'steps.length',
      dagu.steps.map((step) => step.name),
      kubedag.steps.map((step) => step.name),
    );
  dagu.steps.forEach((step, i) => {
    const other = kubedag.steps[i];
    if (other === undefined) return;
    for (const key of ['name', 'depends', 'runs', 'type', 'call'] as const)
      note(`steps[].${key}`, step[key], other[key]);
  });
  for (const key of ['handlers', 'params', 'schedule'] as const) note(key, dagu[key], kubedag[key]);
  return [...out.values()];
}

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
  /** The commands run in turn, as written (one for a one-line command). */
  readonly commands: readonly string[];
  readonly script: string;
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
  command: 'shell',
  docker: 'docker',
  container: 'docker',
  k8s: 'kubernetes',
  kubernetes: 'kubernetes',
};

export function daguType(type: string): string {
  return DAGU_TYPES[type] ?? type;
}

/** Kubedag's executor names that are one executor under Dagu's names. */
const KUBEDAG_TYPES: Readonly<Record<string, string>> = { dag: 'dag', parallel: 'parallel', subworkflow: 'dag' };

function daguStep(value: unknown): CommonStep {
  const step = asRecord(value);
  const commands = asList(step.commands).map((entry) => {
    const command = asRecord(entry);
    const written = asText(command.cmdWithArgs);
    return written !== '' ? written : [asText(command.command), ...asList(command.args).map(asText)].join(' ');
  });
  return {
    name: asText(step.name),
    depends: asList(step.depends).map(asText).sort(),
    commands,
    script: asText(step.script),
    type: daguType(asText(asRecord(step.executorConfig).type)),
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

function kubedagStep(step: Step): CommonStep {
  const listed = step.script === undefined ? undefined : scriptCommands(step.script);
  const line = step.cmdWithArgs ?? (step.command === undefined ? undefined : [step.command, ...step.args].join(' '));
  return {
    name: step.name,
    depends: [...step.depends].sort(),
    commands: listed ?? (line === undefined || line === '' ? [] : [line]),
    script: listed === undefined ? (step.script ?? '') : '',
    type: step.call !== undefined ? 'dag' : (KUBEDAG_TYPES[step.executor.type] ?? step.executor.type),
    call: step.call ?? '',
  };
}

const DAGU_HANDLERS: Readonly<Record<string, string>> = { abort: 'cancel' };

export function fromDagu(value: unknown): CommonDag {
  const dag = asRecord(value);
  const handlers = Object.keys(asRecord(dag.handlerOn)).map((event) => DAGU_HANDLERS[event] ?? event);
  return {
    steps: asList(dag.steps).map(daguStep),
    handlers: handlers.sort(),
    params: asList(dag.paramDefs).map((def) => `${asText(asRecord(def).name)}=${asText(asRecord(def).default)}`),
    schedule: asList(dag.schedule).map((schedule) => asText(asRecord(schedule).expression)),
  };
}

export function fromKubedag(dag: Dag): CommonDag {
  return {
    steps: dag.steps.map(kubedagStep),
    handlers: Object.keys(dag.handlerOn).sort(),
    params: dag.params.entries.map((entry) => `${entry.name}=${entry.value}`),
    schedule: dag.schedule.start.map((schedule) => schedule.expression),
  };
}

export interface Difference {
  /** `steps[].commands`, `params`, ... */
  readonly field: string;
  readonly dagu: unknown;
  readonly kubedag: unknown;
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
    for (const key of ['name', 'depends', 'commands', 'script', 'type', 'call'] as const)
      note(`steps[].${key}`, step[key], other[key]);
  });
  for (const key of ['handlers', 'params', 'schedule'] as const) note(key, dagu[key], kubedag[key]);
  return [...out.values()];
}

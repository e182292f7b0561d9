/**
 * The step list as a whole: bare strings, nested parallel groups and the mapping form become
 * one flat list of named steps with explicit dependencies (behaviour-notes 4.3).
 */
import { childPath, issue } from './issues.ts';
import { HANDLER_EVENTS, HANDLER_STEP_NAMES, type DagType, type HandlerEvent, type Step } from './model.ts';
import type { DagFile, StepFile } from './schema.ts';
import type { Diagnostics } from './issues.ts';
import { normalizeStep, type StepContext, type StepDraft } from './step.ts';

export const MAX_STEP_NAME_LENGTH = 40;

type Entry = StepFile | string | readonly (StepFile | string)[];

/** One top-level entry of a list: a step, or a group whose members run in parallel. */
interface Slot {
  readonly position: number;
  readonly members: StepDraft[];
  readonly group: boolean;
}

export interface StepsResult {
  readonly steps: StepDraft[];
}

export function normalizeSteps(
  input: DagFile['steps'],
  type: DagType,
  context: StepContext,
  diagnostics: Diagnostics,
): StepsResult {
  if (input === undefined) return { steps: [] };
  if (!Array.isArray(input)) return { steps: mappedSteps(input, context, diagnostics) };
  // Entries that failed the shape check arrive as holes; positions still count them.
  const slots = (input as readonly (Entry | undefined)[]).flatMap((entry, i): Slot[] => {
    const path = childPath('steps', i);
    if (entry === undefined) return [];
    if (!Array.isArray(entry))
      return [
        {
          position: i + 1,
          members: [normalizeStep(entry as StepFile | string, path, context, diagnostics)],
          group: false,
        },
      ];
    const members = (entry as readonly (StepFile | string)[]).map((member, j) =>
      normalizeStep(member, childPath(path, j), context, diagnostics),
    );
    return [{ position: i + 1, members, group: true }];
  });
  const named = assignNames(slots);
  const steps = type === 'chain' ? chainSlots(named) : named.flatMap((slot) => slot.members);
  return { steps: resolveIds(steps) };
}

/** `steps:` as a mapping: the key is the name, the written order is kept, and there is no chain. */
function mappedSteps(input: Record<string, StepFile>, context: StepContext, diagnostics: Diagnostics): StepDraft[] {
  const drafts = Object.entries(input).map(([name, raw]) => {
    const path = childPath('steps', name);
    if (raw.name !== undefined && raw.name.trim() !== name)
      diagnostics.errors.push(issue(childPath(path, 'name'), `differs from its key "${name}"`));
    const draft = normalizeStep(raw, path, context, diagnostics);
    return { ...draft, step: { ...draft.step, name } };
  });
  return resolveIds(drafts);
}

/**
 * Generated names: `<kind>_<n>` with n the 1-based top-level position, bumped while taken;
 * members of a parallel group get `parallel_<group>_<command>_<index>`. Written names are
 * reserved first so that a generated name never takes one.
 */
function assignNames(slots: readonly Slot[]): Slot[] {
  const taken = new Set(slots.flatMap((slot) => slot.members.map((m) => m.step.name)).filter((name) => name !== ''));
  const claim = (first: number, format: (n: number) => string): string => {
    let n = first;
    while (taken.has(format(n))) n += 1;
    const name = format(n);
    taken.add(name);
    return name;
  };
  return slots.map((slot) => ({
    ...slot,
    members: slot.members.map((member, j) => {
      if (member.step.name !== '') return member;
      const kind = stepKind(member.step);
      const name = slot.group
        ? claim(j + 1, (n) => groupMemberName(slot.position, commandWord(member.step) ?? kind, n))
        : claim(slot.position, (n) => `${kind}_${n}`);
      return { ...member, step: { ...member.step, name } };
    }),
  }));
}

/** The word used in generated names: the executor type, `dag`, `parallel`, `script`, `cmd` or `step`. */
export function stepKind(step: Step): string {
  if (step.parallel !== undefined) return 'parallel';
  if (step.call !== undefined) return 'dag';
  if (step.executor.type !== 'shell') return step.executor.type;
  if (step.script !== undefined) return 'script';
  if (step.command !== undefined) return 'cmd';
  return 'step';
}

function commandWord(step: Step): string | undefined {
  if (step.command === undefined || step.executor.type !== 'shell' || step.call !== undefined) return undefined;
  const base = step.command.split('/').pop() ?? '';
  const word = base.replace(/[^A-Za-z0-9_.-]/g, '');
  return word === '' ? undefined : word;
}

function groupMemberName(group: number, word: string, index: number): string {
  const suffix = `_${index}`;
  const prefix = `parallel_${group}_`;
  const room = MAX_STEP_NAME_LENGTH - prefix.length - suffix.length;
  return `${prefix}${word.slice(0, Math.max(1, room))}${suffix}`;
}

/**
 * Chain order: every step also depends on the previous slot (all members of a group), unless
 * it wrote `depends: []`. Explicit dependencies are kept and not repeated, by name or id.
 */
function chainSlots(slots: readonly Slot[]): StepDraft[] {
  const out: StepDraft[] = [];
  let previous: readonly StepDraft[] = [];
  for (const slot of slots) {
    const members = slot.members.map((member) => {
      if (member.noChain || previous.length === 0) return member;
      const depends = [...member.step.depends];
      for (const prior of previous) {
        const { name, id } = prior.step;
        // A same-named predecessor is a name clash, reported as such; no self-dependency on top.
        if (name === member.step.name) continue;
        if (!depends.includes(name) && (id === undefined || !depends.includes(id))) depends.push(name);
      }
      return { ...member, step: { ...member.step, depends } };
    });
    out.push(...members);
    previous = members;
  }
  return out;
}

/** `depends` may name ids; the model always names steps. */
function resolveIds(drafts: readonly StepDraft[]): StepDraft[] {
  const names = new Set(drafts.map((d) => d.step.name));
  const nameOfId = new Map(drafts.flatMap((d) => (d.step.id === undefined ? [] : [[d.step.id, d.step.name] as const])));
  return drafts.map((draft) => {
    const depends = draft.step.depends.map((dep) => (names.has(dep) ? dep : (nameOfId.get(dep) ?? dep)));
    const unique = [...new Set(depends)];
    return unique.length === draft.step.depends.length && unique.every((d, i) => d === draft.step.depends[i])
      ? draft
      : { ...draft, step: { ...draft.step, depends: unique } };
  });
}

/** Handler steps get fixed names and no dependencies. */
export function normalizeHandlers(
  input: DagFile['handlerOn'],
  context: StepContext,
  diagnostics: Diagnostics,
): Partial<Record<HandlerEvent, StepDraft>> {
  const handlers: Partial<Record<HandlerEvent, StepDraft>> = {};
  for (const event of HANDLER_EVENTS) {
    const raw = input?.[event];
    if (raw === undefined) continue;
    const path = childPath('handlerOn', event);
    if (raw.depends !== undefined)
      diagnostics.errors.push(
        issue(childPath(path, 'depends'), 'handlers run before or after all steps and take no depends'),
      );
    const draft = normalizeStep(raw, path, context, diagnostics);
    handlers[event] = { ...draft, step: { ...draft.step, name: HANDLER_STEP_NAMES[event], depends: [] } };
  }
  return handlers;
}

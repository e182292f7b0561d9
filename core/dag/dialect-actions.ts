/**
 * Dagu 2.x's `action:` + `with:` steps, rewritten into the step a Dagu 1.x file writes for the
 * same work: `action: ssh.run` is `type: ssh` with `command:`, `action: dag.run` is `call:`,
 * `action: log.write` a printf of the message. ACTIONS is the one table of the actions Kubedag
 * runs, REFUSED_ACTIONS the one table of those it refuses by name; the rules (required `with`
 * keys, keys an action does not take) are Dagu v2.15.1's (internal/spec/step_v2.go). See
 * docs/decisions/2026-11-29-dagu-2x-actions-values.md.
 */
import { childPath, issue, type DagIssue } from './issues.ts';
import { refusal, type DeliberateFeature } from './dialect-refusal.ts';
import { TEMPLATE_REF_WHY } from './dialect-refusal-narrow.ts';
import { BUILTIN_KEYS, OPERATIONS, STRICT_KEYS, type BuiltinExecutor } from './builtin-executors.ts';
import { templateRefKind } from './dialect-template-ref.ts';
import { isMapping, without } from './mapping.ts';

type Mapping = Record<string, unknown>;

/** Where an action's `with:` is, and where its problems go. */
interface ActionInput {
  readonly with: Mapping;
  /** The step's other keys. */
  readonly step: Mapping;
  /** The path of `with` (its keys' problems are reported under it). */
  readonly at: string;
  readonly errors: DagIssue[];
}

/** The step fields an action stands for (they replace `action` and `with`), or undefined when `with` is wrong. */
type ActionRule = (input: ActionInput) => Mapping | undefined;

function required(input: ActionInput, key: string): unknown {
  const value = input.with[key];
  if (value === undefined) input.errors.push(issue(childPath(input.at, key), 'is required'));
  return value;
}

function requiredText(input: ActionInput, key: string): string | undefined {
  const value = required(input, key);
  if (value === undefined) return undefined;
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  input.errors.push(issue(childPath(input.at, key), 'must be a non-empty string'));
  return undefined;
}

/** Dagu's rule: an action refuses `with` keys it does not take rather than ignore them. */
function onlyKeys(input: ActionInput, action: string, keys: readonly string[]): boolean {
  const stray = Object.keys(input.with).filter((key) => !keys.includes(key));
  for (const key of stray)
    input.errors.push(
      issue(
        childPath(input.at, key),
        `${action} does not take with.${key} (it takes ${keys.length === 0 ? 'no with' : keys.join(', ')})`,
      ),
    );
  return stray.length === 0;
}

/** An executor step: `type` with the rest of `with` as its settings, `with.<field>` as its command. */
function typed(type: string, commandField?: { readonly key: string; readonly required: boolean }): ActionRule {
  return (input) => {
    const command =
      commandField === undefined
        ? undefined
        : commandField.required
          ? required(input, commandField.key)
          : input.with[commandField.key];
    if (commandField?.required === true && command === undefined) return undefined;
    const settings = commandField === undefined ? input.with : without(input.with, commandField.key);
    return {
      type,
      ...(Object.keys(settings).length === 0 ? {} : { with: settings }),
      ...(command === undefined ? {} : { command }),
    };
  };
}

const httpRequest: ActionRule = (input) => {
  const method = requiredText(input, 'method');
  const url = requiredText(input, 'url');
  return method === undefined || url === undefined ? undefined : { type: 'http', with: input.with };
};

/** jq's filter is the command and its data the script, as a 1.x jq step writes them. */
const jqFilter: ActionRule = (input) => {
  const filter = required(input, 'filter');
  if (filter === undefined) return undefined;
  const data = input.with.data;
  if (data !== undefined && input.with.input !== undefined) {
    input.errors.push(issue(childPath(input.at, 'data'), 'jq.filter takes either with.data or with.input, not both'));
    return undefined;
  }
  if (typeof data === 'string' && data.trim() === '') {
    input.errors.push(issue(childPath(input.at, 'data'), 'must not be empty'));
    return undefined;
  }
  const settings = without(input.with, 'filter', 'data');
  return {
    type: 'jq',
    command: filter,
    ...(data === undefined ? {} : { script: typeof data === 'string' ? data : JSON.stringify(data) }),
    ...(Object.keys(settings).length === 0 ? {} : { with: settings }),
  };
};

const dagRun =
  (action: string): ActionRule =>
  (input) => {
    const dag = requiredText(input, 'dag');
    if (!onlyKeys(input, action, ['dag', 'params']) || dag === undefined) return undefined;
    return { call: dag, ...(input.with.params === undefined ? {} : { params: input.with.params }) };
  };

/**
 * dag.enqueue queues a run of another DAG and does not wait for it (Dagu's
 * internal/runtime/builtin/dag/enqueue.go): a call the operator completes itself by creating
 * the queued run (`enqueue`), with Dagu's `with.queue` to put it on another queue. With
 * `parallel`, one queued run per item (operator/run/decide/enqueue.ts).
 */
const dagEnqueue: ActionRule = (input) => {
  const dag = requiredText(input, 'dag');
  if (!onlyKeys(input, 'dag.enqueue', ['dag', 'params', 'queue']) || dag === undefined) return undefined;
  const queue = input.with.queue;
  if (queue !== undefined && (typeof queue !== 'string' || queue.trim() === '')) {
    input.errors.push(issue(childPath(input.at, 'queue'), 'dag.enqueue with.queue must be a non-empty string'));
    return undefined;
  }
  return {
    call: dag,
    enqueue: typeof queue === 'string' ? { queue: queue.trim() } : {},
    ...(input.with.params === undefined ? {} : { params: input.with.params }),
  };
};

/** Direct execution: Dagu's step `exec:` block, which dialect-commands.ts reads. */
const execAction: ActionRule = (input) => {
  const command = requiredText(input, 'command');
  if (!onlyKeys(input, 'exec', ['command', 'args']) || command === undefined) return undefined;
  return { exec: input.with };
};

/** noop runs nothing and succeeds: `true` does the same in the step's Pod. */
const noop: ActionRule = (input) => (onlyKeys(input, 'noop', []) ? { command: 'true' } : undefined);

/**
 * outputs.write publishes `with.values` as the step's outputs (Dagu's outputs executor): the
 * step runs `true` and picks each value as a literal of its object-form `output:`, which the
 * operator expands and keeps in stepOutputs and the run's outputs, as for a publish-only step.
 */
const outputsWrite: ActionRule = (input) => {
  const values = required(input, 'values');
  if (!onlyKeys(input, 'outputs.write', ['values']) || values === undefined) return undefined;
  const at = childPath(input.at, 'values');
  const problem = !isMapping(values)
    ? 'must be an object'
    : Object.keys(values).length === 0
      ? 'must not be empty'
      : Object.keys(values).some((key) => key.trim() === '')
        ? 'contains an empty key'
        : undefined;
  if (problem !== undefined) input.errors.push(issue(at, problem));
  const stdout = input.step.stdout;
  const own =
    input.step.output !== undefined
      ? 'output'
      : isMapping(stdout) && stdout.outputs !== undefined
        ? 'stdout'
        : undefined;
  if (own !== undefined)
    input.errors.push(
      refusal(childPath(input.at.replace(/\.with$/, ''), own), `${own} beside action outputs.write`, OWN_OUTPUT),
    );
  if (problem !== undefined || own !== undefined || !isMapping(values)) return undefined;
  return { command: 'true', output: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, { value: v }])) };
};
const OWN_OUTPUT = "Kubedag publishes with.values as the step's output; move these values into with.values";

/**
 * log.write writes its message, after variable substitution, to the step's stdout and ends it
 * with a newline unless it has one. Kubedag's shell substitutes a command's variables, so the
 * message is a double-quoted printf argument in which only `${NAME}` and `$NAME` stay live (and
 * `${NAME.path}`, which the operator resolves first); quotes, backslashes, backticks and every
 * other `$` are escaped, so the shell runs nothing the message holds.
 */
const logWrite: ActionRule = (input) => {
  const message = required(input, 'message');
  if (!onlyKeys(input, 'log.write', ['message']) || message === undefined) return undefined;
  if (typeof message !== 'string') {
    input.errors.push(issue(childPath(input.at, 'message'), 'must be a string'));
    return undefined;
  }
  const format = message.endsWith('\n') ? '%s' : '%s\\n';
  return { script: `printf '${format}' "${shellQuotedMessage(message)}"\n` };
};

/** A variable reference the shell (or, with a path, the operator) substitutes. */
const VARIABLE = /^\$(?:\{[A-Za-z_][A-Za-z0-9_]*(?:[.[][^}]*)?\}|[A-Za-z_][A-Za-z0-9_]*)/;

export function shellQuotedMessage(message: string): string {
  let out = '';
  for (let i = 0; i < message.length; i++) {
    const rest = message.slice(i);
    const variable = VARIABLE.exec(rest)?.[0];
    if (variable !== undefined) {
      out += variable;
      i += variable.length - 1;
    } else out += ['\\', '"', '`', '$'].includes(rest.charAt(0)) ? `\\${rest.charAt(0)}` : rest.charAt(0);
  }
  return out;
}

/**
 * `wait.duration`, `file.copy`, `s3.upload`...: the step `type: wait|file|s3` with the operation as its command
 * and `with` as its settings, as Dagu's operationAction writes it; the loader checks the keys
 * and the required ones (builtin-executors.ts), the runner the values.
 */
const operation =
  (type: BuiltinExecutor, name: string): ActionRule =>
  (input) =>
    !STRICT_KEYS[type] || onlyKeys(input, `${type}.${name}`, BUILTIN_KEYS[type])
      ? { type, command: name, ...(Object.keys(input.with).length === 0 ? {} : { with: input.with }) }
      : undefined;

/**
 * template.render with.template_ref (dialect-template-ref.ts checked it as written): a constant
 * is the template's text by now, the step's script, parsed at load as a written template is;
 * a variable or a step's output stays the setting `template_ref`, read when the step runs (the
 * step runner parses the template then).
 */
function templateFromRef(input: ActionInput): Mapping | undefined {
  const ref = input.with.template_ref;
  if (typeof ref !== 'string') return undefined; // reported with the reference rules
  const settings = without(input.with, 'template_ref');
  const kind = templateRefKind(ref);
  if (kind === 'unresolved') {
    input.errors.push(
      refusal(childPath(input.at, 'template_ref'), `template.render with.template_ref ${ref}`, TEMPLATE_REF_WHY),
    );
    return undefined;
  }
  if (kind === 'text')
    return { type: 'template', script: ref, ...(Object.keys(settings).length === 0 ? {} : { with: settings }) };
  return { type: 'template', with: { ...settings, template_ref: ref } };
}

/**
 * template.render: the template (exactly one of with.template and with.template_ref, as in
 * Dagu) is the step's script, the rest of `with` (data, output) its settings.
 */
const templateRender: ActionRule = (input) => {
  const hasTemplate = input.with.template !== undefined;
  if (hasTemplate === (input.with.template_ref !== undefined)) {
    input.errors.push(issue(input.at, 'template.render requires exactly one of with.template or with.template_ref'));
    return undefined;
  }
  if (!hasTemplate) return templateFromRef(input);
  const template = requiredText(input, 'template');
  if (template === undefined) return undefined;
  const settings = without(input.with, 'template');
  return {
    type: 'template',
    script: input.with.template,
    ...(Object.keys(settings).length === 0 ? {} : { with: settings }),
  };
};

const operationActions = (type: BuiltinExecutor): Record<string, ActionRule> =>
  Object.fromEntries(Object.keys(OPERATIONS[type]).map((name) => [`${type}.${name}`, operation(type, name)]));

/** The actions Kubedag runs: Dagu 2.x action name -> the step it stands for. */
export const ACTIONS: Readonly<Record<string, ActionRule>> = {
  exec: execAction,
  'docker.run': typed('docker', { key: 'command', required: false }),
  'container.run': typed('docker', { key: 'command', required: false }),
  'k8s.run': typed('kubernetes', { key: 'command', required: false }),
  'kubernetes.run': typed('kubernetes', { key: 'command', required: false }),
  'ssh.run': typed('ssh', { key: 'command', required: true }),
  'http.request': httpRequest,
  'jq.filter': jqFilter,
  'mail.send': typed('mail'),
  'dag.run': dagRun('dag.run'),
  'dag.enqueue': dagEnqueue,
  noop,
  'outputs.write': outputsWrite,
  'log.write': logWrite,
  ...operationActions('wait'),
  ...operationActions('file'),
  ...operationActions('s3'),
  ...operationActions('archive'),
  ...operationActions('artifact'),
  'template.render': templateRender,
};

/** Actions (by name, or by family `name.`) Dagu 2.x runs and Kubedag refuses, with the feature named. */
export const REFUSED_ACTIONS: Readonly<Record<string, DeliberateFeature>> = {
  'chat.completion': 'action chat.completion (LLM chat)',
  'harness.run': 'action harness.run (coding-agent harness)',
  'git.worktree.add': 'action git.worktree.add (git worktrees)',
  'git.worktree.remove': 'action git.worktree.remove (git worktrees)',
  'human.task': 'action human.task (human tasks)',
  'git.': 'git actions',
  'data.': 'data.* actions',
  'state.': 'state.* actions',
  'postgres.': 'postgres.* actions',
  'sqlite.': 'sqlite.* actions',
  'sftp.': 'sftp.* actions',
  'redis.': 'redis.* actions',
};

/**
 * Dagu also takes the name of an executor as an action: the step of that type with `with` as
 * its settings. These are the executors Kubedag runs under the names Dagu registers them by.
 */
const EXECUTOR_ACTIONS = [
  'command',
  'shell',
  'docker',
  'container',
  'kubernetes',
  'ssh',
  'http',
  'jq',
  'mail',
  'wait',
  'file',
  's3',
  'archive',
  'template',
  'artifact',
];

/** `owner/repo@v1`, `name@v1`, `source:...@v1`: an action package fetched by reference. */
const PACKAGE_REFERENCE = /^source:|@/;

/**
 * A step's `action:` + `with:` as the 1.x step fields of the same work, merged over the step's
 * other keys. Undefined (with the error in `errors`) when the action is refused or miswritten.
 */
export function actionAsStep(step: Mapping, path: string, errors: DagIssue[]): Mapping | undefined {
  const at = childPath(path, 'action');
  const { action, with: withValue, ...rest } = step;
  if (typeof action !== 'string' || action.trim() === '') {
    errors.push(issue(at, 'must be a non-empty string (an action name such as exec or http.request)'));
    return undefined;
  }
  const name = action.trim();
  const refused = PACKAGE_REFERENCE.test(name)
    ? 'custom action packages (a versioned action reference)'
    : refusedAction(name);
  if (refused !== undefined) {
    errors.push(refusal(at, refused));
    return undefined;
  }
  const rule = ACTIONS[name] ?? (EXECUTOR_ACTIONS.includes(name) ? typed(name) : undefined);
  if (rule === undefined) {
    errors.push(
      issue(
        at,
        `unknown action "${name}" (Kubedag runs: ${Object.keys(ACTIONS).join(', ')}; a custom action, declared under actions:, is not run by Kubedag)`,
      ),
    );
    return undefined;
  }
  const withPath = childPath(path, 'with');
  if (withValue !== undefined && !isMapping(withValue)) {
    errors.push(issue(withPath, 'must be a mapping'));
    return undefined;
  }
  const fields = rule({ with: withValue ?? {}, step: rest, at: withPath, errors });
  return fields === undefined ? undefined : { ...rest, ...fields };
}

/** Whether Kubedag refuses an action by name (a package reference, or one of REFUSED_ACTIONS). */
export function isRefusedAction(name: string): boolean {
  return PACKAGE_REFERENCE.test(name.trim()) || refusedAction(name.trim()) !== undefined;
}

function refusedAction(name: string): DeliberateFeature | undefined {
  const exact = REFUSED_ACTIONS[name];
  if (exact !== undefined) return exact;
  const family = Object.keys(REFUSED_ACTIONS).find((prefix) => prefix.endsWith('.') && name.startsWith(prefix));
  return family === undefined ? undefined : REFUSED_ACTIONS[family];
}

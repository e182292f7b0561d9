/**
 * How a 2.x step says what it runs, rewritten into the 1.x shape: `action:` + `with:`
 * (dialect-actions.ts), `run:` (a shell command, with the shell settings under `with:`),
 * `command:` as a list of commands run in turn, `exec:` (an executable and its arguments, no
 * shell), `shell_args`, and the executor settings of a typed step (dialect-settings.ts).
 */
import { actionAsStep } from './dialect-actions.ts';
import { withStepContainer } from './dialect-container.ts';
import { withOneXSettings } from './dialect-settings.ts';
import { NOT_WITH_RUN, RUN_WITH_KEYS } from './dialect-spellings.ts';
import { refusal, type DeliberateFeature } from './dialect-refusal.ts';
import { severalCommandsWhy } from './dialect-refusal-narrow.ts';
import { splitCommand } from './command.ts';
import { canonicalExecutorType } from './executors.ts';
import { childPath, issue, type DagIssue } from './issues.ts';
import { isMapping, without } from './mapping.ts';

type Mapping = Record<string, unknown>;

/** A 2.x step's execution keys in the 1.x shape; the step's other keys are left as they are. */
export function stepExecution(step: Mapping, path: string, errors: DagIssue[]): Mapping {
  const refusedType = typeof step.type === 'string' ? REFUSED_TYPES[step.type.trim()] : undefined;
  if (refusedType !== undefined) {
    errors.push(refusal(childPath(path, 'type'), refusedType));
    // The step is refused: what it would run in (with, config, its own container) goes with it.
    return without(step, 'type', 'with', 'config', 'container');
  }
  let out = publishesOnly(step) ? { ...step, command: 'true' } : step;
  if (Object.hasOwn(step, 'action')) out = actionStep(step, path, errors);
  else if (Object.hasOwn(step, 'run')) out = runAsCommand(step, path, errors);
  const written = Object.hasOwn(step, 'action')
    ? childPath(childPath(path, 'with'), 'command')
    : childPath(path, Object.hasOwn(step, 'run') ? 'run' : 'command');
  out = commandList(out, written, errors);
  if (Object.hasOwn(out, 'exec')) out = execAsCommand(out, path, errors);
  out = withShellArgs(out, path, errors);
  return withStepContainer(withOneXSettings(out, path, errors), path, errors, step);
}

/**
 * 2.x step types Kubedag does not run, refused by name as their actions are (REFUSED_ACTIONS),
 * not as an unknown executor, each deliberately with its reason (dialect-refusal.ts). Router
 * steps are rewritten before this (dialect-router.ts).
 */
export const REFUSED_TYPES: Readonly<Record<string, DeliberateFeature>> = {
  chat: 'type: chat (LLM chat steps)',
  agent: 'type: agent (agent steps)',
  harness: 'type: harness (coding-agent harness)',
  postgres: 'postgres.* actions',
  sqlite: 'sqlite.* actions',
  redis: 'redis.* actions',
  sftp: 'sftp.* actions',
  state: 'state.* actions',
  data: 'data.* actions',
  git: 'git actions',
};

/** Keys that say what a step runs (or that it runs in a container, a sub-DAG or per item). */
const RUNS_KEYS = ['action', 'run', 'command', 'script', 'exec', 'type', 'call', 'parallel', 'container', 'foreach'];

/**
 * A step that only publishes values (an object-form `output:` none of whose entries reads
 * stdout or stderr) and runs nothing: Dagu infers the noop type for it (v2.15.1
 * `shouldInferNoopStep`), which Kubedag runs as `true`, as it runs `action: noop`.
 */
function publishesOnly(step: Mapping): boolean {
  const output = step.output;
  if (!isMapping(output) || Object.keys(output).length === 0) return false;
  if (RUNS_KEYS.some((key) => Object.hasOwn(step, key))) return false;
  return Object.values(output).every(
    (entry) =>
      !isMapping(entry) || !(typeof entry.from === 'string' && ['stdout', 'stderr'].includes(entry.from.trim())),
  );
}

/** Keys an `action:` replaces, as `run:` does (Dagu's rule), and `run` itself. */
const NOT_WITH_ACTION = ['run', ...NOT_WITH_RUN.filter((key) => key !== 'action')];

function actionStep(step: Mapping, path: string, errors: DagIssue[]): Mapping {
  const at = childPath(path, 'action');
  const clash = NOT_WITH_ACTION.find((key) => Object.hasOwn(step, key));
  if (clash !== undefined) {
    errors.push(issue(at, `action cannot be used together with ${clash}`));
    return without(step, 'action', 'with');
  }
  return actionAsStep(step, path, errors) ?? without(step, 'action', 'with');
}

function runAsCommand(step: Mapping, path: string, errors: DagIssue[]): Mapping {
  const { run, with: withValue, ...rest } = step;
  const at = childPath(path, 'run');
  const clash = NOT_WITH_RUN.find((key) => Object.hasOwn(step, key));
  if (clash !== undefined) errors.push(issue(at, `run cannot be used together with ${clash}`));
  if (typeof run !== 'string' && !Array.isArray(run)) {
    errors.push(issue(at, 'must be a string or a list of commands'));
    return rest;
  }
  if (withValue === undefined) return { ...rest, command: run };
  if (!isMapping(withValue)) {
    errors.push(issue(childPath(path, 'with'), 'must be a mapping'));
    return { ...rest, command: run };
  }
  const stray = Object.keys(withValue).find((key) => !RUN_WITH_KEYS.includes(key));
  if (stray !== undefined)
    errors.push(
      issue(childPath(childPath(path, 'with'), stray), `run only takes ${RUN_WITH_KEYS.join(', ')} under with`),
    );
  const hoisted = Object.fromEntries(Object.entries(withValue).filter(([key]) => RUN_WITH_KEYS.includes(key)));
  return { ...rest, ...hoisted, command: run };
}

/** Shells that read the subshell script commandList writes (every POSIX shell does). */
const POSIX_SHELLS = ['sh', 'bash', 'dash', 'ash', 'zsh', 'ksh', 'mksh', 'busybox'];

/**
 * 2.x's list of commands: one is the command; several run one after the other, each as its own
 * process, and the first to fail ends the step with its exit code. 1.x's list means executable
 * and arguments, so several become an inline script that runs each command in a subshell and
 * stops at the first failure. Dagu runs several commands on shell, docker and ssh steps;
 * Kubedag on shell steps, and refuses them elsewhere by name.
 */
function commandList(step: Mapping, at: string, errors: DagIssue[]): Mapping {
  const list = step.command;
  if (!Array.isArray(list)) return step;
  const commands: string[] = [];
  for (const [i, item] of list.entries()) {
    if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') {
      if (String(item).trim() !== '') commands.push(String(item).trim());
    } else errors.push(issue(childPath(at, i), 'must be a string (quote a command that holds ": ")'));
  }
  if (commands.length <= 1) return { ...step, command: commands[0] ?? '' };
  const refused = severalCommandsRefused(step);
  if (refused !== undefined) {
    errors.push(refusal(at, refused.feature, refused.why));
    return without(step, 'command');
  }
  if (step.script !== undefined) {
    errors.push(issue(at, 'a list of several commands cannot go with script'));
    return without(step, 'command');
  }
  const script = commands.map((command) => `(\n${command}\n) || exit $?\n`).join('');
  return { ...without(step, 'command'), script };
}

function severalCommandsRefused(step: Mapping): { feature: string; why: string } | undefined {
  const type = typeof step.type === 'string' ? canonicalExecutorType(step.type) : 'shell';
  if (type !== 'shell')
    return {
      feature: `multiple commands on a step of type ${String(step.type)} (a list of more than one command)`,
      why: severalCommandsWhy(undefined),
    };
  const shell: unknown =
    typeof step.shell === 'string'
      ? splitCommand(step.shell).words[0]
      : Array.isArray(step.shell)
        ? (step.shell as unknown[])[0]
        : undefined;
  const name = typeof shell === 'string' ? (shell.split('/').pop() ?? '') : undefined;
  return name === undefined || POSIX_SHELLS.includes(name)
    ? undefined
    : {
        feature: `multiple commands with the shell ${name} (a list of more than one command)`,
        why: severalCommandsWhy(name),
      };
}

/** Keys `exec:` replaces: it runs one executable without a shell. */
const NOT_WITH_EXEC = ['command', 'script', 'shell', 'shell_args', 'shell_packages', 'type', 'config', 'with', 'call'];

/**
 * `exec: {command, args}` runs the executable with the arguments as given: the 1.x list form
 * `command: [executable, ...args]`, which passes each word quoted.
 */
function execAsCommand(step: Mapping, path: string, errors: DagIssue[]): Mapping {
  const at = childPath(path, 'exec');
  const rest = without(step, 'exec');
  const clash = NOT_WITH_EXEC.find((key) => Object.hasOwn(step, key));
  if (clash !== undefined) {
    errors.push(issue(at, `exec cannot be used together with ${clash}`));
    return rest;
  }
  const exec = step.exec;
  if (!isMapping(exec)) {
    errors.push(issue(at, 'must be a mapping with command and args'));
    return rest;
  }
  const stray = Object.keys(exec).find((key) => key !== 'command' && key !== 'args');
  if (stray !== undefined) errors.push(issue(childPath(at, stray), 'exec takes only command and args'));
  if (typeof exec.command !== 'string' || exec.command.trim() === '') {
    errors.push(issue(childPath(at, 'command'), 'must be a non-empty string'));
    return rest;
  }
  const args = exec.args ?? [];
  const words = Array.isArray(args)
    ? args.filter((arg) => ['string', 'number', 'boolean'].includes(typeof arg)).map(String)
    : [];
  if (!Array.isArray(args) || words.length !== args.length) {
    errors.push(issue(childPath(at, 'args'), 'must be a list of strings, numbers or booleans'));
    return rest;
  }
  return { ...rest, command: [exec.command.trim(), ...words] };
}

/** `shell: bash` + `shell_args: [-e]` is the 1.x `shell: [bash, -e]`. */
export function withShellArgs(input: Mapping, path: string, errors: DagIssue[]): Mapping {
  if (!Object.hasOwn(input, 'shell_args')) return input;
  const { shell_args: args, ...rest } = input;
  const at = childPath(path, 'shell_args');
  if (!isStringList(args)) {
    errors.push(issue(at, 'must be a list of strings'));
    return rest;
  }
  const shell = rest.shell;
  if (shell === undefined) {
    errors.push(refusal(at, 'shell_args without shell (arguments for the default shell)'));
    return rest;
  }
  const words: unknown[] =
    typeof shell === 'string' ? splitCommand(shell).words : Array.isArray(shell) ? shell : [shell];
  return { ...rest, shell: [...words, ...args] };
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

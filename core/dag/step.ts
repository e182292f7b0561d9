/**
 * One step as written (any accepted spelling) into the canonical Step. Names and dependency
 * wiring need the whole list and are done in steps.ts.
 */
import { quoteWord, splitCommand } from './command.ts';
import {
  canonicalExecutorType,
  GHA_REFUSAL,
  readExecutorConfig,
  SHARED_CONTAINER,
  unknownExecutorMessage,
  type ExecutorType,
} from './executors.ts';
import { withDockerSettings } from './docker-settings.ts';
import { conditionsFromFile, envFromFile, ENV_NAME, labelsFromFile, listFromFile, shellFromFile } from './fields.ts';
import { childPath, issue, type DagIssue, type Diagnostics } from './issues.ts';
import { optional } from './optional.ts';
import { readObjectOutput, readStdoutOutputs, type PickedOutputs } from './picked-outputs.ts';
import { paramValue } from './params.ts';
import { withKubernetes, type StepKubernetesContext } from './kubernetes-levels.ts';
import { DEFAULTS, type Approval, type DeclaredOutput, type Executor, type Step } from './model.ts';
import type { StepFile } from './schema.ts';
import { continueOnOf, NO_CONTINUE, parallelOf, repeatPolicyOf, retryPolicyOf, signalOf } from './step-rules.ts';

export interface StepContext extends StepKubernetesContext {
  /** DAG-level `ssh` makes ssh the default executor. */
  readonly dagSsh: boolean;
  /** DAG-level `container`: steps that name no executor run inside it (and so do docker steps). */
  readonly dagContainer?: boolean;
  /**
   * Dagu 2.x's rule (v2.15.1 docker `newDocker`/`Run`): a docker step with settings of its own
   * (an image, a container to exec into) runs there, not in the DAG-level container; 1.x ran
   * every docker step in it.
   */
  readonly ownDockerSettingsWin?: boolean;
}

export interface StepDraft {
  /** The step with an empty name when none was written. */
  readonly step: Step;
  readonly path: string;
  /** `depends: []` was written: the step opts out of chain order. */
  readonly noChain: boolean;
  /** Where the executor's settings were written: `executor.config`, `with` or `config`. */
  readonly configPath: string;
}

export function normalizeStep(
  input: StepFile | string,
  path: string,
  context: StepContext,
  diagnostics: Diagnostics,
): StepDraft {
  const raw: StepFile = typeof input === 'string' ? { command: input } : input;
  const { errors } = diagnostics;
  const call = callOf(raw, path, diagnostics);
  const form = executorForm(raw, path, errors);
  const commandParts = isJq(form) ? jqCommandOf(raw, path, errors) : commandOf(raw, path, errors);
  const step: Step = {
    name: raw.name?.trim() ?? '',
    ...optional('id', raw.id?.trim()),
    ...optional('description', raw.description?.trim()),
    ...optional('dir', raw.workingDir ?? raw.dir),
    ...commandParts,
    ...optional('shell', shellFromFile(raw.shell, childPath(path, 'shell'), errors)),
    shellPackages: raw.shellPackages ?? [],
    ...optional('stdout', redirectFileOf(raw.stdout)),
    ...optional('stderr', redirectFileOf(raw.stderr)),
    ...optional('output', outputOf(raw.output, childPath(path, 'output'), errors)),
    ...optional('declaredOutputs', declaredOutputsOf(raw.outputs)),
    ...optional('pickedOutputs', pickedOutputsOf(raw)),
    ...optional('outputSchema', raw.output_schema),
    ...optional('approval', approvalOf(raw.approval)),
    depends: listFromFile(raw.depends),
    continueOn: continueOnOf(raw.continueOn, childPath(path, 'continueOn'), errors),
    ...optional(
      'retryPolicy',
      raw.retryPolicy && retryPolicyOf(raw.retryPolicy, childPath(path, 'retryPolicy'), errors),
    ),
    ...optional(
      'repeatPolicy',
      raw.repeatPolicy && repeatPolicyOf(raw.repeatPolicy, childPath(path, 'repeatPolicy'), diagnostics),
    ),
    mailOnError: raw.mailOnError ?? false,
    preconditions: conditionsFromFile(raw.preconditions, raw.precondition, path, errors),
    signalOnStop: signalOf(raw.signalOnStop, childPath(path, 'signalOnStop'), errors),
    ...optional('call', call),
    ...optional('enqueue', raw.enqueue),
    ...optional('params', stepParamsOf(raw.params)),
    ...optional(
      'parallel',
      raw.parallel === undefined ? undefined : parallelOf(raw.parallel, childPath(path, 'parallel'), errors),
    ),
    executor: executorOf(form, raw, call, context, diagnostics),
    workerSelector: labelsFromFile(raw.workerSelector),
    env: envFromFile(raw.env, childPath(path, 'env'), errors),
    timeoutSec: raw.timeoutSec ?? 0,
  };
  const docker = withDockerSettings(step, raw, form.configPath, errors);
  const pod = { written: docker.kubernetes, config: form.config, configPath: form.configPath, path };
  return {
    step: withKubernetes(commandAsCall(docker.step), pod, context, diagnostics),
    path,
    noChain: Array.isArray(raw.depends) && raw.depends.length === 0,
    configPath: form.configPath,
  };
}

/**
 * `executor: dag` with `command: child` is the contract's other spelling of `call: child`;
 * both become `call`, so that everything downstream sees one form.
 */
function commandAsCall(step: Step): Step {
  if (
    step.call !== undefined ||
    step.command === undefined ||
    (step.executor.type !== 'dag' && step.executor.type !== 'parallel')
  )
    return step;
  const { command, cmdWithArgs, ...rest } = step;
  return { ...rest, args: [], call: command.replace(/\.ya?ml$/, '') };
}

/** Spreads `{key: value}` only when the value is set, keeping absent fields absent. */
function callOf(raw: StepFile, path: string, diagnostics: Diagnostics): string | undefined {
  if (raw.run !== undefined) {
    diagnostics.warnings.push(issue(childPath(path, 'run'), '"run" is deprecated; use "call"'));
    if (raw.call !== undefined)
      diagnostics.errors.push(issue(childPath(path, 'run'), 'use either call or run, not both'));
  }
  const call = (raw.call ?? raw.run)?.trim();
  if (call === '') diagnostics.errors.push(issue(childPath(path, raw.call === undefined ? 'run' : 'call'), 'is empty'));
  return call === '' ? undefined : call;
}

type CommandParts = Pick<Step, 'command' | 'args' | 'cmdWithArgs' | 'script'>;

/**
 * The three command spellings: a one-line string (split into executable and arguments), a
 * multi-line string (an inline script), and a list (executable and arguments as written).
 * `args` are appended to the arguments.
 */
function commandOf(raw: StepFile, path: string, errors: DagIssue[]): CommandParts {
  const extra = (raw.args ?? []).map(String);
  const script = raw.script;
  const at = childPath(path, 'command');
  if (raw.command === undefined) return { args: extra, ...optional('script', script) };
  if (typeof raw.command !== 'string') {
    const words = raw.command.map(String);
    const [command, ...args] = words;
    if (command === undefined || command.trim() === '') errors.push(issue(at, 'is empty'));
    return {
      ...optional('command', command),
      args: [...args, ...extra],
      cmdWithArgs: [...words, ...extra].map(quoteWord).join(' '),
      ...optional('script', script),
    };
  }
  const text = raw.command.trim();
  if (text === '') errors.push(issue(at, 'is empty'));
  if (text.includes('\n')) {
    if (script !== undefined)
      errors.push(issue(at, 'a multi-line command is an inline script; use either it or script'));
    return { args: extra, script: raw.command };
  }
  const split = splitCommand(text);
  if (split.error !== undefined) errors.push(issue(at, split.error));
  const [command, ...args] = split.words;
  const cmdWithArgs = extra.length === 0 ? text : `${text} ${extra.map(quoteWord).join(' ')}`;
  return {
    ...optional('command', command),
    args: [...args, ...extra],
    ...optional('cmdWithArgs', text === '' ? undefined : cmdWithArgs),
    ...optional('script', script),
  };
}

/** Dagu 2.x's approval, checked by the dialect (dialect-approval.ts); inputs default to none. */
function approvalOf(approval: StepFile['approval']): Approval | undefined {
  return approval && { input: [], required: [], ...approval };
}

/**
 * Dagu 2.x's object-form `output:` or `stdout.outputs`, checked by the dialect
 * (dialect-outputs.ts, which reported what is wrong): read again here into the model.
 */
function pickedOutputsOf(raw: StepFile): PickedOutputs | undefined {
  const checked: DagIssue[] = [];
  if (typeof raw.output === 'object') return readObjectOutput(raw.output, 'output', checked);
  return typeof raw.stdout === 'object' && raw.stdout.outputs !== undefined
    ? readStdoutOutputs(raw.stdout.outputs, 'stdout.outputs', checked)
    : undefined;
}

/** Dagu 2.x's declared outputs, checked by the dialect (dialect-outputs.ts); a type defaults to string. */
function declaredOutputsOf(outputs: StepFile['outputs']): DeclaredOutput[] | undefined {
  return outputs?.map((o) => ({ name: o.name, type: o.type ?? 'string' }));
}

/**
 * The file a stream goes to. Dagu 2.x's `{artifact: <path>}` is that file of the run's artifacts
 * directory (the dialect cleaned the path): the runner's shell expands the variable, and the
 * file, new in the directory, is kept like any artifact. `stdout: {outputs}` alone writes no
 * file (pickedOutputsOf reads it).
 */
function redirectFileOf(stream: StepFile['stdout'] | StepFile['stderr']): string | undefined {
  if (typeof stream === 'string' || stream === undefined) return stream;
  return stream.artifact === undefined ? undefined : `\${DAG_RUN_ARTIFACTS_DIR}/${stream.artifact}`;
}

/** The variable that captures stdout; 2.x's object form picks named values instead (pickedOutputsOf). */
function outputOf(output: StepFile['output'], path: string, errors: DagIssue[]): string | undefined {
  if (output === undefined || typeof output === 'object') return undefined;
  const name = output.trim().replace(/^\$/, '');
  if (!ENV_NAME.test(name)) errors.push(issue(path, `"${output}" is not a valid variable name`));
  return name;
}

/** The executor as written, in one of its spellings, and where its parts are in the file. */
interface ExecutorForm {
  /** The type name as written; empty when none was. */
  readonly type: string;
  readonly config: Readonly<Record<string, unknown>>;
  /** Where the executor was written (`executor`, or `type` in Dagu 2.x's form). */
  readonly at: string;
  readonly typePath: string;
  readonly configPath: string;
}

/**
 * `executor: <type>`, `executor: {type, config}` (Dagu 1.x) or `type:` with `with:` (Dagu
 * 2.x; `config:` in its earlier releases) on the step itself: the same executor either way.
 */
function executorForm(raw: StepFile, path: string, errors: DagIssue[]): ExecutorForm {
  const at = childPath(path, 'executor');
  if (raw.type === undefined && raw.with === undefined && raw.config === undefined)
    return executorKeyForm(raw.executor, at);
  if (raw.executor !== undefined) errors.push(issue(at, 'use either executor or type (with with), not both'));
  if (raw.with !== undefined && raw.config !== undefined)
    errors.push(issue(childPath(path, 'config'), 'use either with or config (its older name), not both'));
  const configPath = childPath(path, raw.with === undefined && raw.config !== undefined ? 'config' : 'with');
  const typePath = childPath(path, 'type');
  return { type: raw.type ?? '', config: { ...(raw.with ?? raw.config ?? {}) }, at: typePath, typePath, configPath };
}

function executorKeyForm(written: StepFile['executor'], at: string): ExecutorForm {
  const configPath = childPath(at, 'config');
  if (typeof written === 'string') return { type: written, config: {}, at, typePath: at, configPath };
  return {
    type: written?.type ?? '',
    config: { ...(written?.config ?? {}) },
    at,
    typePath: childPath(at, 'type'),
    configPath,
  };
}

/** With a DAG-level `container`, what a docker step writes besides command and args has no effect (Dagu's rule). */
const SHARED_CONTAINER_SETTINGS =
  'the DAG-level container runs this step: only its command and args are used, so these settings are ignored (as in Dagu)';

function executorOf(
  form: ExecutorForm,
  raw: StepFile,
  call: string | undefined,
  context: StepContext,
  diagnostics: Diagnostics,
): Executor {
  const ownSettings = context.ownDockerSettingsWin === true && Object.keys(form.config).length > 0;
  if (
    call === undefined &&
    context.dagContainer === true &&
    !ownSettings &&
    (form.type.trim() === '' || canonicalExecutorType(form.type) === 'docker')
  ) {
    if (Object.keys(form.config).length > 0)
      diagnostics.warnings.push(issue(form.configPath, SHARED_CONTAINER_SETTINGS));
    return { type: SHARED_CONTAINER, config: {} };
  }
  const fallback = defaultExecutorType(raw, call, context);
  const type = form.type.trim() === '' ? fallback : canonicalExecutorType(form.type);
  if (type === undefined) {
    diagnostics.errors.push(issue(form.typePath, unknownExecutorMessage(form.type)));
    return { type: fallback, config: form.config };
  }
  // A kubernetes executor's settings are Pod settings, checked in kubernetes-levels.ts.
  const reading =
    type === 'kubernetes'
      ? { config: { ...form.config }, warnings: [] }
      : readExecutorConfig(type, form.config, form.configPath);
  diagnostics.warnings.push(...reading.warnings);
  if (type === 'gha') diagnostics.warnings.push(issue(form.typePath, GHA_REFUSAL));
  const { config } = reading;
  // A call always runs as a sub-DAG, whatever executor the step names.
  if (call === undefined) return { type, config };
  if (type !== 'dag' && type !== 'parallel')
    diagnostics.errors.push(issue(form.at, `a step with call runs a sub-DAG; remove executor "${form.type}"`));
  return { type: fallback, config };
}

function isJq(form: ExecutorForm): boolean {
  return form.type.trim() !== '' && canonicalExecutorType(form.type) === 'jq';
}

/**
 * A jq step's command is its filter, whatever its length: a multi-line filter stays the
 * filter (not an inline script), and `script` stays the JSON input.
 */
function jqCommandOf(raw: StepFile, path: string, errors: DagIssue[]): CommandParts {
  if (typeof raw.command !== 'string' || !raw.command.includes('\n')) return commandOf(raw, path, errors);
  const filter = raw.command.trim();
  return {
    command: filter,
    args: (raw.args ?? []).map(String),
    cmdWithArgs: filter,
    ...optional('script', raw.script),
  };
}

/**
 * A call step's params as a list (`[A=1, {B: two}]`, which Dagu accepts) become the one
 * string form the runtime reads: text items as written, mapping entries as `NAME="value"`.
 */
function stepParamsOf(params: StepFile['params']): Step['params'] {
  if (!Array.isArray(params)) return params;
  const quote = (value: unknown): string => `"${paramValue(value).replace(/[\\"]/g, '\\$&')}"`;
  return params
    .flatMap((item) =>
      typeof item === 'string' ? [item] : Object.entries(item).map(([name, value]) => `${name}=${quote(value)}`),
    )
    .join(' ');
}

function defaultExecutorType(raw: StepFile, call: string | undefined, context: StepContext): ExecutorType {
  if (call !== undefined) return raw.parallel === undefined ? 'dag' : 'parallel';
  return context.dagSsh ? 'ssh' : 'shell';
}

/**
 * A shell step with every rule at its default, for steps the system adds to a run itself (the
 * operator's prepare step): the same shape a file's step gets, with nothing borrowed from one.
 */
export function plainStep(name: string, fields: Partial<Omit<Step, 'name'>> = {}): Step {
  return {
    name,
    args: [],
    shellPackages: [],
    depends: [],
    continueOn: NO_CONTINUE,
    mailOnError: false,
    preconditions: [],
    signalOnStop: DEFAULTS.signalOnStop,
    executor: { type: 'shell', config: {} },
    workerSelector: {},
    env: [],
    timeoutSec: 0,
    ...fields,
  };
}

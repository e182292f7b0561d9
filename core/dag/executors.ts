/**
 * Executor types a step may name, their aliases, and the rules their settings must meet.
 * The rules are checked when a DAG is loaded; the executors themselves run in Pods.
 *
 * Settings follow Dagu v1.24.11, which decodes an executor's config leniently: keys match
 * their field names in any letter case, and keys it does not know are ignored. Kubedag reads
 * the same keys (spelled canonically here) and warns about the others instead of refusing
 * the DAG (docs/decisions/2026-11-24-executor-compatibility.md).
 */
import { closest, distance } from 'fastest-levenshtein';
import { childPath, issue, type DagIssue } from './issues.ts';
import type { Step } from './model.ts';
import { checkJq, checkMailSettings, checkSshSettings } from './remote-executor-checks.ts';
import { checkBuiltin, checkTemplate } from './builtin-executors.ts';

export const EXECUTOR_TYPES = [
  'shell',
  'docker',
  'kubernetes',
  'ssh',
  'http',
  'mail',
  'jq',
  'dag',
  'parallel',
  'gha',
  'archive',
  // Dagu 2.x's built-in executors that the step runner carries out (builtin-executors.ts).
  'wait',
  'file',
  's3',
  'template',
  'artifact',
] as const;
export type ExecutorType = (typeof EXECUTOR_TYPES)[number];

/**
 * The executor of a step that names none in a DAG with a `container` block, as Dagu names it:
 * the step runs inside the run's one container. Not a type a step may write (`container`
 * written is the docker executor's alias).
 */
export const SHARED_CONTAINER = 'container';

const ALIASES: Record<string, ExecutorType> = {
  '': 'shell',
  command: 'shell',
  container: 'docker',
  k8s: 'kubernetes',
  subworkflow: 'dag',
  github_action: 'gha',
  'github-action': 'gha',
};

/** The canonical executor type for a name as written, or undefined when unknown. */
export function canonicalExecutorType(written: string): ExecutorType | undefined {
  const name = written.trim().toLowerCase();
  if ((EXECUTOR_TYPES as readonly string[]).includes(name)) return name as ExecutorType;
  const alias = ALIASES[name];
  if (alias !== undefined) return alias;
  // GitHub Actions runners are also addressed as `<vendor>_action` / `<vendor>-action`.
  return /^[a-z0-9]+[-_]action$/.test(name) ? 'gha' : undefined;
}

export function unknownExecutorMessage(written: string): string {
  const guess = closest(written.toLowerCase(), [...EXECUTOR_TYPES]);
  return `unknown executor type "${written}"; did you mean "${guess}"? (known: ${EXECUTOR_TYPES.join(', ')})`;
}

/**
 * The config keys each executor reads, as Dagu v1.24.11's config structs name them (plus
 * mail's `contentType`, which Kubedag adds). Types absent here read no config at all;
 * kubernetes settings are checked by kubernetes.ts.
 */
export const CONFIG_KEYS: Partial<Record<ExecutorType, readonly string[]>> = {
  shell: ['shell'],
  docker: ['image', 'containerName', 'pull', 'platform', 'autoRemove', 'container', 'host', 'network', 'exec'],
  // shell, shellArgs, timeout and bastion are Dagu 2.x's (read in 1.x spelling too, as one ssh executor runs both).
  ssh: [
    'user',
    'host',
    'ip',
    'port',
    'key',
    'password',
    'strictHostKey',
    'knownHostFile',
    'shell',
    'shellArgs',
    'timeout',
    'bastion',
  ],
  // form, files, format and output are Dagu 2.x's; read in a 1.x file too (Dagu 1.x ignored them).
  http: [
    'headers',
    'body',
    'query',
    'timeout',
    'silent',
    'debug',
    'json',
    'skipTLSVerify',
    'form',
    'files',
    'format',
    'output',
  ],
  mail: ['to', 'from', 'subject', 'message', 'attachments', 'contentType'],
  // input (a JSON file instead of script) is Dagu 2.x's.
  jq: ['raw', 'input'],
  dag: [],
  parallel: [],
  gha: ['runner'],
};

/**
 * Types Dagu 1.24.11 accepts that do not run on Kubernetes. A gha step loads, with a warning,
 * and the operator refuses its runs with the same reason: a DAG that Dagu accepts stays
 * loadable (and listable through the API).
 */
export const GHA_REFUSAL =
  'the gha executor is not supported on Kubernetes: it runs GitHub Actions with act, which needs a container engine inside the cluster (and Dagu 2.x removed it); runs of this DAG are refused';

export interface ConfigReading {
  readonly config: Record<string, unknown>;
  readonly warnings: DagIssue[];
}

/**
 * An executor's config as Kubedag reads it: keys written in another letter case take their
 * canonical spelling (`Host` is `host`), ssh's `ip` becomes `host` (it wins over `host`, as in
 * Dagu), and every key the executor does not read is kept but warned about, with the known
 * key it most resembles.
 */
export function readExecutorConfig(
  type: ExecutorType,
  written: Readonly<Record<string, unknown>>,
  path: string,
): ConfigReading {
  const known = CONFIG_KEYS[type];
  if (known === undefined) return { config: { ...written }, warnings: [] };
  const config: Record<string, unknown> = {};
  const warnings: DagIssue[] = [];
  for (const [key, value] of Object.entries(written)) {
    const canonical = known.find((k) => k.toLowerCase() === key.toLowerCase());
    if (canonical === undefined) warnings.push(issue(childPath(path, key), unknownKeyMessage(type, key, known)));
    config[canonical ?? key] = value;
  }
  if (type === 'ssh' && config.ip !== undefined && config.ip !== '') {
    const { ip, ...rest } = config;
    return { config: { ...rest, host: ip }, warnings };
  }
  return { config, warnings };
}

function unknownKeyMessage(type: ExecutorType, key: string, known: readonly string[]): string {
  const ignored = `the ${type} executor does not read this setting and ignores it`;
  if (known.length === 0) return `${ignored} (it has no settings)`;
  const guess = closest(
    key.toLowerCase(),
    known.map((k) => k.toLowerCase()),
  );
  const original = known.find((k) => k.toLowerCase() === guess) ?? guess;
  // Only a near miss is worth suggesting; otherwise list what the executor reads.
  const near = distance(key.toLowerCase(), guess) <= Math.max(2, Math.floor(key.length / 3));
  return near ? `${ignored}; did you mean "${original}"?` : `${ignored} (known: ${known.join(', ')})`;
}

export interface ExecutorContext {
  /** The DAG has an `ssh` block that ssh steps inherit. */
  readonly dagSsh: boolean;
}

/** Where a step's executor settings were written: `executor.config`, `with` or `config`. */
type Rule = (step: Step, path: string, context: ExecutorContext, configPath: string) => DagIssue[];

const needs = (ok: boolean, path: string, message: string): DagIssue[] => (ok ? [] : [issue(path, message)]);

const RULES: Record<ExecutorType | typeof SHARED_CONTAINER, Rule> = {
  // Dagu loads such a step without a command and fails it when it runs: the operator refuses the run.
  [SHARED_CONTAINER]: () => [],
  shell: (step, path) =>
    needs(step.command !== undefined || step.script !== undefined, path, 'needs a command or a script'),
  docker: (step, _path, _context, configPath) => {
    const { config } = step.executor;
    return [
      ...needs(
        isText(config.image) || isText(config.containerName),
        configPath,
        'the docker executor needs image or containerName',
      ),
      ...needs(
        config.exec === undefined || isText(config.containerName),
        childPath(configPath, 'exec'),
        'exec needs containerName (it runs in an existing container)',
      ),
    ];
  },
  // Like Dagu's: without a command or script the image's own entrypoint runs. Then no runner
  // shell is around it, so nothing would write a stdout/stderr file (or send artifacts).
  kubernetes: (step, path) =>
    step.cmdWithArgs !== undefined || step.script !== undefined
      ? []
      : (['stdout', 'stderr'] as const).flatMap((stream) =>
          needs(
            step[stream] === undefined,
            childPath(path, stream),
            `a kubernetes step without a command runs its image's entrypoint, which writes no ${stream} file (give it a command)`,
          ),
        ),
  ssh: (step, path, context, configPath) => [
    ...needs(
      context.dagSsh || isText(step.executor.config.host),
      configPath,
      'the ssh executor needs host (here or in the DAG ssh block)',
    ),
    ...needs(step.command !== undefined || step.script !== undefined, path, 'needs a command'),
    ...checkSshSettings(step.executor.config, configPath),
  ],
  http: (step, path) => checkHttp(step, path),
  mail: (step, _path, _context, configPath) => checkMailSettings(step.executor.config, configPath),
  // Dagu runs a jq step without a filter as `.` (pretty-printing its input); the input is required.
  jq: (step, path, _context, configPath) => checkJq(step, path, configPath),
  dag: (step, path) =>
    needs(step.call !== undefined || step.command !== undefined, path, 'the dag executor needs call (the DAG to run)'),
  parallel: (step, path) => needs(step.call !== undefined, path, 'the parallel executor needs call (the DAG to run)'),
  gha: (step, path) => needs(step.command !== undefined, path, 'the gha executor needs command (the action reference)'),
  archive: (step, path, _context, configPath) => checkBuiltin('archive', step, path, configPath),
  wait: (step, path, _context, configPath) => checkBuiltin('wait', step, path, configPath),
  file: (step, path, _context, configPath) => checkBuiltin('file', step, path, configPath),
  s3: (step, path, _context, configPath) => checkBuiltin('s3', step, path, configPath),
  artifact: (step, path, _context, configPath) => checkBuiltin('artifact', step, path, configPath),
  template: (step, path) => checkTemplate(step, path),
};

/** Checks a step against the rules of its executor type. */
export function checkExecutor(
  step: Step,
  path: string,
  context: ExecutorContext,
  configPath = childPath(childPath(path, 'executor'), 'config'),
): DagIssue[] {
  const rule = RULES[step.executor.type as ExecutorType | typeof SHARED_CONTAINER] as Rule | undefined;
  return rule?.(step, path, context, configPath) ?? [];
}

/** An HTTP method token (RFC 9110): Dagu passes any method through, so Kubedag does too. */
const METHOD_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function checkHttp(step: Step, path: string): DagIssue[] {
  const method = step.command;
  if (method === undefined || step.args.length < 1)
    return [issue(childPath(path, 'command'), 'the http executor needs command "<METHOD> <URL>"')];
  // `${METHOD}` is only known per run.
  if (!method.includes('$') && !METHOD_TOKEN.test(method))
    return [issue(childPath(path, 'command'), `"${method}" is not an HTTP method`)];
  return [];
}

function isText(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}

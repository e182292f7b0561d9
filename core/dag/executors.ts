/**
 * Executor types a step may name, their aliases, and the rules their settings must meet.
 * The rules are checked when a DAG is loaded; the executors themselves run in Pods.
 */
import { closest } from 'fastest-levenshtein';
import { childPath, issue, type DagIssue } from './issues.ts';
import type { Step } from './model.ts';
import { checkMailSettings, checkSshSettings } from './remote-executor-checks.ts';

export const EXECUTOR_TYPES = ['shell', 'docker', 'kubernetes', 'ssh', 'http', 'mail', 'jq', 'dag', 'parallel', 'gha'] as const;
export type ExecutorType = (typeof EXECUTOR_TYPES)[number];

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

const CONFIG_KEYS: Partial<Record<ExecutorType, readonly string[]>> = {
  shell: ['shell'],
  docker: ['image', 'containerName', 'pull', 'platform', 'autoRemove', 'container', 'host', 'network', 'exec'],
  ssh: ['user', 'host', 'port', 'key', 'password', 'strictHostKey', 'knownHostFile'],
  http: ['headers', 'body', 'query', 'timeout', 'silent', 'skipTLSVerify'],
  mail: ['to', 'from', 'subject', 'message', 'attachments', 'contentType'],
  jq: ['raw'],
  gha: ['runner'],
};

const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export interface ExecutorContext {
  /** The DAG has an `ssh` block that ssh steps inherit. */
  readonly dagSsh: boolean;
}

/** Where a step's executor settings were written: `executor.config`, `with` or `config`. */
type Rule = (step: Step, path: string, context: ExecutorContext, configPath: string) => DagIssue[];

const needs = (ok: boolean, path: string, message: string): DagIssue[] => (ok ? [] : [issue(path, message)]);

const RULES: Record<ExecutorType, Rule> = {
  shell: (step, path) => needs(step.command !== undefined || step.script !== undefined, path, 'needs a command or a script'),
  docker: (step, _path, _context, configPath) => {
    const { config } = step.executor;
    return [
      ...needs(isText(config.image) || isText(config.containerName), configPath, 'the docker executor needs image or containerName'),
      ...needs(config.exec === undefined || isText(config.containerName), childPath(configPath, 'exec'), 'exec needs containerName (it runs in an existing container)'),
    ];
  },
  // Like Dagu's: without a command or script the image's own entrypoint runs.
  kubernetes: () => [],
  ssh: (step, path, context, configPath) => [
    ...needs(context.dagSsh || isText(step.executor.config.host), configPath, 'the ssh executor needs host (here or in the DAG ssh block)'),
    ...needs(step.command !== undefined || step.script !== undefined, path, 'needs a command'),
    ...checkSshSettings(step.executor.config, configPath),
  ],
  http: (step, path) => checkHttp(step, path),
  mail: (step, _path, _context, configPath) => checkMailSettings(step.executor.config, configPath),
  jq: (step, path) => needs(step.command !== undefined, path, 'the jq executor needs command (the filter)'),
  dag: (step, path) => needs(step.call !== undefined || step.command !== undefined, path, 'the dag executor needs call (the DAG to run)'),
  parallel: (step, path) => needs(step.call !== undefined, path, 'the parallel executor needs call (the DAG to run)'),
  gha: (step, path) => needs(step.command !== undefined, path, 'the gha executor needs command (the action reference)'),
};

/** Checks a step against the rules of its executor type. */
export function checkExecutor(step: Step, path: string, context: ExecutorContext, configPath = childPath(childPath(path, 'executor'), 'config')): DagIssue[] {
  const type = step.executor.type as ExecutorType;
  const rule = RULES[type] as Rule | undefined;
  return [...unknownConfigKeys(type, step.executor.config, configPath), ...(rule?.(step, path, context, configPath) ?? [])];
}

function checkHttp(step: Step, path: string): DagIssue[] {
  const method = step.command?.toUpperCase();
  if (method === undefined || step.args.length < 1) return [issue(childPath(path, 'command'), 'the http executor needs command "<METHOD> <URL>"')];
  if (!HTTP_METHODS.includes(method)) return [issue(childPath(path, 'command'), `unknown HTTP method "${step.command ?? ''}"`)];
  return [];
}

function unknownConfigKeys(type: ExecutorType, config: Readonly<Record<string, unknown>>, path: string): DagIssue[] {
  const known = CONFIG_KEYS[type];
  if (known === undefined) return [];
  return Object.keys(config)
    .filter((key) => !known.includes(key))
    .map((key) => issue(childPath(path, key), `unknown ${type} setting; known settings are ${known.join(', ')}`));
}

function isText(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}

/**
 * Dagu 2.x's built-in executors that Kubedag's step runner carries out in the step Pod:
 * `wait` and `file`. A 2.x action such as `wait.duration` is the step `type: wait` with the
 * operation as its command and `with` as its settings (Dagu v2.15.1 `operationAction` in
 * internal/spec/step_v2.go writes it the same way), so one table here serves the loader (the
 * checks a DAG gets when it is loaded) and the runner (which reads the settings again, their
 * `${VAR}` references expanded, with Dagu's messages). Pure.
 * See docs/decisions/2026-11-29-dagu-2x-builtin-actions.md.
 */
import { childPath, issue, type DagIssue } from './issues.ts';
import type { Step } from './model.ts';

export const BUILTIN_EXECUTORS = ['wait', 'file'] as const;
export type BuiltinExecutor = (typeof BUILTIN_EXECUTORS)[number];

/** The operations of each executor, and the settings each one cannot do without (Dagu's `validateConfig`). */
export const OPERATIONS: Readonly<Record<BuiltinExecutor, Readonly<Record<string, readonly string[]>>>> = {
  wait: { duration: ['duration'], until: ['until'], file: ['path'], http: ['url'] },
  file: {
    stat: ['path'],
    read: ['path'],
    write: ['path', 'content'],
    copy: ['source', 'destination'],
    move: ['source', 'destination'],
    delete: ['path'],
    mkdir: ['path'],
    list: ['path'],
  },
};

/** The settings each executor reads (Dagu's config structs); Dagu refuses any other key, and so does Kubedag. */
export const BUILTIN_KEYS: Readonly<Record<BuiltinExecutor, readonly string[]>> = {
  wait: [
    'duration',
    'until',
    'path',
    'state',
    'url',
    'method',
    'status',
    'headers',
    'body',
    'poll_interval',
    'request_timeout',
  ],
  file: [
    'path',
    'source',
    'destination',
    'content',
    'mode',
    'format',
    'pattern',
    'overwrite',
    'create_dirs',
    'atomic',
    'recursive',
    'missing_ok',
    'dry_run',
    'include_dirs',
    'follow_symlinks',
    'max_bytes',
  ],
};

export function isBuiltinExecutor(type: string): type is BuiltinExecutor {
  return (BUILTIN_EXECUTORS as readonly string[]).includes(type);
}

/** The operation a step names (its command), as Dagu reads it: trimmed, lower case. */
export function operationOf(command: string | undefined): string {
  return (command ?? '').trim().toLowerCase();
}

/**
 * Problems of a wait or file step when it is loaded: an operation the executor lacks, a key it
 * does not read, a required setting missing. Values are checked when the step runs, after their
 * `${VAR}` references are expanded.
 */
export function checkBuiltin(type: BuiltinExecutor, step: Step, path: string, configPath: string): DagIssue[] {
  const operations = OPERATIONS[type];
  const operation = operationOf(step.cmdWithArgs);
  const config = step.executor.config;
  const stray = Object.keys(config)
    .filter((key) => !BUILTIN_KEYS[type].includes(key))
    .map((key) =>
      issue(
        childPath(configPath, key),
        `the ${type} executor does not take ${key} (it takes ${BUILTIN_KEYS[type].join(', ')})`,
      ),
    );
  if (!Object.hasOwn(operations, operation))
    return [
      issue(
        childPath(path, 'command'),
        `the ${type} executor needs command, one of ${Object.keys(operations).join(', ')} (the action ${type}.<operation>)`,
      ),
      ...stray,
    ];
  const missing = (operations[operation] ?? [])
    .filter(
      (key) =>
        config[key] === undefined ||
        (key !== 'content' && typeof config[key] === 'string' && config[key].trim() === ''),
    )
    .map((key) => issue(childPath(configPath, key), `is required for ${type}.${operation}`));
  return [...stray, ...missing];
}

/**
 * Dagu 2.x's built-in executors that Kubedag's step runner carries out in the step Pod:
 * `wait`, `file`, `s3`, `archive` and `artifact`. A 2.x action such as `wait.duration` is the step `type: wait` with the
 * operation as its command and `with` as its settings (Dagu v2.15.1 `operationAction` in
 * internal/spec/step_v2.go writes it the same way), so one table here serves the loader (the
 * checks a DAG gets when it is loaded) and the runner (which reads the settings again, their
 * `${VAR}` references expanded, with Dagu's messages). Pure.
 * See docs/decisions/2026-11-29-dagu-2x-builtin-actions.md.
 */
import { childPath, issue, type DagIssue } from './issues.ts';
import type { Step } from './model.ts';
import { parseTemplate, TemplateError } from '../template/parse.ts';

export const BUILTIN_EXECUTORS = ['wait', 'file', 's3', 'archive', 'artifact'] as const;
export type BuiltinExecutor = (typeof BUILTIN_EXECUTORS)[number];

/**
 * The operations of each executor, and the settings each one cannot do without when the DAG is
 * loaded (Dagu's `validateConfig`). s3 names none: its bucket may come from the DAG's `s3`
 * block, and Dagu checks its settings only when the step runs (the runner does the same).
 */
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
  s3: { upload: [], download: [], list: [], delete: [] },
  // Dagu's config schema requires source for every operation; create's destination is checked
  // when the step runs (a dry run needs none).
  archive: { create: ['source'], extract: ['source'], list: ['source'] },
  // Over the run's artifacts directory (DAG_RUN_ARTIFACTS_DIR); list's path defaults to its root.
  artifact: { list: [], read: ['path'], write: ['path', 'content'] },
};

/** The settings each executor reads (Dagu's config structs). */
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
  s3: [
    'region',
    'endpoint',
    'access_key_id',
    'secret_access_key',
    'session_token',
    'profile',
    'force_path_style',
    'disable_ssl',
    'bucket',
    'key',
    'source',
    'destination',
    'content_type',
    'storage_class',
    'metadata',
    'sse',
    'sse_kms_key_id',
    'acl',
    'tags',
    'part_size',
    'concurrency',
    'prefix',
    'delimiter',
    'max_keys',
    'recursive',
    'output_format',
    'quiet',
  ],
  archive: [
    'source',
    'destination',
    'format',
    'compression_level',
    'password',
    'overwrite',
    'preserve_paths',
    'strip_components',
    'include',
    'exclude',
    'dry_run',
    'verbose',
    'follow_symlinks',
    'verify_integrity',
    'continue_on_error',
  ],
  artifact: [
    'path',
    'content',
    'mode',
    'format',
    'pattern',
    'overwrite',
    'atomic',
    'recursive',
    'include_dirs',
    'max_bytes',
  ],
};

/**
 * Executors whose other keys are an error (Dagu decodes their settings with `ErrorUnused`).
 * Dagu's s3 and archive executors ignore keys they do not read, so a Dagu DAG with one still
 * loads here.
 */
export const STRICT_KEYS: Readonly<Record<BuiltinExecutor, boolean>> = {
  wait: true,
  file: true,
  s3: false,
  archive: false,
  artifact: true,
};

/** The settings of the DAG-level `s3` block: connection defaults for every s3 step (Dagu's `S3Config`). */
export const S3_DAG_KEYS = [
  'region',
  'endpoint',
  'access_key_id',
  'secret_access_key',
  'session_token',
  'profile',
  'force_path_style',
  'disable_ssl',
  'bucket',
] as const;

export function isBuiltinExecutor(type: string): type is BuiltinExecutor {
  return (BUILTIN_EXECUTORS as readonly string[]).includes(type);
}

/** The operation a step names (its command), as Dagu reads it: trimmed, lower case. */
export function operationOf(command: string | undefined): string {
  return (command ?? '').trim().toLowerCase();
}

/**
 * Problems of a wait, file or s3 step when it is loaded: an operation the executor lacks, a key it
 * does not read, a required setting missing. Values are checked when the step runs, after their
 * `${VAR}` references are expanded.
 */
export function checkBuiltin(type: BuiltinExecutor, step: Step, path: string, configPath: string): DagIssue[] {
  const operations = OPERATIONS[type];
  const operation = operationOf(step.cmdWithArgs);
  const config = step.executor.config;
  const stray = Object.keys(config)
    .filter((key) => STRICT_KEYS[type] && !BUILTIN_KEYS[type].includes(key))
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
  return [...stray, ...missing, ...(type === 'archive' ? checkArchiveFormat(operation, config, configPath) : [])];
}

const BARE_COMPRESSIONS = ['gz', 'bz2', 'xz', 'zst', 'zstd', 'lz4'];

/**
 * The bare compression (gz, bz2, xz, zst, lz4) an archive step's literal format, else its
 * archive's literal name, says; '' for an archive format or a value known only per run. Pure.
 */
export function bareCompressionOf(operation: string, config: Readonly<Record<string, unknown>>): string {
  const literal = (value: unknown): string =>
    typeof value === 'string' && !value.includes('$') ? value.trim().toLowerCase() : '';
  const format = literal(config.format);
  if (config.format !== undefined) return BARE_COMPRESSIONS.includes(format) ? format : '';
  const name = literal(operation === 'create' ? config.destination : config.source);
  if (/\.(tar\.[a-z0-9]+|tgz|tbz2?|txz)$/.test(name)) return '';
  return /\.(gz|bz2|xz|zstd?|lz4)$/.exec(name)?.[1] ?? '';
}

/**
 * A compressed file that is not a tar is no archive Kubedag reads or writes (Dagu lists one;
 * its extract and create refuse it), refused when the DAG is loaded when the step says so
 * literally; one named per run fails the step the same way (exit 5).
 */
function checkArchiveFormat(operation: string, config: Readonly<Record<string, unknown>>, configPath: string) {
  const bare = bareCompressionOf(operation, config);
  if (bare === '') return [];
  const key = config.format === undefined ? (operation === 'create' ? 'destination' : 'source') : 'format';
  return [
    issue(
      childPath(configPath, key),
      `archive format "${bare}" (a compressed file, not an archive) is not supported by Kubedag: it reads and writes zip, tar, tar.gz, tar.zst, tar.bz2 and tar.xz, and reads 7z and rar`,
    ),
  ];
}

/**
 * A template step (Dagu 2.x's `template.render`) when it is loaded: its template (the step's
 * script) is parsed here, so a construct Kubedag's subset of Go's text/template lacks refuses
 * the DAG by name instead of failing the run (core/template/parse.ts).
 */
export function checkTemplate(step: Step, path: string): DagIssue[] {
  // with.template_ref: the template is known when the step runs, and parsed then (step/executors/template.ts).
  const ref = step.executor.config.template_ref;
  if (ref !== undefined && step.script !== undefined)
    return [issue(childPath(path, 'script'), 'template step cannot use both script and with.template_ref')];
  if (typeof ref === 'string') return [];
  if (step.script === undefined) return [issue(childPath(path, 'script'), 'script field is required')];
  try {
    parseTemplate(step.script);
    return [];
  } catch (error) {
    if (!(error instanceof TemplateError)) throw error;
    return [issue(childPath(path, 'script'), `template: parse error: ${error.message}`)];
  }
}

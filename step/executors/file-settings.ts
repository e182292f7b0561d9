/**
 * The settings of Dagu's file executor (`file.stat`, `file.read`, `file.write`, `file.copy`,
 * `file.move`, `file.delete`, `file.mkdir`, `file.list`), read as v2.15.1 reads them
 * (internal/runtime/builtin/file/config.go): weakly typed, unknown keys refused, `atomic`
 * true by default, the required settings of each operation, `format` raw or json, `mode` an
 * octal number (`0640`, `0o640`). Relative paths resolve against the step's working directory.
 * Pure.
 */
import { isAbsolute, join, normalize } from 'node:path';
import { OPERATIONS } from '../../core/dag/builtin-executors.ts';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import { boolSetting, textSetting } from '../settings.ts';
import { configErrorOf, fileModeSetting, listingSettings, operationSetting } from './file-like-settings.ts';

export interface FileSettings {
  readonly operation: string;
  readonly path: string;
  readonly source: string;
  readonly destination: string;
  readonly content?: string;
  /** Absent: the operation's own default (0600 for write, 0750 for mkdir). */
  readonly mode?: number;
  readonly format: 'raw' | 'json';
  readonly pattern: string;
  readonly overwrite: boolean;
  readonly createDirs: boolean;
  readonly atomic: boolean;
  readonly recursive: boolean;
  readonly missingOk: boolean;
  readonly dryRun: boolean;
  readonly includeDirs: boolean;
  readonly followSymlinks: boolean;
  /** 0: no limit. */
  readonly maxBytes: number;
}

const configError = configErrorOf('file');

/** A path as Dagu resolves it: trimmed; relative ones against the working directory; `~` as the home directory. */
export function resolvePath(raw: string, cwd: string, home: string | undefined): string {
  const text = raw.trim();
  if (text === '') throw configError('path must not be empty');
  if (text === '~' || text.startsWith('~/')) return normalize(join(home ?? '/', text.slice(1)));
  return normalize(isAbsolute(text) ? text : join(cwd, text));
}

/** Dagu's validateConfig: the operation is known and its required settings are written. */
function checkRequired(
  operation: string,
  config: Readonly<Record<string, unknown>>,
  text: (key: string) => string,
): void {
  const required = OPERATIONS.file[operation];
  if (required === undefined) throw configError(`unsupported operation "${operation}"`);
  for (const key of required.filter((k) => k !== 'content'))
    if (text(key).trim() === '') throw configError(`${key} is required for ${operation}`);
  if (required.includes('content') && config.content === undefined)
    throw configError(`content is required for ${operation}`);
}

export function fileSettings(spec: ExecutorSpec, env: Readonly<Record<string, string>>): FileSettings {
  const { config } = spec;
  const operation = operationSetting('file', spec);
  const text = (key: string): string => textSetting(config, key, env) ?? '';
  checkRequired(operation, config, text);
  const { format, maxBytes, pattern } = listingSettings('file', spec, env);
  const flag = (key: string): boolean => boolSetting(config, key, env);
  return {
    operation,
    path: text('path'),
    source: text('source'),
    destination: text('destination'),
    ...(config.content === undefined ? {} : { content: text('content') }),
    ...(config.mode === undefined ? {} : { mode: fileModeSetting('file', text('mode')) }),
    format,
    pattern,
    overwrite: flag('overwrite'),
    createDirs: flag('create_dirs'),
    atomic: config.atomic === undefined ? true : flag('atomic'),
    recursive: flag('recursive'),
    missingOk: flag('missing_ok'),
    dryRun: flag('dry_run'),
    includeDirs: flag('include_dirs'),
    followSymlinks: flag('follow_symlinks'),
    maxBytes,
  };
}

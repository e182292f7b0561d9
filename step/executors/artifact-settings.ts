/**
 * The settings of Dagu's artifact executor (`artifact.list`, `artifact.read`, `artifact.write`),
 * read as v2.15.1 reads them (internal/runtime/builtin/artifact/config.go): weakly typed,
 * unknown keys refused, `atomic` true by default, `overwrite` only with `atomic`, `format` raw or
 * json, `mode` octal. Paths are relative to the run's artifacts directory and may not leave it
 * (artifactPath). Pure.
 */
import { cleanArtifactPath, type ArtifactPathProblem } from '../../core/dag/artifact-path.ts';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import type { SettingError } from '../settings.ts';
import { boolSetting, textSetting } from '../settings.ts';
import { configErrorOf, fileModeSetting, listingSettings, operationSetting } from './file-like-settings.ts';

export interface ArtifactSettings {
  readonly operation: 'list' | 'read' | 'write';
  readonly path: string;
  readonly content: string;
  readonly mode: number;
  readonly format: 'raw' | 'json';
  readonly pattern: string;
  readonly overwrite: boolean;
  readonly atomic: boolean;
  readonly recursive: boolean;
  readonly includeDirs: boolean;
  /** 0: no limit. */
  readonly maxBytes: number;
}

export const configError: (message: string) => SettingError = configErrorOf('artifact');

const OPERATIONS = ['list', 'read', 'write'] as const;

function isOperation(operation: string): operation is ArtifactSettings['operation'] {
  return (OPERATIONS as readonly string[]).includes(operation);
}

const PROBLEMS: Readonly<Record<ArtifactPathProblem, string>> = {
  empty: 'path must not be empty',
  absolute: 'artifact path must be relative',
  parent: 'artifact path must not contain ..',
  root: 'artifact path must name a file',
};

/** A path inside the artifacts directory (core/dag/artifact-path.ts), or Dagu's executor's error. */
export function artifactPath(raw: string, allowRoot: boolean): string {
  const clean = cleanArtifactPath(raw, allowRoot);
  if ('problem' in clean) throw configError(PROBLEMS[clean.problem]);
  return clean.path;
}

/** Dagu's validateConfig: what each operation cannot do without. */
function checkRequired(
  operation: ArtifactSettings['operation'],
  config: Readonly<Record<string, unknown>>,
  path: string,
  overwriteInPlace: boolean,
): void {
  if (operation !== 'list' && path.trim() === '') throw configError(`path is required for ${operation}`);
  if (operation !== 'write') return;
  if (config.content === undefined) throw configError('content is required for write');
  if (overwriteInPlace) throw configError('overwrite requires atomic writes');
}

export function artifactSettings(spec: ExecutorSpec, env: Readonly<Record<string, string>>): ArtifactSettings {
  const { config } = spec;
  const operation = operationSetting('artifact', spec);
  if (!isOperation(operation)) throw configError(`unsupported operation "${operation}"`);
  const text = (key: string): string => textSetting(config, key, env) ?? '';
  const flag = (key: string): boolean => boolSetting(config, key, env);
  const atomic = config.atomic === undefined ? true : flag('atomic');
  checkRequired(operation, config, text('path'), flag('overwrite') && !atomic);
  const { format, maxBytes, pattern } = listingSettings('artifact', spec, env);
  return {
    operation,
    path: artifactPath(text('path'), operation === 'list'),
    content: text('content'),
    mode: config.mode === undefined ? 0o600 : fileModeSetting('artifact', text('mode')),
    format,
    pattern,
    overwrite: flag('overwrite'),
    atomic,
    recursive: flag('recursive'),
    includeDirs: flag('include_dirs'),
    maxBytes,
  };
}

/**
 * What Dagu's file and artifact executors read alike (v2.15.1 internal/runtime/builtin/file and
 * artifact, config.go): unknown keys refused, `content` text, `format` raw or json, `max_bytes`
 * not negative, a glob `pattern` that closes its brackets, `mode` an octal number. Each
 * executor's errors carry its own name. Pure.
 */
import { BUILTIN_KEYS, operationOf } from '../../core/dag/builtin-executors.ts';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import { intSetting, SettingError, textSetting } from '../settings.ts';

type Executor = 'file' | 'artifact';
type Env = Readonly<Record<string, string>>;

export const configErrorOf =
  (executor: Executor) =>
  (message: string): SettingError =>
    new SettingError(`${executor}: configuration error: ${message}`);

/** The settings checked before the operation's own: no stray key, text content; the operation. */
export function operationSetting(executor: Executor, spec: ExecutorSpec): string {
  const error = configErrorOf(executor);
  const stray = Object.keys(spec.config).filter((key) => !BUILTIN_KEYS[executor].includes(key));
  if (stray.length > 0) throw error(`unknown settings: ${stray.join(', ')}`);
  if (spec.config.content !== undefined && typeof spec.config.content !== 'string')
    throw error('content must be a string');
  return operationOf(spec.command);
}

/** The settings checked after the operation's own: format, max_bytes, pattern. */
export function listingSettings(
  executor: Executor,
  spec: ExecutorSpec,
  env: Env,
): { readonly format: 'raw' | 'json'; readonly maxBytes: number; readonly pattern: string } {
  const error = configErrorOf(executor);
  const format = textSetting(spec.config, 'format', env) ?? '';
  if (format !== '' && format !== 'raw' && format !== 'json') throw error('format must be raw or json');
  const maxBytes = intSetting(spec.config, 'max_bytes', env);
  if (maxBytes < 0) throw error('max_bytes must be >= 0');
  const pattern = textSetting(spec.config, 'pattern', env) ?? '';
  if (/\[[^\]]*$/.test(pattern)) throw error(`invalid glob pattern "${pattern}"`);
  return { format: format === 'json' ? 'json' : 'raw', maxBytes, pattern };
}

/** `0640`, `0o640` or `640`: an octal file mode. */
export function fileModeSetting(executor: Executor, raw: string): number {
  const error = configErrorOf(executor);
  const text = raw.trim().replace(/^0[oO]/, '');
  if (text === '') throw error('mode must not be empty');
  if (!/^[0-7]+$/.test(text) || Number.parseInt(text, 8) > 0xffffffff) throw error(`invalid mode "${text}"`);
  return Number.parseInt(text, 8);
}

/**
 * Reading an executor's settings the way Dagu decodes them (mapstructure, weakly typed): a
 * boolean may be written `true` or `"true"`, a number `5` or `"5"`. A value of the wrong kind is
 * an error that names the setting, never a silent default. Text values get `${VAR}` expanded
 * from the step's environment, as Dagu evaluates string settings before the executor runs.
 */
import { expandSetting } from './io.ts';

/** A bad setting: the runner prints it as one line and fails the step. */
export class SettingError extends Error {}

type Env = Readonly<Record<string, string>>;

export function textSetting(config: Readonly<Record<string, unknown>>, key: string, env: Env): string | undefined {
  const value = config[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return expandSetting(value, env);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new SettingError(`${key}: must be text, not ${JSON.stringify(value)}`);
}

export function boolSetting(config: Readonly<Record<string, unknown>>, key: string, env: Env): boolean {
  const value = config[key];
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  // strconv.ParseBool's spellings, which mapstructure accepts for a boolean written as text.
  const text = typeof value === 'string' ? expandSetting(value, env) : undefined;
  if (text !== undefined && ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (text !== undefined && ['', '0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  throw new SettingError(`${key}: must be true or false, not ${JSON.stringify(value)}`);
}

export function intSetting(config: Readonly<Record<string, unknown>>, key: string, env: Env): number {
  const value = config[key];
  if (value === undefined || value === null) return 0;
  const number =
    typeof value === 'string'
      ? expandSetting(value, env).trim() === ''
        ? 0
        : Number(expandSetting(value, env))
      : value;
  if (typeof number === 'number' && Number.isInteger(number)) return number;
  throw new SettingError(`${key}: must be a whole number, not ${JSON.stringify(value)}`);
}

/** A map of text values (headers, query); values are expanded, keys kept. */
export function mapSetting(config: Readonly<Record<string, unknown>>, key: string, env: Env): Record<string, string> {
  const value = config[key];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new SettingError(`${key}: must be a mapping of names to values, not ${JSON.stringify(value)}`);
  const entries = Object.entries(value as Record<string, unknown>).map(([name, item]) => {
    if (typeof item === 'string') return [name, expandSetting(item, env)];
    if (typeof item === 'number' || typeof item === 'boolean') return [name, String(item)];
    throw new SettingError(`${key}.${name}: must be text, not ${JSON.stringify(item)}`);
  });
  return Object.fromEntries(entries) as Record<string, string>;
}

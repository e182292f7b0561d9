/** `${VAR}` expansion over an executor's settings as the DAG wrote them (texts, lists, mappings). */
import { expandSetting } from '../io.ts';

/** Expands `${VAR}` in every text of a setting, in lists and mappings too; other values stay. */
export function expandDeep(value: unknown, env: Readonly<Record<string, string>>): unknown {
  if (typeof value === 'string') return expandSetting(value, env);
  if (Array.isArray(value)) return value.map((item) => expandDeep(item, env));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, expandDeep(item, env)]));
  return value;
}

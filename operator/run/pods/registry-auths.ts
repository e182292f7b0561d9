/**
 * A DAG's `registryAuths` as the `.dockerconfigjson` of an image pull Secret: every registry
 * host with its credentials, `${VAR}` references expanded from the run's variables (DAG env and
 * params). The whole value may also be a docker config JSON text (typically `${VAR}`). Pure.
 */
import { expand, isMapping } from '../../../core/dag/index.ts';

export type RegistryAuths = string | Readonly<Record<string, unknown>>;

interface Credentials {
  readonly username?: string;
  readonly password?: string;
  readonly auth?: string;
}

export type DockerConfig =
  { readonly ok: true; readonly json: string } | { readonly ok: false; readonly error: string };

const expanded = (text: string, vars: Readonly<Record<string, string>>): string =>
  expand(text, { scopes: [vars] }).value;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function credentials(host: string, value: unknown, vars: Readonly<Record<string, string>>): Credentials | string {
  const entry = typeof value === 'string' ? parseJson(expanded(value, vars)) : value;
  if (!isMapping(entry)) return `registryAuths.${host}: expected {username, password} or {auth}`;
  const text = (key: string): string | undefined =>
    typeof entry[key] === 'string' ? expanded(entry[key], vars) : undefined;
  const [username, password, auth] = [text('username'), text('password'), text('auth')];
  if (auth === undefined && (username === undefined || password === undefined))
    return `registryAuths.${host}: needs username and password, or auth`;
  return {
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
    // The docker config's `auth` is base64 of `user:password`; runtimes read it first.
    auth: auth ?? Buffer.from(`${username ?? ''}:${password ?? ''}`).toString('base64'),
  };
}

export function dockerConfigJson(auths: RegistryAuths, vars: Readonly<Record<string, string>>): DockerConfig {
  const whole = typeof auths === 'string' ? parseJson(expanded(auths, vars)) : auths;
  if (!isMapping(whole)) return { ok: false, error: 'registryAuths: the text is not a JSON object of registries' };
  // A docker config file's own shape ({"auths": {...}}) is taken as it is written.
  const hosts = isMapping(whole.auths) ? whole.auths : whole;
  const result: Record<string, Credentials> = {};
  for (const [host, value] of Object.entries(hosts)) {
    const entry = credentials(host, value, vars);
    if (typeof entry === 'string') return { ok: false, error: entry };
    result[host] = entry;
  }
  return { ok: true, json: JSON.stringify({ auths: result }) };
}

/**
 * Decisions of the ssh executor as pure functions over plain data: where to connect, how to
 * authenticate, how to check the host key, and what to run. They follow Dagu 1.24.11
 * (internal/runtime/builtin/ssh) and its documented defaults; docs/decisions/2026-11-24-mail-ssh.md
 * says where Kubedag differs.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { SSH_KEY_ENV } from '../../core/runner/spec.ts';
import type { Decided } from './mail-settings.ts';

/** Default keys Dagu tries, in this order, when a step names neither key nor password. */
export const DEFAULT_KEY_NAMES = ['id_rsa', 'id_ecdsa', 'id_ed25519', 'id_dsa'] as const;

export type SshAuth =
  | { readonly kind: 'keyFile'; readonly path: string }
  /** The key itself, from a Kubernetes Secret the operator put in SSH_KEY_ENV. */
  | { readonly kind: 'keyText'; readonly text: string }
  /** The first of these files that exists. */
  | { readonly kind: 'defaultKeys'; readonly paths: readonly string[] }
  | { readonly kind: 'password'; readonly password: string };

export interface SshTarget {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly auth: SshAuth;
  /** known_hosts file to check the host key against; undefined when strictHostKey is false. */
  readonly knownHosts?: string;
}

/** Where relative paths and `~` resolve: the step's working directory and the runner's home. */
export interface SshPlaces {
  readonly cwd: string;
  readonly home: string;
  readonly env: Readonly<Record<string, string>>;
}

const fail = (error: string): Decided<never> => ({ ok: false, error });

/** An ssh step's settings, each `${VAR}` already expanded, turned into a connection to make. */
export function decideTarget(config: Readonly<Record<string, unknown>>, places: SshPlaces): Decided<SshTarget> {
  // Dagu reads `ip` as another name for host, and it wins when both are set.
  const host = text(config.ip) || text(config.host);
  if (host === '') return fail('host is not set (in the step or the DAG-level ssh block)');
  const user = text(config.user);
  if (user === '') return fail('user is not set');
  const port = decidePort(config.port);
  if (!port.ok) return port;
  const strict = decideFlag(config.strictHostKey, true);
  if (strict === undefined)
    return fail(`strictHostKey must be true or false, not ${JSON.stringify(config.strictHostKey)}`);
  const auth = decideAuth(config, places);
  if (!auth.ok) return auth;
  const knownHostFile = text(config.knownHostFile) || '~/.ssh/known_hosts';
  return {
    ok: true,
    value: {
      host,
      port: port.value,
      user,
      auth: auth.value,
      ...(strict ? { knownHosts: resolvePath(knownHostFile, places) } : {}),
    },
  };
}

function decidePort(value: unknown): Decided<number> {
  const written = typeof value === 'number' ? String(value) : text(value);
  // Dagu reads an empty port and port 0 as 22.
  if (written === '' || written === '0') return { ok: true, value: 22 };
  const port = Number(written);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    return fail(`port "${written}" is not a port number (1-65535)`);
  return { ok: true, value: port };
}

/** Dagu decodes settings weakly: "true"/"false" (any case), 1/0 and booleans mean the same. */
function decideFlag(value: unknown, fallback: boolean): boolean | undefined {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const word = String(value).trim().toLowerCase();
  if (['true', '1', 't'].includes(word)) return true;
  if (['false', '0', 'f'].includes(word)) return false;
  return undefined;
}

/**
 * Like Dagu: a key when one is named, else the default keys when there is no password, else
 * the password. One method only, so a wrong key is reported as such rather than hidden by a
 * password that happens to work.
 */
function decideAuth(config: Readonly<Record<string, unknown>>, places: SshPlaces): Decided<SshAuth> {
  const { key } = config;
  if (isSecretKeyRef(key)) {
    const keyText = places.env[SSH_KEY_ENV] ?? '';
    if (keyText.trim() === '')
      return fail(
        `key names Secret "${key.secretKeyRef.name}" (key "${key.secretKeyRef.key}"), but the step has no ${SSH_KEY_ENV}: the operator did not pass it`,
      );
    return { ok: true, value: { kind: 'keyText', text: keyText } };
  }
  if (key !== undefined && key !== null && typeof key !== 'string')
    return fail('key must be a path or {secretKeyRef: {name, key}}');
  if (text(key) !== '') return { ok: true, value: { kind: 'keyFile', path: resolvePath(text(key), places) } };
  const password = typeof config.password === 'string' ? config.password : '';
  if (password !== '') return { ok: true, value: { kind: 'password', password } };
  return {
    ok: true,
    value: { kind: 'defaultKeys', paths: DEFAULT_KEY_NAMES.map((name) => join(places.home, '.ssh', name)) },
  };
}

export interface SecretKeyRef {
  readonly secretKeyRef: { readonly name: string; readonly key: string };
}

export function isSecretKeyRef(value: unknown): value is SecretKeyRef {
  if (typeof value !== 'object' || value === null || !('secretKeyRef' in value)) return false;
  const ref = value.secretKeyRef;
  return (
    typeof ref === 'object' &&
    ref !== null &&
    'name' in ref &&
    'key' in ref &&
    typeof ref.name === 'string' &&
    typeof ref.key === 'string'
  );
}

function resolvePath(path: string, places: SshPlaces): string {
  if (path === '~') return places.home;
  if (path.startsWith('~/')) return join(places.home, path.slice(2));
  return isAbsolute(path) ? path : resolve(places.cwd, path);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
}

/** What the remote side runs: an exec request, and what it reads on its standard input. */
export interface RemoteWork {
  readonly command: string;
  readonly stdin?: string;
}

/**
 * A command runs as the exec request, so the remote user's shell interprets it as written.
 * A script goes to the standard input of the step's command (its interpreter, as for local
 * steps) or of `/bin/sh`; for sh it is wrapped in a function so that the shell has read all
 * of it before the first line runs, and a script cut short in transit runs nothing.
 */
export function decideWork(command: string | undefined, script: string | undefined): Decided<RemoteWork> {
  const interpreter = command?.trim() ?? '';
  if (script === undefined || script.trim() === '') {
    return interpreter === ''
      ? fail('the step has neither command nor script')
      : { ok: true, value: { command: interpreter } };
  }
  if (interpreter !== '' && interpreter !== '/bin/sh' && interpreter !== 'sh')
    return { ok: true, value: { command: interpreter, stdin: script } };
  const body = script.endsWith('\n') ? script : `${script}\n`;
  return { ok: true, value: { command: '/bin/sh', stdin: `__kubedag_step() {\n${body}}\n__kubedag_step\n` } };
}

/**
 * Decisions of the ssh executor as pure functions over plain data: where to connect, how to
 * authenticate, how to check the host key, and what to run. They follow Dagu 1.24.11
 * (internal/runtime/builtin/ssh) and its documented defaults; docs/decisions/2026-11-24-mail-ssh.md
 * says where Kubedag differs.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { SSH_KEY_ENV } from '../../core/runner/spec.ts';
import { goDurationMs } from '../go-duration.ts';
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

/** A host to log in to: the target, or the jump host on the way. */
export interface SshHop {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly auth: SshAuth;
}

export interface SshTarget extends SshHop {
  /** known_hosts file to check the host keys against (target and bastion); undefined when strictHostKey is false. */
  readonly knownHosts?: string;
  /** How long each connection may take until logged in (Dagu 2.x `timeout`, default 30s). */
  readonly timeoutMs: number;
  /** Dagu 2.x `shell` with its `shellArgs`, as one command line; absent: the login shell runs the command. */
  readonly shell?: string;
  /** Dagu 2.x `bastion`: the jump host the connection to the target goes through. */
  readonly bastion?: SshHop;
}

/** Dagu's connection timeout when none (or 0) is set. */
export const DEFAULT_TIMEOUT_MS = 30_000;

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
  const twoX = decideTwoX(config, places);
  if (!twoX.ok) return twoX;
  return {
    ok: true,
    value: {
      host,
      port: port.value,
      user,
      auth: auth.value,
      ...(strict ? { knownHosts: resolvePath(knownHostFile, places) } : {}),
      ...twoX.value,
    },
  };
}

/** The settings Dagu 2.x added: the connection timeout, the remote shell and the jump host. */
function decideTwoX(
  config: Readonly<Record<string, unknown>>,
  places: SshPlaces,
): Decided<Pick<SshTarget, 'timeoutMs' | 'shell' | 'bastion'>> {
  const timeoutMs = decideTimeout(config.timeout);
  if (!timeoutMs.ok) return timeoutMs;
  const shell = decideShell(config.shell, config.shellArgs);
  if (!shell.ok) return shell;
  const bastion = config.bastion === undefined ? undefined : decideBastion(config.bastion, places);
  if (bastion?.ok === false) return bastion;
  return {
    ok: true,
    value: {
      timeoutMs: timeoutMs.value,
      ...(shell.value === undefined ? {} : { shell: shell.value }),
      ...(bastion === undefined ? {} : { bastion: bastion.value }),
    },
  };
}

/** A Go duration, as Dagu's time.ParseDuration reads it; empty and 0 are its default. */
function decideTimeout(value: unknown): Decided<number> {
  const written = text(value);
  if (written === '') return { ok: true, value: DEFAULT_TIMEOUT_MS };
  const ms = goDurationMs(written);
  if (ms === undefined || ms < 0) return fail(`timeout "${written}" is not a duration such as 30s or 1m`);
  return { ok: true, value: ms === 0 ? DEFAULT_TIMEOUT_MS : ms };
}

/** `shell` then `shellArgs`, each argument quoted for the login shell that reads the line. */
function decideShell(shell: unknown, args: unknown): Decided<string | undefined> {
  const program = text(shell);
  const extra = args === undefined || args === null ? [] : args;
  if (!Array.isArray(extra) || extra.some((arg) => typeof arg !== 'string'))
    return fail('shellArgs must be a list of words');
  if (program === '')
    return extra.length === 0 ? { ok: true, value: undefined } : fail('shellArgs needs shell (the program they go to)');
  return { ok: true, value: [program, ...(extra as string[]).map(singleQuoted)].join(' ') };
}

/**
 * The jump host: host and user, its port (22 when empty or 0) and, as Dagu picks for it, a
 * key file, else the password, else the default keys. Its host key is checked like the target's.
 */
function decideBastion(value: unknown, places: SshPlaces): Decided<SshHop> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return fail('bastion must be a mapping (host, port, user, key, password)');
  const bastion = value as Record<string, unknown>;
  const host = text(bastion.host);
  const user = text(bastion.user);
  if (host === '' || user === '') return fail('bastion needs host and user');
  const port = decidePort(bastion.port);
  if (!port.ok) return fail(`bastion ${port.error}`);
  return { ok: true, value: { host, port: port.value, user, auth: loginBy(bastion.key, bastion.password, places) } };
}

function singleQuoted(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
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
  return { ok: true, value: loginBy(key, config.password, places) };
}

/** Dagu's order for a login that names no Secret: a key file, else the password, else the default keys. */
function loginBy(key: unknown, password: unknown, places: SshPlaces): SshAuth {
  if (text(key) !== '') return { kind: 'keyFile', path: resolvePath(text(key), places) };
  if (typeof password === 'string' && password !== '') return { kind: 'password', password };
  return { kind: 'defaultKeys', paths: DEFAULT_KEY_NAMES.map((name) => join(places.home, '.ssh', name)) };
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
export function decideWork(
  command: string | undefined,
  script: string | undefined,
  shell?: string,
): Decided<RemoteWork> {
  if (shell !== undefined) return shellWork(command, script, shell);
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

/**
 * With Dagu 2.x's `shell`, the shell is the exec request and reads the command or the script on
 * its standard input, as Dagu sends it: inside a function (read whole before it runs) that
 * starts with `set -e`. A command beside a script would be the script's interpreter in 1.x and
 * is ignored by Dagu here, so both together are refused.
 */
function shellWork(command: string | undefined, script: string | undefined, shell: string): Decided<RemoteWork> {
  const line = command?.trim() ?? '';
  const hasScript = script !== undefined && script.trim() !== '';
  if (hasScript && line !== '')
    return fail('with shell set the script runs in that shell; a command cannot also be its interpreter');
  const body = hasScript ? script : line;
  if (body === '') return fail('the step has neither command nor script');
  const text = body.endsWith('\n') ? body : `${body}\n`;
  return { ok: true, value: { command: shell, stdin: `__kubedag_step() {\nset -e\n${text}}\n__kubedag_step\n` } };
}

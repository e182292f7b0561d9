/**
 * One structured logger for every Kubedag program (operator, API server, node agent): pino,
 * JSON lines by default (what a cluster's log pipeline reads), or readable lines for a person
 * at a terminal (`make dev`). Settings are parsed once at start, like the rest of a program's
 * configuration, and the logger is passed down; nothing here reads the environment.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import { PinoPretty } from 'pino-pretty';
import { argsOptions, resolveSettings, setting, type Env } from './settings.ts';

export type { Logger } from 'pino';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface LogSettings {
  readonly level: LogLevel;
  readonly format: LogFormat;
}

export const DEFAULT_LOG_SETTINGS: LogSettings = { level: 'info', format: 'json' };

/** The log settings every program takes (core/settings.ts): `--log-level`, `--log-format` and their `KUBEDAG_LOG_*` variables. */
export const LOG_SETTINGS = {
  logLevel: setting({
    flag: 'log-level',
    group: 'Log',
    values: LOG_LEVELS,
    default: DEFAULT_LOG_SETTINGS.level,
    description: 'Least severe level written.',
    read: (text, s) => oneOf(s.name, text, LOG_LEVELS),
  }),
  logFormat: setting({
    flag: 'log-format',
    group: 'Log',
    values: LOG_FORMATS,
    default: DEFAULT_LOG_SETTINGS.format,
    description: 'JSON lines, or pretty lines for a person at a terminal.',
    read: (text, s) => oneOf(s.name, text, LOG_FORMATS),
  }),
};

/**
 * The parseArgs options of the log flags, for programs whose other flags are not in a settings
 * table yet (node agent, provisioner). Typed by hand: parseArgs types its values from literal
 * option names, which a table's flags are not.
 */
export const LOG_FLAGS = argsOptions(LOG_SETTINGS) as {
  readonly 'log-level': { readonly type: 'string' };
  readonly 'log-format': { readonly type: 'string' };
};

/**
 * Log settings from a flag or variable value each (`--log-level`/`KUBEDAG_LOG_LEVEL`,
 * `--log-format`/`KUBEDAG_LOG_FORMAT`); an unknown value is an error at start, not a silent
 * default.
 */
export function parseLogSettings(level: string | undefined, format: string | undefined): LogSettings {
  return logSettingsFrom({ 'log-level': level, 'log-format': format }, {});
}

/** Log settings from a program's parsed flags, each flag over its `KUBEDAG_LOG_*` variable. */
export function logSettingsFrom(
  flags: { readonly 'log-level'?: string | undefined; readonly 'log-format'?: string | undefined },
  env: Env,
): LogSettings {
  const { logLevel, logFormat } = resolveSettings(LOG_SETTINGS, flags, env);
  return { level: logLevel, format: logFormat };
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  const found = allowed.find((a) => a === value.toLowerCase());
  if (found === undefined) throw new Error(`${name} must be one of ${allowed.join(', ')}, not "${value}"`);
  return found;
}

/**
 * A program's root logger; `component` names the program on every line. Pretty output is
 * formatted in-process (no transport worker thread: it would cost memory for a dev nicety).
 */
export function createLogger(
  component: string,
  settings: LogSettings = DEFAULT_LOG_SETTINGS,
  destination?: DestinationStream,
): Logger {
  const options = { level: settings.level, base: { component } };
  if (settings.format === 'pretty')
    return pino(
      options,
      PinoPretty({
        sync: true,
        destination: destination ?? 1,
        ignore: 'pid,hostname',
        translateTime: 'SYS:HH:MM:ss.l',
      }),
    );
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}

/** A logger that writes nothing: for tests and library callers that do not care. */
export const silentLogger: Logger = pino({ level: 'silent' });

/** The message of anything thrown, for a log field. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

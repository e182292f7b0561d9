/**
 * One structured logger for every Kubedag program (operator, API server, node agent): pino,
 * JSON lines by default (what a cluster's log pipeline reads), or readable lines for a person
 * at a terminal (`make dev`). Settings are parsed once at start, like the rest of a program's
 * configuration, and the logger is passed down; nothing here reads the environment.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import { PinoPretty } from 'pino-pretty';

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

/** The flags every program takes for its log (values as strings, for node:util parseArgs). */
export const LOG_FLAGS = { 'log-level': { type: 'string' }, 'log-format': { type: 'string' } } as const;

/**
 * Log settings from a flag or variable value each (`--log-level`/`KUBEDAG_LOG_LEVEL`,
 * `--log-format`/`KUBEDAG_LOG_FORMAT`); an unknown value is an error at start, not a silent
 * default.
 */
export function parseLogSettings(level: string | undefined, format: string | undefined): LogSettings {
  return {
    level: oneOf('log-level', level, LOG_LEVELS, DEFAULT_LOG_SETTINGS.level),
    format: oneOf('log-format', format, LOG_FORMATS, DEFAULT_LOG_SETTINGS.format),
  };
}

/** Log settings from a program's parsed flags, each flag over its `KUBEDAG_LOG_*` variable. */
export function logSettingsFrom(flags: { readonly 'log-level'?: string; readonly 'log-format'?: string }, env: Readonly<Record<string, string | undefined>>): LogSettings {
  return parseLogSettings(flags['log-level'] ?? env.KUBEDAG_LOG_LEVEL, flags['log-format'] ?? env.KUBEDAG_LOG_FORMAT);
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined || value === '') return fallback;
  const found = allowed.find((a) => a === value.toLowerCase());
  if (found === undefined) throw new Error(`${name} must be one of ${allowed.join(', ')}, not "${value}"`);
  return found;
}

/**
 * A program's root logger; `component` names the program on every line. Pretty output is
 * formatted in-process (no transport worker thread: it would cost memory for a dev nicety).
 */
export function createLogger(component: string, settings: LogSettings = DEFAULT_LOG_SETTINGS, destination?: DestinationStream): Logger {
  const options = { level: settings.level, base: { component } };
  if (settings.format === 'pretty') return pino(options, PinoPretty({ sync: true, destination: destination ?? 1, ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss.l' }));
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}

/** A logger that writes nothing: for tests and library callers that do not care. */
export const silentLogger: Logger = pino({ level: 'silent' });

/** The message of anything thrown, for a log field. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A program's settings declared once, as data: each has its flag, the `KUBEDAG_*` variables that
 * stand for it, its default, a one-line description and how its text is read. The parser
 * (node:util parseArgs options, flag over variable, the default, the check) and the `--help`
 * text are both derived from the table, so a setting cannot be parsed without being documented,
 * nor documented under a name the parser does not read. The Markdown form is for the docs.
 *
 * The rules, the same for every program: a flag wins over its variables, the first variable set
 * wins over the later ones (`KUBEDAG_KUBECONFIG` over `KUBECONFIG`), and an empty value counts
 * as unset (a chart or shell that passes `--x=` or `X=` sets nothing), so the default applies.
 */
import { parseArgs } from 'node:util';

export type Env = Readonly<Record<string, string | undefined>>;

/** What a setting's reader is told about it, to name it in a message. */
export interface SettingName {
  /** The flag without dashes, or the variable for a setting that has no flag. */
  readonly name: string;
  readonly flag?: string;
  readonly variables: readonly string[];
}

export interface Setting<T> extends SettingName {
  /** A one-letter flag for the same setting (`-n`). */
  readonly short?: string;
  readonly description: string;
  /** The placeholder of the value in help (`N`, `PATH`), or its allowed values joined by `|`. */
  readonly value: string;
  /** A flag that takes no value (`--quiet`); its variable still holds text for `read`. */
  readonly isSwitch: boolean;
  readonly default: T;
  /** The default as help shows it. */
  readonly defaultText: string;
  /** A heading that help puts the setting under; settings of a group are declared together. */
  readonly group?: string;
  /** The value from its non-empty text; throws an Error that names the setting when it is wrong. */
  readonly read: (text: string, setting: SettingName) => T;
}

export interface SettingSpec<T> {
  /** Absent: a variable only (credentials and the files holding them, which a flag would show in `ps`). */
  readonly flag?: string;
  readonly short?: string;
  /** Default `KUBEDAG_<FLAG>`; `[]` for a flag that has no variable. */
  readonly variables?: readonly string[];
  readonly description: string;
  readonly value?: string;
  /** Allowed values, for help; `read` still checks them. */
  readonly values?: readonly string[];
  readonly isSwitch?: boolean;
  readonly default: T;
  /** Default: the default written out, or `none` when it is undefined or empty. */
  readonly defaultText?: string;
  readonly group?: string;
  readonly read: (text: string, setting: SettingName) => T;
}

/** `max-pods` → `KUBEDAG_MAX_PODS`. */
export function variableOf(flag: string): string {
  return `KUBEDAG_${flag.toUpperCase().replaceAll('-', '_')}`;
}

function shownDefault(value: unknown): string {
  if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) return 'none';
  if (Array.isArray(value)) return value.join(',');
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

export function setting<T>(spec: SettingSpec<T>): Setting<T> {
  const variables = spec.variables ?? (spec.flag === undefined ? [] : [variableOf(spec.flag)]);
  const name = spec.flag ?? variables[0];
  if (name === undefined) throw new Error('a setting needs a flag or a variable');
  return {
    name,
    ...(spec.flag === undefined ? {} : { flag: spec.flag }),
    ...(spec.short === undefined ? {} : { short: spec.short }),
    variables,
    description: spec.description,
    value: spec.value ?? spec.values?.join('|') ?? 'TEXT',
    isSwitch: spec.isSwitch ?? false,
    default: spec.default,
    defaultText: spec.defaultText ?? shownDefault(spec.default),
    ...(spec.group === undefined ? {} : { group: spec.group }),
    read: spec.read,
  };
}

/** `--http-port or KUBEDAG_HTTP_PORT`: how a message tells a person where to change a setting. */
export function settingLabel(s: SettingName): string {
  return [...(s.flag === undefined ? [] : [`--${s.flag}`]), ...s.variables].join(' or ');
}

/** Any table of settings; a program's table is a `const` object of `setting(...)`s, keyed as its code names them. */
export type SettingsTable = Readonly<Record<string, Setting<unknown>>>;

/** The values a table parses to, each typed by its setting. */
export type SettingsOf<S extends SettingsTable> = {
  -readonly [K in keyof S]: S[K] extends Setting<infer T> ? T : never;
};

/** Flag values as parseArgs gives them. */
export type FlagValues = Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;

type ArgsOptions = Record<string, { type: 'string' | 'boolean'; short?: string }>;

/** The parseArgs options of a table's flags. */
export function argsOptions(table: SettingsTable): ArgsOptions {
  const options: ArgsOptions = {};
  for (const s of Object.values(table))
    if (s.flag !== undefined)
      options[s.flag] = {
        type: s.isSwitch ? 'boolean' : 'string',
        ...(s.short === undefined ? {} : { short: s.short }),
      };
  return options;
}

/** The values of a table from flags already parsed and the environment. */
export function resolveSettings<S extends SettingsTable>(table: S, flags: FlagValues, env: Env): SettingsOf<S> {
  const values: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(table)) {
    const given = s.flag === undefined ? undefined : flags[s.flag];
    if (typeof given === 'boolean') {
      values[key] = given;
      continue;
    }
    const text = [typeof given === 'string' ? given : undefined, ...s.variables.map((v) => env[v])].find(
      (t) => t !== undefined && t !== '',
    );
    values[key] = text === undefined ? s.default : s.read(text, s);
  }
  return values as SettingsOf<S>;
}

/**
 * parseArgs' own message, made to point at `--help`. Its longer messages go on to explain `--`
 * for positional arguments, which no Kubedag program takes where it refuses one.
 */
function argsError(error: unknown): Error {
  if (
    !(error instanceof Error) ||
    !('code' in error) ||
    typeof error.code !== 'string' ||
    !error.code.startsWith('ERR_PARSE_ARGS')
  )
    return error as Error;
  const first = error.message.split(/\.\s/)[0] ?? error.message;
  return new Error(`${first.replace(/\.$/, '')} (--help lists the settings)`, { cause: error });
}

/**
 * The flags of a table (and `--help`, `-h`) in the arguments, strictly: an unknown one, or one
 * without its value, is an error that points at `--help`.
 */
export function parseFlags(
  table: SettingsTable,
  argv: readonly string[],
  allowPositionals = false,
): { readonly values: FlagValues; readonly positionals: readonly string[] } {
  try {
    return parseArgs({
      args: [...argv],
      options: { ...argsOptions(table), help: { type: 'boolean', short: 'h' } },
      allowPositionals,
      strict: true,
    });
  } catch (error) {
    throw argsError(error);
  }
}

/** A program's settings from its arguments and the environment (flags win). */
export function parseSettings<S extends SettingsTable>(table: S, argv: readonly string[], env: Env): SettingsOf<S> {
  return resolveSettings(table, parseFlags(table, argv).values, env);
}

/**
 * Whether the arguments ask for help (`--help`, `-h`), whatever else they hold: help is
 * answered before any setting is checked, so a wrong one never hides it.
 */
export function helpWanted(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

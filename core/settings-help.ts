/**
 * A settings table (core/settings.ts) written out for people: the text a program prints for
 * `--help`, and a Markdown table for the docs. Both read only the table, so they say what the
 * parser does.
 */
import type { Setting, SettingsTable } from './settings.ts';

export interface HelpPage {
  /** The usage line, without `usage: `. */
  readonly usage: string;
  /** What the program is, in a sentence or two. */
  readonly about?: string;
  /** Subcommands, in the order they are shown. */
  readonly commands?: readonly { readonly name: string; readonly summary: string }[];
  readonly settings: SettingsTable;
  /** Lines after the settings (what the program also reads, exit codes). */
  readonly notes?: readonly string[];
}

/**
 * Text wrapped at `width` columns, each line starting with `indent`, the lines after the first
 * with `rest` (a setting's head line goes on indented further, so it is not read as the next one).
 */
export function wrap(text: string, indent: string, width: number, rest = indent): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    const lead = lines.length === 0 ? indent : rest;
    if (line !== '' && lead.length + line.length + 1 + word.length > width) {
      lines.push(lead + line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push((lines.length === 0 ? indent : rest) + line);
  return lines;
}

/** `--workers=N`, `--quiet`, or the variable for a setting without a flag. */
function spelling(s: Setting<unknown>): string {
  if (s.flag === undefined) return `${s.variables[0] ?? s.name}=${s.value}`;
  const short = s.short === undefined ? '' : `-${s.short}, `;
  return s.isSwitch ? `${short}--${s.flag}` : `${short}--${s.flag}=${s.value}`;
}

/** What the settings are called, and the rules that hold for them, by what they are. */
function heading(settings: readonly Setting<unknown>[]): string {
  if (settings.every((s) => s.flag === undefined)) return 'Variables (an empty value counts as unset):';
  if (settings.every((s) => s.variables.length === 0)) return 'Options:';
  return 'Settings (a flag wins over its variable; an empty value counts as unset):';
}

/** The variables after the first for a variable-only setting, all of them otherwise. */
function otherNames(s: Setting<unknown>): readonly string[] {
  return s.flag === undefined ? s.variables.slice(1) : s.variables;
}

function settingLines(s: Setting<unknown>, width: number): string[] {
  const names = otherNames(s);
  const facts = [...(names.length === 0 ? [] : [names.join(' or ')]), `default: ${s.defaultText}`].join('; ');
  return [...wrap(`${spelling(s)} (${facts})`, '  ', width, '    '), ...wrap(s.description, '      ', width)];
}

function groupedLines(table: SettingsTable, width: number): string[] {
  const lines: string[] = [];
  let group: string | undefined;
  for (const s of Object.values(table)) {
    if (s.group !== group) {
      group = s.group;
      lines.push('', `${group ?? 'Other'}:`);
    }
    lines.push(...settingLines(s, width));
  }
  return lines;
}

/**
 * The `--help` text: usage, what the program is, its commands, then each setting with its flag,
 * variables, default and description. Ends with a newline.
 */
export function renderHelp(page: HelpPage, width = 80): string {
  const lines = [`Usage: ${page.usage}`];
  if (page.about !== undefined) lines.push('', ...wrap(page.about, '', width));
  if (page.commands !== undefined && page.commands.length > 0) {
    const column = Math.max(...page.commands.map((c) => c.name.length)) + 4;
    lines.push('', 'Commands:');
    for (const c of page.commands) {
      const [first = '', ...rest] = wrap(c.summary, ' '.repeat(column), width);
      lines.push(`  ${c.name.padEnd(column - 2)}${first.trimStart()}`, ...rest);
    }
  }
  const settings = Object.values(page.settings);
  if (settings.length > 0) {
    lines.push('', ...wrap(heading(settings), '', width));
    const grouped = settings.some((s) => s.group !== undefined);
    lines.push(...(grouped ? groupedLines(page.settings, width) : settings.flatMap((s) => settingLines(s, width))));
  }
  lines.push('', '  -h, --help  (print this help and exit)');
  if (page.notes !== undefined) lines.push('', ...page.notes.flatMap((note) => wrap(note, '', width)));
  return `${lines.join('\n')}\n`;
}

const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
const code = (text: string): string => (text === '' ? '' : `\`${text}\``);

/** The table as Markdown, one row per setting (for the docs' flag tables). */
export function renderMarkdown(table: SettingsTable): string {
  const rows = Object.values(table).map((s) => {
    const flag = s.flag === undefined ? '' : code(spelling(s));
    const variables = s.variables.map(code).join(', ');
    return `| ${cell(flag)} | ${cell(variables)} | ${cell(s.defaultText)} | ${cell(s.description)} |`;
  });
  return ['| Flag | Variable | Default | Description |', '|---|---|---|---|', ...rows, ''].join('\n');
}

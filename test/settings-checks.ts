/**
 * Checks that a program's settings table (core/settings.ts) is the one source of its parser and
 * its `--help`, shared by each program's help test: the help lists every setting with its names
 * and default, the parser reads every name the table declares, and the sources read no
 * `KUBEDAG_*` variable the table does not declare.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SettingsTable } from '../core/settings.ts';

const root = join(import.meta.dirname, '..');

export interface Ran {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `node <file> ...args` from the repository, as a person would start it. */
export function runProgram(file: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Ran {
  const ran = spawnSync(process.execPath, [join(root, file), ...args], {
    cwd: root,
    encoding: 'utf8',
    env,
    timeout: 30_000,
  });
  return { status: ran.status, stdout: ran.stdout, stderr: ran.stderr };
}

const flat = (text: string): string => text.replace(/\s+/g, ' ');

/** What the help text leaves out: each setting's flag, variables, default and description, read across line breaks. */
export function helpGaps(help: string, table: SettingsTable): string[] {
  const text = flat(help);
  return Object.entries(table).flatMap(([key, s]) => {
    const wanted = [
      ...(s.flag === undefined ? [] : [`--${s.flag}`]),
      ...s.variables,
      `default: ${s.defaultText}`,
      flat(s.description),
    ];
    return wanted.filter((part) => !text.includes(part)).map((part) => `${key}: ${part}`);
  });
}

/**
 * The flags and variables of the table that `parse` ignores: each name is given an unlikely
 * value alone, and the parse must either refuse it with a message naming the setting (or its
 * name) or come out different from the parse of nothing.
 */
export function ignoredNames(
  table: SettingsTable,
  parse: (argv: readonly string[], env: NodeJS.ProcessEnv) => unknown,
): string[] {
  const nothing = JSON.stringify(parse([], {}));
  const value = 'x-unlikely-value';
  return Object.values(table).flatMap((s) => {
    const tries: [string, readonly string[], NodeJS.ProcessEnv][] = [
      ...(s.flag === undefined
        ? []
        : [
            [`--${s.flag}`, s.isSwitch ? [`--${s.flag}`] : [`--${s.flag}=${value}`], {}] as [
              string,
              readonly string[],
              NodeJS.ProcessEnv,
            ],
          ]),
      ...s.variables.map((v): [string, readonly string[], NodeJS.ProcessEnv] => [
        v,
        [],
        { [v]: s.isSwitch ? '1' : value },
      ]),
    ];
    return tries.flatMap(([name, argv, env]) => {
      try {
        return JSON.stringify(parse(argv, env)) === nothing ? [name] : [];
      } catch (error) {
        const message = (error as Error).message;
        return message.includes(s.name) || message.includes(name)
          ? []
          : [`${name} (refused without naming it: ${message})`];
      }
    });
  });
}

/** `KUBEDAG_*` names in the sources that the table does not declare (names of the sources' own tables aside). */
export function undeclaredVariables(
  files: readonly string[],
  table: SettingsTable,
  also: readonly string[] = [],
): string[] {
  const declared = new Set([...Object.values(table).flatMap((s) => s.variables), ...also]);
  const found = files.flatMap(
    (file) => readFileSync(join(root, file), 'utf8').match(/\bKUBEDAG_[A-Z0-9_]*[A-Z0-9]\b/g) ?? [],
  );
  return [...new Set(found)].filter((name) => !declared.has(name));
}

/**
 * The settings whose default, given as a flag, parses differently from giving nothing: the
 * default the help shows is not the one the parser uses. Only defaults that are plain values.
 */
export function defaultsUnlikeHelp(
  table: SettingsTable,
  parse: (argv: readonly string[], env: NodeJS.ProcessEnv) => unknown,
): string[] {
  const nothing = JSON.stringify(parse([], {}));
  return Object.values(table).flatMap((s) => {
    const plain = typeof s.default === 'string' || typeof s.default === 'number' || typeof s.default === 'boolean';
    if (!plain || s.default === '' || s.flag === undefined || s.isSwitch) return [];
    return JSON.stringify(parse([`--${s.flag}=${String(s.default)}`], {})) === nothing ? [] : [s.flag];
  });
}

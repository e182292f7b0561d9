import { describe, expect, it } from 'vitest';
import { ignoredNames } from '../test/settings-checks.ts';
import { renderHelp, renderMarkdown, wrap } from './settings-help.ts';
import {
  helpWanted,
  parseFlags,
  parseSettings,
  resolveSettings,
  setting,
  settingLabel,
  type FlagValues,
} from './settings.ts';

const count = (text: string, s: { name: string }): number => {
  const value = Number(text);
  if (!Number.isInteger(value)) throw new Error(`${s.name} must be a whole number, not "${text}"`);
  return value;
};

const TABLE = {
  workers: setting({ flag: 'workers', value: 'N', default: 8, description: 'Runs reconciled at once.', read: count }),
  kubeconfig: setting<string | undefined>({
    flag: 'kubeconfig',
    variables: ['KUBEDAG_KUBECONFIG', 'KUBECONFIG'],
    value: 'PATH',
    default: undefined,
    defaultText: 'in-cluster',
    description: 'The kubeconfig file.',
    read: (text) => text,
  }),
  quiet: setting({
    flag: 'quiet',
    variables: ['KUBEDAG_QUIET'],
    isSwitch: true,
    default: false,
    description: 'Less output.',
    read: (text) => text === '1',
  }),
  token: setting<string | undefined>({
    variables: ['KUBEDAG_TOKEN'],
    default: undefined,
    description: 'A credential, never a flag.',
    read: (text) => text,
  }),
  namespace: setting<string | undefined>({
    flag: 'namespace',
    short: 'n',
    variables: [],
    value: 'NS',
    default: undefined,
    description: 'A flag without a variable.',
    read: (text) => text,
  }),
};

describe('reading a table of settings', () => {
  const cases: { name: string; flags?: FlagValues; env?: Record<string, string>; want: Record<string, unknown> }[] = [
    {
      name: 'the defaults apply when nothing is given',
      want: { workers: 8, kubeconfig: undefined, quiet: false, token: undefined, namespace: undefined },
    },
    {
      name: 'a flag wins over its variable',
      flags: { workers: '2' },
      env: { KUBEDAG_WORKERS: '3' },
      want: { workers: 2 },
    },
    {
      name: 'the variable is named after the flag unless the table says otherwise',
      env: { KUBEDAG_WORKERS: '3' },
      want: { workers: 3 },
    },
    {
      name: 'the first variable set wins over the later ones',
      env: { KUBEDAG_KUBECONFIG: '/a', KUBECONFIG: '/b' },
      want: { kubeconfig: '/a' },
    },
    {
      name: 'a later variable applies when the first is not set',
      env: { KUBECONFIG: '/b' },
      want: { kubeconfig: '/b' },
    },
    {
      name: 'an empty value counts as unset, so the next one or the default applies',
      flags: { workers: '', kubeconfig: '' },
      env: { KUBEDAG_KUBECONFIG: '', KUBECONFIG: '/b' },
      want: { workers: 8, kubeconfig: '/b' },
    },
    {
      name: 'a switch given as a flag is taken as is, even false',
      flags: { quiet: false },
      env: { KUBEDAG_QUIET: '1' },
      want: { quiet: false },
    },
    { name: 'a switch reads its variable as text', env: { KUBEDAG_QUIET: '1' }, want: { quiet: true } },
    { name: 'a setting without a flag is read from its variable', env: { KUBEDAG_TOKEN: 't' }, want: { token: 't' } },
    {
      name: 'a flag without a variable ignores the environment',
      env: { KUBEDAG_NAMESPACE: 'x' },
      want: { namespace: undefined },
    },
  ];
  it.each(cases)('$name', ({ flags, env, want }) => {
    expect(resolveSettings(TABLE, flags ?? {}, env ?? {})).toMatchObject(want);
  });

  it('refuses a wrong value with the message of its reader, naming the flag', () => {
    expect(() => parseSettings(TABLE, ['--workers=many'], {})).toThrow('workers must be a whole number, not "many"');
  });

  it.each([
    { name: 'an unknown flag', argv: ['--bogus'], message: "Unknown option '--bogus' (--help lists the settings)" },
    {
      name: 'a flag without its value',
      argv: ['--workers'],
      message: "Option '--workers <value>' argument missing (--help lists the settings)",
    },
    {
      name: 'an argument where none is taken',
      argv: ['extra'],
      message: "Unexpected argument 'extra' (--help lists the settings)",
    },
  ])('refuses $name and points at --help', ({ argv, message }) => {
    expect(() => parseSettings(TABLE, argv, {})).toThrow(message);
  });

  it('takes a short flag and --help as flags', () => {
    expect(parseFlags(TABLE, ['-n', 'jobs', '-h', 'file'], true)).toEqual({
      values: { namespace: 'jobs', help: true },
      positionals: ['file'],
    });
  });

  it('names where to change a setting', () => {
    expect(settingLabel(TABLE.kubeconfig)).toBe('--kubeconfig or KUBEDAG_KUBECONFIG or KUBECONFIG');
  });
});

describe('asking for help', () => {
  it.each([
    { argv: ['--help'], want: true },
    { argv: ['--workers=bad', '-h'], want: true },
    { argv: ['--', '--help'], want: false },
    { argv: ['--lease-name=--help'], want: false },
    { argv: [], want: false },
  ])('$argv: $want', ({ argv, want }) => {
    expect(helpWanted(argv)).toBe(want);
  });
});

describe('the help text', () => {
  const help = renderHelp({ usage: 'prog [--flag=value ...]', about: 'A program.', settings: TABLE });

  it('lists every setting with its names and default', () => {
    expect(help).toContain('  --workers=N (KUBEDAG_WORKERS; default: 8)\n      Runs reconciled at once.\n');
    expect(help).toContain('  --kubeconfig=PATH (KUBEDAG_KUBECONFIG or KUBECONFIG; default: in-cluster)\n');
    expect(help).toContain('  --quiet (KUBEDAG_QUIET; default: false)\n');
    expect(help).toContain('  KUBEDAG_TOKEN=TEXT (default: none)\n');
    expect(help).toContain('  -n, --namespace=NS (default: none)\n');
  });

  it('starts with the usage and ends with --help', () => {
    expect(help.startsWith('Usage: prog [--flag=value ...]\n\nA program.\n')).toBe(true);
    expect(help.endsWith('  -h, --help  (print this help and exit)\n')).toBe(true);
  });

  it('keeps every line within its width, going on indented further', () => {
    const long = {
      s: setting({
        flag: 'long',
        value: 'VALUE',
        default: 'a-rather-long-default-value',
        description: 'word '.repeat(40),
        read: (text) => text,
      }),
    };
    const lines = renderHelp({ usage: 'prog', settings: long }, 40).split('\n');
    expect(lines.filter((line) => line.length > 40)).toEqual([]);
    expect(lines.filter((line) => line.startsWith('    ') && !line.startsWith('      '))).not.toEqual([]);
  });

  it('says Options for flags without variables and Variables for variables without flags', () => {
    expect(renderHelp({ usage: 'p', settings: { namespace: TABLE.namespace } })).toContain('\nOptions:\n');
    expect(renderHelp({ usage: 'p', settings: { token: TABLE.token } })).toContain(
      '\nVariables (an empty value counts as unset):\n',
    );
  });

  it('puts grouped settings under their headings, in the order of the table', () => {
    const grouped = {
      a: setting({ flag: 'a', group: 'First', default: 1, description: 'A.', read: count }),
      b: setting({ flag: 'b', group: 'Second', default: 2, description: 'B.', read: count }),
    };
    expect(renderHelp({ usage: 'p', settings: grouped })).toMatch(/\nFirst:\n {2}--a=TEXT[^]*\nSecond:\n {2}--b=TEXT/);
  });

  it('wraps words, never splitting one', () => {
    expect(wrap('one two three four', '> ', 12, '. ')).toEqual(['> one two', '. three four']);
  });
});

describe('the Markdown table', () => {
  it('has a row per setting with its flag, variables, default and description', () => {
    expect(renderMarkdown(TABLE).split('\n')).toEqual([
      '| Flag | Variable | Default | Description |',
      '|---|---|---|---|',
      '| `--workers=N` | `KUBEDAG_WORKERS` | 8 | Runs reconciled at once. |',
      '| `--kubeconfig=PATH` | `KUBEDAG_KUBECONFIG`, `KUBECONFIG` | in-cluster | The kubeconfig file. |',
      '| `--quiet` | `KUBEDAG_QUIET` | false | Less output. |',
      '|  | `KUBEDAG_TOKEN` | none | A credential, never a flag. |',
      '| `-n, --namespace=NS` |  | none | A flag without a variable. |',
      '',
    ]);
  });
});

describe('the check that a parser reads its whole table', () => {
  it('names every flag and variable of a parser that reads none of them', () => {
    expect(ignoredNames(TABLE, () => ({}))).toEqual([
      '--workers',
      'KUBEDAG_WORKERS',
      '--kubeconfig',
      'KUBEDAG_KUBECONFIG',
      'KUBECONFIG',
      '--quiet',
      'KUBEDAG_QUIET',
      'KUBEDAG_TOKEN',
      '--namespace',
    ]);
  });

  it('passes a parser built on the table', () => {
    expect(ignoredNames(TABLE, (argv, env) => parseSettings(TABLE, argv, env))).toEqual([]);
  });
});

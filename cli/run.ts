import { dagJsonSchema } from '../core/dag/index.ts';
import type { Dialect } from '../core/dag/dialect.ts';
import { isPolicyLevel, POLICY_LEVELS, type PolicyLevel } from '../core/policy/pod-standards.ts';
import { renderHelp } from '../core/settings-help.ts';
import { parseFlags, resolveSettings, setting } from '../core/settings.ts';
import { EXIT } from './exit.ts';
import type { CliIo } from './io.ts';
import { convertCommand } from './convert.ts';
import { renderCommand } from './render.ts';
import { validateCommand } from './validate.ts';

const DIALECTS: readonly Dialect[] = ['1.x', '2.x'];

/** The options, declared once: parsed from here and listed by `--help` (core/settings.ts). */
export const CLI_OPTIONS = {
  json: setting({
    flag: 'json',
    variables: [],
    isSwitch: true,
    default: false,
    description:
      'Print one JSON array with an object per file, in input order (the POST /dags/validate shape plus file).',
    read: () => true,
  }),
  policy: setting<PolicyLevel | undefined>({
    flag: 'policy',
    variables: [],
    values: POLICY_LEVELS,
    default: undefined,
    defaultText: 'none: the DAG language only',
    description:
      "Also check each DAG against this pod policy level, as the operator does in a namespace of that level (docs/pod-policy.md); service accounts are not checked (the namespace's allowed ones are in the cluster).",
    read: (text, s) => {
      if (isPolicyLevel(text)) return text;
      throw new Error(`--${s.name} must be one of ${POLICY_LEVELS.join(', ')}, not "${text}"`);
    },
  }),
  namespace: setting<string | undefined>({
    flag: 'namespace',
    short: 'n',
    variables: [],
    value: 'NS',
    default: undefined,
    defaultText: "none: kubectl's namespace applies",
    description: 'The metadata.namespace of every resource.',
    read: (text) => text,
  }),
  to: setting<Dialect | undefined>({
    flag: 'to',
    variables: [],
    values: DIALECTS,
    default: undefined,
    defaultText: "the other dialect than the file's",
    description: "The dialect of Dagu's format that convert writes: 1.x (camelCase keys) or 2.x (snake_case keys).",
    read: (text, s) => {
      const dialect = DIALECTS.find((d) => d === text);
      if (dialect !== undefined) return dialect;
      throw new Error(`--${s.name} must be one of ${DIALECTS.join(', ')}, not "${text}"`);
    },
  }),
  lossy: setting({
    flag: 'lossy',
    variables: [],
    isSwitch: true,
    default: false,
    description:
      'Write the conversion even when something has no form in the target dialect (it is left out, and listed on stderr).',
    read: () => true,
  }),
};

type Option = keyof typeof CLI_OPTIONS;

/** The commands, in the order help lists them, with the options each takes. */
export const CLI_COMMANDS: readonly {
  readonly name: string;
  readonly args: string;
  readonly summary: string;
  readonly options: readonly Option[];
}[] = [
  {
    name: 'validate',
    args: '[--json] [--policy LEVEL] FILE...',
    summary: 'check DAG files; exit 0 valid, 1 invalid, 2 usage/read error',
    options: ['json', 'policy'],
  },
  {
    name: 'render',
    args: '[--namespace NS] FILE...',
    summary: 'print DAG resource manifests for kubectl and GitOps',
    options: ['namespace'],
  },
  {
    name: 'convert',
    args: '[--to 1.x|2.x] [--lossy] FILE',
    summary:
      "print a DAG file rewritten in the other dialect of Dagu's format; exit 1 when something cannot be carried over",
    options: ['to', 'lossy'],
  },
  { name: 'schema', args: '', summary: 'print the JSON Schema of the DAG file format', options: [] },
];

export const USAGE = renderHelp({
  usage: 'kubedag <command> [options]',
  commands: CLI_COMMANDS.map((c) => ({ name: `${c.name} ${c.args}`.trim(), summary: c.summary })),
  settings: CLI_OPTIONS,
  notes: ['`kubedag <command> --help` shows one command.'],
});

/** `kubedag <command> --help`: its usage and the options it takes. */
export function commandUsage(command: (typeof CLI_COMMANDS)[number]): string {
  const options = Object.fromEntries(command.options.map((name) => [name, CLI_OPTIONS[name]]));
  return renderHelp({
    usage: `kubedag ${command.name} ${command.args}`.trim(),
    about: `${command.summary.charAt(0).toUpperCase()}${command.summary.slice(1)}.`,
    settings: options,
  });
}

/** Runs one CLI invocation and returns its exit code; all I/O goes through `io`. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    (command === undefined ? io.stderr : io.stdout)(USAGE);
    return command === undefined ? EXIT.usage : EXIT.ok;
  }
  let parsed;
  let options;
  try {
    parsed = parseFlags(CLI_OPTIONS, rest, true);
    options = resolveSettings(CLI_OPTIONS, parsed.values, {});
  } catch (error) {
    return usage(io, (error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    const known = CLI_COMMANDS.find((c) => c.name === command);
    io.stdout(known === undefined ? USAGE : commandUsage(known));
    return EXIT.ok;
  }
  // Given at all, even as its default: a command that takes no such option says so.
  const given = {
    json: values.json !== undefined,
    namespace: values.namespace !== undefined,
    policy: values.policy !== undefined,
    to: values.to !== undefined,
    lossy: values.lossy !== undefined,
  };
  const route = command === 'convert' || given.to || given.lossy ? dispatchConvert : dispatch;
  return route(command, { ...options, given, files: positionals }, io);
}

interface Invocation {
  readonly json: boolean;
  readonly namespace: string | undefined;
  readonly policy: PolicyLevel | undefined;
  readonly to: Dialect | undefined;
  readonly lossy: boolean;
  readonly given: Readonly<Record<Option, boolean>>;
  readonly files: readonly string[];
}

/** Options given that a command does not take: the first is a usage error. */
function stray(args: Invocation, takes: readonly Option[]): Option | undefined {
  return (Object.keys(args.given) as Option[]).find((option) => args.given[option] && !takes.includes(option));
}

/** `convert`, and the options only it takes given to another command. */
async function dispatchConvert(command: string, args: Invocation, io: CliIo): Promise<number> {
  const known = CLI_COMMANDS.find((c) => c.name === command);
  const extra = known === undefined ? undefined : stray(args, known.options);
  if (extra !== undefined) return usage(io, `${command} takes no --${extra}`);
  if (command !== 'convert')
    return dispatch(command, { ...args, given: { ...args.given, to: false, lossy: false } }, io);
  const [file, ...more] = args.files;
  return file === undefined || more.length > 0
    ? usage(io, 'convert needs exactly one FILE')
    : convertCommand(file, args.to, args.lossy, io);
}

async function dispatch(command: string, args: Invocation, io: CliIo): Promise<number> {
  switch (command) {
    case 'validate':
      if (args.given.namespace) return usage(io, 'validate takes no --namespace');
      return args.files.length === 0
        ? usage(io, 'validate needs at least one FILE')
        : validateCommand(args.files, args.json, io, args.policy);
    case 'render':
      if (args.given.json || args.given.policy)
        return usage(io, `render takes no --${args.given.json ? 'json' : 'policy'}`);
      return args.files.length === 0
        ? usage(io, 'render needs at least one FILE')
        : renderCommand(args.files, args.namespace, io);
    case 'schema':
      if (args.files.length > 0 || args.given.json || args.given.namespace || args.given.policy)
        return usage(io, 'schema takes no arguments');
      io.stdout(`${JSON.stringify(dagJsonSchema(), null, 2)}\n`);
      return EXIT.ok;
    default:
      return usage(io, `unknown command "${command}"`);
  }
}

function usage(io: CliIo, message: string): number {
  io.stderr(`kubedag: ${message}\n\n${USAGE}`);
  return EXIT.usage;
}

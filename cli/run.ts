import { parseArgs } from 'node:util';
import { dagJsonSchema } from '../core/dag/index.ts';
import { EXIT } from './exit.ts';
import type { CliIo } from './io.ts';
import { renderCommand } from './render.ts';
import { validateCommand } from './validate.ts';

export const USAGE = `Usage: kubedag <command> [options]

Commands:
  validate [--json] FILE...        check DAG files; exit 0 valid, 1 invalid, 2 usage/read error
  render [--namespace NS] FILE...  print DAG resource manifests for kubectl and GitOps
  schema                           print the JSON Schema of the DAG file format

Options:
  -h, --help                       show this help
`;

/** Runs one CLI invocation and returns its exit code; all I/O goes through `io`. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    (command === undefined ? io.stderr : io.stdout)(USAGE);
    return command === undefined ? EXIT.usage : EXIT.ok;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: [...rest],
      allowPositionals: true,
      options: { json: { type: 'boolean' }, namespace: { type: 'string', short: 'n' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    });
  } catch (error) {
    return usage(io, (error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    io.stdout(USAGE);
    return EXIT.ok;
  }
  return dispatch(command, { json: values.json, namespace: values.namespace, files: positionals }, io);
}

interface Invocation {
  readonly json: boolean | undefined;
  readonly namespace: string | undefined;
  readonly files: readonly string[];
}

async function dispatch(command: string, args: Invocation, io: CliIo): Promise<number> {
  switch (command) {
    case 'validate':
      if (args.namespace !== undefined) return usage(io, 'validate takes no --namespace');
      return args.files.length === 0 ? usage(io, 'validate needs at least one FILE') : validateCommand(args.files, args.json === true, io);
    case 'render':
      if (args.json !== undefined) return usage(io, 'render takes no --json');
      return args.files.length === 0 ? usage(io, 'render needs at least one FILE') : renderCommand(args.files, args.namespace, io);
    case 'schema':
      if (args.files.length > 0 || args.json !== undefined || args.namespace !== undefined) return usage(io, 'schema takes no arguments');
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

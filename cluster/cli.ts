/**
 * `make cluster-build | cluster-up | cluster-down | dev`: the local control plane for
 * developers. State lives in a stack directory (cluster/stack.ts): `.dev/` (git-ignored), or
 * the one `--dir` or `KUBEDAG_DEV_DIR` names, so that several stacks run side by side.
 */
import { join } from 'node:path';
import { renderHelp, type HelpPage } from '../core/settings-help.ts';
import { helpWanted, parseFlags, setting } from '../core/settings.ts';
import { CACHE_SETTINGS, ensureBinaries } from './binaries.ts';
import { runDev } from './dev.ts';
import { devSettingsTable, parseDevSettings } from './dev-settings.ts';
import { down, up } from './stack.ts';
import { STEP_RUNNER_SETTINGS } from './step-runner.ts';

const root = join(import.meta.dirname, '..');
const say = (line: string): void => void process.stderr.write(`${line}\n`);

/** Every flag and variable of the cluster CLI, in the order help lists them (core/settings.ts). */
const SETTINGS = {
  ...devSettingsTable(root, process.cwd()),
  nodes: setting<string | undefined>({ flag: 'nodes', variables: [], value: 'name[:label=value;...],...', default: undefined, defaultText: 'kubedag-node-1, and kubedag-node-2 labelled gpu=true', description: 'The node agents to start (up, dev), each with its labels.', read: (text) => text }),
  ...CACHE_SETTINGS,
  ...STEP_RUNNER_SETTINGS,
};

const HELP: HelpPage = {
  usage: 'node cluster/cli.ts build|up|down|dev [--flag=value ...]   (make cluster-build, cluster-up, cluster-down, dev)',
  about: 'The local cluster for developers: a real control plane on loopback and TypeScript node agents. State lives in the stack directory, so several stacks run side by side.',
  commands: [
    { name: 'build', summary: 'build the pinned binaries (etcd, Kubernetes, helm) from their Go modules into the cache' },
    { name: 'up', summary: 'start the control plane and node agents of the stack and leave them running' },
    { name: 'down', summary: "stop the stack's cluster" },
    { name: 'dev', summary: 'up, then the operator and API server from the sources, until Ctrl-C' },
  ],
  settings: SETTINGS,
};

async function main(argv: readonly string[]): Promise<number> {
  if (helpWanted(argv) || argv[0] === 'help') {
    process.stdout.write(renderHelp(HELP));
    return 0;
  }
  const { positionals, values } = parseFlags(SETTINGS, argv, true);
  const settings = parseDevSettings(values, process.env, root, process.cwd());
  const nodes = typeof values.nodes === 'string' ? values.nodes : undefined;
  const commands: Record<string, () => Promise<number>> = {
    build: async () => {
      const started = Date.now();
      const binaries = await ensureBinaries({ log: say });
      say(`binaries ready in ${((Date.now() - started) / 1000).toFixed(1)} s:`);
      for (const [name, path] of Object.entries(binaries)) say(`  ${name}: ${path}`);
      return 0;
    },
    up: async () => {
      await up(settings.dir, { log: say, ...(nodes === undefined ? {} : { nodes }) });
      say(`  export KUBECONFIG=${join(settings.dir, 'kubeconfig')} PATH=${join(settings.dir, 'bin')}:$PATH`);
      return 0;
    },
    down: async () => {
      await down(settings.dir, say);
      return 0;
    },
    dev: () => runDev(settings, nodes, say),
  };
  const run = commands[positionals[0] ?? ''];
  if (run === undefined) {
    say(`usage: ${HELP.usage}   (--help says more)`);
    return 2;
  }
  return run();
}

process.exit(
  await main(process.argv.slice(2)).catch((error: unknown) => {
    say(`error: ${(error as Error).message}`);
    return 1;
  }),
);

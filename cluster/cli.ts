/**
 * `make cluster-build | cluster-up | cluster-down | dev`: the local control plane for
 * developers. State lives in a stack directory (cluster/stack.ts): `.dev/` (git-ignored), or
 * the one `--dir` or `KUBEDAG_DEV_DIR` names, so that several stacks run side by side.
 */
import { join } from 'node:path';
import { renderHelp } from '../core/settings-help.ts';
import { helpWanted, parseFlags, resolveSettings } from '../core/settings.ts';
import { ensureBinaries } from './binaries.ts';
import { clusterHelp, clusterSettings } from './cli-settings.ts';
import { runDev } from './dev.ts';
import { parseDevSettings } from './dev-settings.ts';
import { down, up } from './stack.ts';
import { buildRealNode } from './real-node/cluster.ts';

const root = join(import.meta.dirname, '..');
const say = (line: string): void => void process.stderr.write(`${line}\n`);
const SETTINGS = clusterSettings(process.cwd());
const HELP = clusterHelp(SETTINGS);

async function main(argv: readonly string[]): Promise<number> {
  if (helpWanted(argv) || argv[0] === 'help') {
    process.stdout.write(renderHelp(HELP));
    return 0;
  }
  const { positionals, values } = parseFlags(SETTINGS, argv, true);
  const settings = parseDevSettings(values, process.env, root, process.cwd());
  const nodes = typeof values.nodes === 'string' ? values.nodes : undefined;
  const { realNode } = resolveSettings({ realNode: SETTINGS.realNode }, values, process.env);
  const commands: Record<string, () => Promise<number>> = {
    build: async () => {
      const started = Date.now();
      const binaries = await ensureBinaries({ log: say });
      say(`binaries ready in ${((Date.now() - started) / 1000).toFixed(1)} s:`);
      for (const [name, path] of Object.entries(binaries)) say(`  ${name}: ${path}`);
      if (realNode) await buildRealNode(say);
      return 0;
    },
    up: async () => {
      await up(settings.dir, { log: say, realNode, ...(nodes === undefined ? {} : { nodes }) });
      say(`  export KUBECONFIG=${join(settings.dir, 'kubeconfig')} PATH=${join(settings.dir, 'bin')}:$PATH`);
      return 0;
    },
    down: async () => {
      await down(settings.dir, say);
      return 0;
    },
    dev: () => runDev(settings, nodes, say, realNode),
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

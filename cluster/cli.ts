/**
 * `make cluster-build | cluster-up | cluster-down | dev`: the local control plane for
 * developers. State lives in a stack directory (cluster/stack.ts): `.dev/` (git-ignored), or
 * the one `--dir` or `KUBEDAG_DEV_DIR` names, so that several stacks run side by side.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBinaries } from './binaries.ts';
import { runDev } from './dev.ts';
import { parseDevSettings } from './dev-settings.ts';
import { down, up } from './stack.ts';

const root = join(import.meta.dirname, '..');
const say = (line: string): void => void process.stderr.write(`${line}\n`);
const usage = 'usage: node cluster/cli.ts build|up|down|dev [--nodes=name[:label=value;...],...] [--dir=DIR] [--api-port=N] [--operator-port=N] [--quiet]';

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { nodes: { type: 'string' }, dir: { type: 'string' }, 'api-port': { type: 'string' }, 'operator-port': { type: 'string' }, quiet: { type: 'boolean' } },
  });
  const settings = parseDevSettings(values, process.env, root, process.cwd());
  const commands: Record<string, () => Promise<number>> = {
    build: async () => {
      const started = Date.now();
      const binaries = await ensureBinaries({ log: say });
      say(`binaries ready in ${((Date.now() - started) / 1000).toFixed(1)} s:`);
      for (const [name, path] of Object.entries(binaries)) say(`  ${name}: ${path}`);
      return 0;
    },
    up: async () => {
      await up(settings.dir, { log: say, ...(values.nodes === undefined ? {} : { nodes: values.nodes }) });
      say(`  export KUBECONFIG=${join(settings.dir, 'kubeconfig')} PATH=${join(settings.dir, 'bin')}:$PATH`);
      return 0;
    },
    down: async () => {
      await down(settings.dir, say);
      return 0;
    },
    dev: () => runDev(settings, values.nodes, say),
  };
  const run = commands[positionals[0] ?? ''];
  if (run === undefined) {
    say(usage);
    return 2;
  }
  return run();
}

process.exit(
  await main().catch((error: unknown) => {
    say(`error: ${(error as Error).message}`);
    return 1;
  }),
);

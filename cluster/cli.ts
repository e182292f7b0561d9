/**
 * `make cluster-build | cluster-up | cluster-down | dev`: the local control plane for
 * developers. State lives in `.dev/` (git-ignored): `.dev/cluster/` for the processes,
 * `.dev/kubeconfig` (admin) and `.dev/bin/{kubectl,helm}`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBinaries } from './binaries.ts';
import { startCluster, stopCluster, DEFAULT_NODES, parseNodes } from './cluster.ts';
import { isRunning, readState } from './controlplane.ts';
import { isAlive } from './processes.ts';
import { pkiPaths } from './pki.ts';

const root = join(import.meta.dirname, '..');
const devDir = join(root, '.dev');
const clusterDir = join(devDir, 'cluster');
const say = (line: string): void => void process.stderr.write(`${line}\n`);

async function up(nodes: string | undefined): Promise<void> {
  const started = Date.now();
  const existing = await readState(clusterDir);
  if (existing !== undefined && (await isRunning(existing, pkiPaths(join(clusterDir, 'pki'))))) {
    say(`cluster already running at ${existing.server} (kubeconfig: .dev/kubeconfig)`);
    return;
  }
  if (existing !== undefined) await stopCluster(existing);
  const binaries = await ensureBinaries({ log: say });
  // Node agent logs (.dev/cluster/logs) are read by people here: readable lines, not JSON.
  const state = await startCluster({ dir: clusterDir, binaries, nodes: nodes === undefined ? DEFAULT_NODES : parseNodes(nodes), nodeAgentLogFormat: 'pretty', log: say });
  await copyFile(state.kubeconfig, join(devDir, 'kubeconfig'));
  await mkdir(join(devDir, 'bin'), { recursive: true });
  for (const [name, target] of [['kubectl', binaries.kubectl], ['helm', binaries.helm]] as const) {
    await rm(join(devDir, 'bin', name), { force: true });
    await symlink(target, join(devDir, 'bin', name));
  }
  say(`cluster up in ${((Date.now() - started) / 1000).toFixed(1)} s: ${state.server}, nodes ${state.nodes.map((n) => n.name).join(', ')}`);
  say('  export KUBECONFIG=$PWD/.dev/kubeconfig PATH=$PWD/.dev/bin:$PATH');
}

async function down(): Promise<void> {
  const state = await readState(clusterDir);
  if (state === undefined) {
    say('no cluster is running');
    return;
  }
  await stopCluster(state);
  await rm(clusterDir, { recursive: true, force: true });
  await rm(join(devDir, 'kubeconfig'), { force: true });
  say('cluster stopped');
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve();
      return;
    }
    child.once('exit', () => {
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function dev(nodes: string | undefined): Promise<void> {
  await up(nodes);
  // The operator runs in the foreground with its logs here; step logs go to .dev/logs.
  const operator = spawn(process.execPath, [join(root, 'operator/main.ts'), `--kubeconfig=${join(devDir, 'kubeconfig')}`, `--log-dir=${join(devDir, 'logs')}`, '--lease-duration-seconds=5', '--log-format=pretty'], { stdio: 'inherit' });
  // The API server serves the kubeconfig's namespace ("default") on KUBEDAG_API_PORT (8080).
  const api = spawn(process.execPath, [join(root, 'apiserver/main.ts'), `--kubeconfig=${join(devDir, 'kubeconfig')}`, '--operator-url=http://127.0.0.1:8081', '--log-format=pretty'], { stdio: 'inherit' });
  const base = `http://127.0.0.1:${process.env.KUBEDAG_API_PORT ?? '8080'}`;
  say(`running the control plane, the operator and the API server (${base}/api/v2); Ctrl-C stops everything`);
  say(`the web UI: ${base}/`);
  // The cluster's processes are detached, so something must keep this one alive: a watch that
  // also says when a component has died.
  const watch = setInterval(() => {
    void readState(clusterDir).then((state) => {
      const dead = state?.processes.filter((p) => !isAlive(p.pid)).map((p) => p.name) ?? [];
      if (dead.length > 0) say(`warning: not running any more: ${dead.join(', ')} (logs in .dev/cluster/logs)`);
    });
  }, 10_000);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  clearInterval(watch);
  await Promise.all([operator, api].map((child) => stopChild(child)));
  await down();
}

const { positionals, values } = parseArgs({ allowPositionals: true, options: { nodes: { type: 'string' } } });
const command = positionals[0];
const commands: Record<string, () => Promise<void>> = {
  build: async () => {
    const started = Date.now();
    const binaries = await ensureBinaries({ log: say });
    say(`binaries ready in ${((Date.now() - started) / 1000).toFixed(1)} s:`);
    for (const [name, path] of Object.entries(binaries)) say(`  ${name}: ${path}`);
  },
  up: () => up(values.nodes),
  down,
  dev: () => dev(values.nodes),
};
const run = commands[command ?? ''];
if (run === undefined) {
  say('usage: node cluster/cli.ts build|up|down|dev [--nodes=name[:label=value;...],...]');
  process.exit(2);
}
await run().catch((error: unknown) => {
  say(`error: ${(error as Error).message}`);
  process.exit(1);
});

/**
 * `make dev`: a stack's cluster, operator and API server in the foreground, until Ctrl-C.
 * Each component writes its whole log to a file in the stack's directory; the console shows
 * the operator's and API server's lines too (unless quiet), where each component listens once
 * all are ready, and one line for any component that ends on its own (cluster/dev-report.ts);
 * the operator and API server are then started again with backoff (cluster/dev-component.ts).
 * Several stacks run side by side, each in its own directory (cluster/dev-settings.ts).
 */
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { readState, type ClusterState } from './controlplane.ts';
import { DevComponent, readTail } from './dev-component.ts';
import { endingReport, lastMeaningfulLine } from './dev-report.ts';
import { STEP_IMAGE } from './real-node/images.ts';
import { choosePort, devProgramArgs, type DevSettings, type PortChoice } from './dev-settings.ts';
import { freePort, isAlive, waitFor, type Managed } from './processes.ts';
import { chartStepExecRole } from './step-exec-role.ts';
import { clusterDir, down, forgetDevState, readDevState, stopLeftovers, up, writeDevState } from './stack.ts';

const READY_TIMEOUT_MS = 180_000;

/** True when nothing listens on `port` on any address. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => {
      resolve(false);
    });
    server.listen(port, () => {
      server.close(() => {
        resolve(true);
      });
    });
  });
}

async function pickPort(choice: PortChoice): Promise<number> {
  return choosePort(choice, 'preferred' in choice && (await portIsFree(choice.preferred)), await freePort());
}

/** What one `make dev` run keeps: its components, and whether it is stopping (ends then are expected). */
class DevRun {
  stopping = false;
  /** Processes of the cluster whose end has been told, so that it is told once. */
  readonly heard = new Set<number>();
  readonly components: DevComponent[] = [];
  private readonly settings: DevSettings;
  private readonly say: (line: string) => void;
  /** Writes dev.json again with the components' live process ids. */
  onRestart: () => void = () => undefined;

  constructor(settings: DevSettings, say: (line: string) => void) {
    this.settings = settings;
    this.say = say;
  }

  /** One line about a cluster process that ended on its own, with its log's last meaningful line. */
  report(name: string, code: number | null, signal: string | null, log: string): void {
    if (this.stopping) return;
    void readTail(log).then((text) => {
      const lastLine = lastMeaningfulLine(text);
      this.say(`✗ ${endingReport({ name, code, signal, log, ...(lastLine === undefined ? {} : { lastLine }) })}`);
    });
  }

  readonly onExit = (managed: Managed, code: number | null, signal: NodeJS.Signals | null): void => {
    this.heard.add(managed.pid);
    this.report(managed.name, code, signal, managed.log);
  };

  /** Runs `node <script>` as one of the stack's components (dev-component.ts). */
  supervise(name: string, script: string, args: readonly string[]): DevComponent {
    const component = new DevComponent({
      name,
      script,
      args,
      dir: this.settings.dir,
      quiet: this.settings.quiet,
      say: this.say,
      onRestart: () => {
        this.onRestart();
      },
    });
    this.components.push(component);
    return component;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.components.map((c) => c.stop()));
    await down(this.settings.dir, this.say);
    await forgetDevState(this.settings.dir);
  }
}

const signalled = (): Promise<string> =>
  new Promise<string>((resolve) => {
    for (const name of ['SIGINT', 'SIGTERM'] as const) {
      process.once(name, () => {
        process.stderr.write(`${name}: stopping the stack\n`);
        resolve(name);
      });
    }
  });

export async function runDev(
  settings: DevSettings,
  nodes: string | undefined,
  say: (line: string) => void,
  realNode = false,
): Promise<number> {
  const { dir } = settings;
  await mkdir(dir, { recursive: true });
  const held = await readDevState(dir);
  if (held !== undefined && isAlive(held.pid)) {
    throw new Error(
      `a make dev stack already runs in ${dir} (pid ${String(held.pid)}, API ${held.api}); start another in its own directory with KUBEDAG_DEV_DIR=<dir> (or --dir)`,
    );
  }
  await stopLeftovers(dir);
  const started = Date.now();
  const run = new DevRun(settings, say);
  const interrupted = signalled();
  const [apiPort, operatorPort] = [await pickPort(settings.apiPort), await pickPort(settings.operatorPort)];
  const cluster = await up(dir, { log: say, onExit: run.onExit, realNode, ...(nodes === undefined ? {} : { nodes }) });
  const kubeconfig = join(dir, 'kubeconfig');
  const base = `http://127.0.0.1:${String(apiPort)}`;
  const operatorBase = `http://127.0.0.1:${String(operatorPort)}`;
  // The exec role by the name the chart gives it, as the cluster has it (cluster/step-exec-role.ts).
  const execRole = chartStepExecRole().metadata?.name ?? '';
  const args = devProgramArgs({
    kubeconfig,
    logDir: join(dir, 'logs'),
    operatorPort,
    apiPort,
    execRole,
    ...(realNode ? { stepImage: STEP_IMAGE } : {}),
  });
  const operator = run.supervise('operator', 'operator/main.ts', args.operator);
  const api = run.supervise('apiserver', 'apiserver/main.ts', args.apiserver);
  const state = (): Parameters<typeof writeDevState>[1] => ({
    pid: process.pid,
    api: base,
    operator: operatorBase,
    kubeApiserver: cluster.server,
    kubeconfig,
    components: run.components.map((c) => ({ name: c.name, pid: c.pid, log: c.log })),
  });
  await writeDevState(dir, state());
  run.onRestart = () => void writeDevState(dir, state());
  const ready = waitFor(
    'the operator to lead and the API server to be healthy',
    async () => (await ok(`${operatorBase}/readyz`)) && ok(`${base}/api/v2/health`),
    READY_TIMEOUT_MS,
    250,
  ).then(() => 'ready');
  const early = Promise.race(run.components.map((c) => c.firstEnd.then(() => `${c.name} ended`)));
  const outcome = await Promise.race([ready, early, interrupted]).catch((error: unknown) => (error as Error).message);
  if (outcome !== 'ready') {
    const asked = outcome === 'SIGINT' || outcome === 'SIGTERM';
    if (!asked)
      say(
        `✗ the stack did not come up (${outcome}); stopping it. Logs: ${operator.log}, ${api.log}, ${join(clusterDir(dir), 'logs')}/`,
      );
    await run.stop();
    return asked ? 0 : 1;
  }
  // Up: from now on a component that ends is started again, as its Deployment's Pod would be.
  for (const component of run.components) component.keepRunning();
  say(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s: the API and web UI at ${base}/ (API ${base}/api/v2)`);
  for (const line of listening(cluster, { dir, operatorBase, base, operatorLog: operator.log, apiLog: api.log }))
    say(`  ${line}`);
  const watch = watchCluster(dir, run.heard, (name, code, signal, log) => {
    run.report(name, code, signal, log);
  });
  await interrupted;
  clearInterval(watch);
  await run.stop();
  return 0;
}

/** Where every component of the stack listens and logs: printed once it is ready. */
function listening(
  cluster: ClusterState,
  at: { dir: string; operatorBase: string; base: string; operatorLog: string; apiLog: string },
): string[] {
  const logs = join(clusterDir(at.dir), 'logs');
  const ports = cluster.ports;
  return [
    `API server          ${at.base}  (log: ${at.apiLog})`,
    `operator            ${at.operatorBase}  /healthz /readyz /metrics  (log: ${at.operatorLog})`,
    `kube-apiserver      ${cluster.server}  (logs of the control plane and node agents: ${logs})`,
    ...(ports === undefined
      ? []
      : [
          `etcd                127.0.0.1:${String(ports.etcdClient)} (peer ${String(ports.etcdPeer)}); controller-manager :${String(ports.controllerManager)}, scheduler :${String(ports.scheduler)}`,
        ]),
    `node agents         ${cluster.nodes.map((n) => `${n.name} :${String(n.port)}`).join(', ')}`,
    `step logs           ${join(at.dir, 'logs')}`,
    `export KUBECONFIG=${join(at.dir, 'kubeconfig')} PATH=${join(at.dir, 'bin')}:$PATH`,
    'Ctrl-C stops everything',
  ];
}

/**
 * The cluster's processes that this run did not start (a cluster `make cluster-up` left
 * running) are not its children: their end is noticed by looking, once per process.
 */
function watchCluster(
  dir: string,
  heard: Set<number>,
  report: (name: string, code: number | null, signal: string | null, log: string) => void,
): NodeJS.Timeout {
  return setInterval(() => {
    void readState(clusterDir(dir)).then((state) => {
      for (const p of state?.processes ?? []) {
        if (heard.has(p.pid) || isAlive(p.pid)) continue;
        heard.add(p.pid);
        report(p.name, null, null, p.log);
      }
    });
  }, 5000);
}

async function ok(url: string): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
  await response.body?.cancel();
  return response.ok;
}

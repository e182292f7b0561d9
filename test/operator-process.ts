/**
 * An operator as its own process (`node operator/main.ts`) against any cluster, watching one
 * namespace: what integration tests and the chaos runs start, stop, kill and restart. Free of
 * vitest, so that scripts outside a test run can use it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, signalAndWait, waitFor } from '../cluster/processes.ts';

const root = join(import.meta.dirname, '..');

export interface RunningOperator {
  readonly logDir: string;
  /** The internal HTTP endpoint: health, metrics, logs. */
  readonly url: string;
  readonly process: ChildProcess;
  readonly output: () => string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface OperatorLaunch {
  /** The cluster: the suite's, or a test's own control plane. */
  readonly kubeconfig: string;
  readonly namespace: string;
  /** Shared by replicas and restarts; a fresh directory when absent. */
  readonly logDir?: string;
  readonly extraArgs?: readonly string[];
  /** Resolve once it leads (default), or once it has started (a standby). */
  readonly waitToLead?: boolean;
  /** Added to this process's environment, such as the S3 log store's AWS credentials. */
  readonly env?: Readonly<Record<string, string>>;
}

export async function launchOperator(launch: OperatorLaunch): Promise<RunningOperator> {
  const { kubeconfig, namespace, extraArgs = [], waitToLead = true, env = {} } = launch;
  const dir = launch.logDir ?? (await mkdtemp(join(tmpdir(), 'kubedag-logs-')));
  const port = await freePort();
  // The S3 log store takes no directory (the operator refuses a setting of the other store).
  const directory = extraArgs.includes('--log-store=s3') ? [] : [`--log-dir=${dir}`];
  const child = spawn(
    process.execPath,
    [
      join(root, 'operator/main.ts'),
      `--kubeconfig=${kubeconfig}`,
      `--namespaces=${namespace}`,
      `--lease-namespace=${namespace}`,
      ...directory,
      `--http-port=${String(port)}`,
      ...extraArgs,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(
    waitToLead ? 'the operator to lead' : 'the operator to start',
    () => Promise.resolve(output.includes(waitToLead ? 'leading:' : 'operator started')),
    30_000,
    50,
  );
  return {
    logDir: dir,
    url: `http://127.0.0.1:${String(port)}`,
    process: child,
    output: () => output,
    stop: (signal = 'SIGTERM') => signalAndWait(child, signal),
  };
}

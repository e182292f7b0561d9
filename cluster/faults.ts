/**
 * Faults for failure tests, on one process of a running local cluster (named as in its state
 * file: `etcd`, `kube-apiserver`, `node-agent <node>`, ...): a crash that leaves it down, and a
 * pause that leaves it up but silent. `restartProcess` (controlplane.ts) brings a crashed one
 * back with the same arguments, so the same ports, certificates and data directory.
 */
import { readState } from './controlplane.ts';
import { stopProcess, type Managed } from './processes.ts';

async function processOf(dir: string, name: string): Promise<Managed> {
  const found = (await readState(dir))?.processes.find((p) => p.name === name);
  if (found === undefined) throw new Error(`no process "${name}" in the cluster at ${dir}`);
  return found;
}

function signalGroup(managed: Managed, signal: NodeJS.Signals): void {
  // Each process leads its own group (processes.ts): its helpers get the signal too.
  process.kill(-managed.pid, signal);
}

/** SIGKILL, no handler runs; the process stays down (a node agent's Node goes NotReady). */
export async function crashProcess(dir: string, name: string): Promise<void> {
  await stopProcess(await processOf(dir, name), 0, 'SIGKILL');
}

/**
 * SIGSTOP: the process keeps its sockets open and answers nothing, as a stalled disk or a
 * frozen VM would make it; clients wait rather than fail fast. Undo with resumeProcess.
 */
export async function pauseProcess(dir: string, name: string): Promise<void> {
  signalGroup(await processOf(dir, name), 'SIGSTOP');
}

export async function resumeProcess(dir: string, name: string): Promise<void> {
  signalGroup(await processOf(dir, name), 'SIGCONT');
}

/**
 * Child processes of the local control plane: each in its own process group, output to a log
 * file, stoppable by pid alone, so that `cluster-down` can stop what an earlier `cluster-up`
 * started.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { open } from 'node:fs/promises';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Managed {
  readonly name: string;
  readonly pid: number;
  readonly log: string;
  /** How it was started, so that tests can restart it. */
  readonly command: string;
  readonly args: readonly string[];
}

/** How a process ended: its exit code, or the signal that killed it. */
export type OnExit = (managed: Managed, code: number | null, signal: NodeJS.Signals | null) => void;

export interface StartProcessOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly onExit?: OnExit;
}

export async function startProcess(
  name: string,
  command: string,
  args: readonly string[],
  log: string,
  options: StartProcessOptions = {},
): Promise<Managed> {
  const { env = process.env, onExit } = options;
  const file = await open(log, 'a');
  try {
    const child = spawn(command, args, { detached: true, stdio: ['ignore', file.fd, file.fd], env });
    const pid = await new Promise<number>((resolve, reject) => {
      child.once('error', reject);
      child.once('spawn', () => {
        resolve(child.pid ?? -1);
      });
    });
    // The parent may exit (cluster-up returns); the process group lives on until cluster-down.
    child.unref();
    const managed = { name, pid, log, command, args };
    // Heard only while this process lives (`make dev`), which is when someone is told.
    if (onExit !== undefined)
      child.once('exit', (code, signal) => {
        onExit(managed, code, signal);
      });
    return managed;
  } finally {
    await file.close();
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * `first` (SIGTERM) to the whole process group, SIGKILL after `graceMs`; resolves once it is
 * gone. `first: 'SIGKILL'` simulates a crash: no handler runs.
 */
export async function stopProcess(
  managed: Pick<Managed, 'pid'>,
  graceMs = 10_000,
  first: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  const signal = (name: NodeJS.Signals): void => {
    try {
      process.kill(-managed.pid, name);
    } catch {
      // Already gone.
    }
  };
  if (!isAlive(managed.pid)) return;
  signal(first);
  const deadline = Date.now() + graceMs;
  while (isAlive(managed.pid) && Date.now() < deadline) await sleep(50);
  if (isAlive(managed.pid)) signal('SIGKILL');
  while (isAlive(managed.pid)) await sleep(20);
}

/** A port that was free a moment ago on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
  });
}

/** Polls `check` until it returns true or the time is up. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  intervalMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** Sends a child of this process `signal` and resolves once it has exited (at once if it already has). */
export function signalAndWait(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve();
      return;
    }
    child.once('exit', () => {
      resolve();
    });
    child.kill(signal);
  });
}

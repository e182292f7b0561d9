/**
 * A command run inside a running container, as a runtime's exec does it: in the container's
 * mount namespace and root, its working directory, its user, groups and capabilities, its
 * cgroup and its environment, all taken from how the container itself was started.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { shellQuote } from './runtime.ts';

/** What an exec needs to know about a running container; recorded when the container starts. */
export interface ExecTarget {
  /** The container's main process: its mount namespace and root are the container's. */
  readonly pid: number;
  readonly env: Readonly<Record<string, string>>;
  /** The working directory: inside the root when sandboxed, on the host otherwise. */
  readonly cwd: string;
  readonly sandboxed: boolean;
  /** setpriv's arguments up to and including `--`; empty when the agent cannot change users. */
  readonly setpriv: readonly string[];
  /** cgroup.procs files the exec joins, so that the container's limits count it too. */
  readonly cgroups: readonly string[];
  /** The exec processes now running (their group ids): they end with the container. */
  readonly processes: Set<number>;
}

export interface ExecLaunch {
  readonly argv: readonly string[];
  /** Working directory of the spawned process on the host (only without a sandbox). */
  readonly cwd: string | undefined;
}

/**
 * The argv of an exec. In a sandbox: nsenter enters the container's mount namespace and root
 * (its `--wd` would open the directory on the host side, so unshare, a no-op otherwise, changes
 * into it inside the root), then setpriv takes the container's identity. A missing command
 * exits 127 from unshare, as a shell reports it.
 */
export function execLaunch(target: ExecTarget, command: readonly string[]): ExecLaunch {
  const identity = target.setpriv.length === 0 ? [] : ['setpriv', ...target.setpriv];
  const inner = target.sandboxed
    ? [
        'nsenter',
        `--target=${String(target.pid)}`,
        '--mount',
        '--root',
        '--',
        'unshare',
        `--wd=${target.cwd}`,
        '--',
        ...identity,
        ...command,
      ]
    : [...identity, ...command];
  const argv =
    target.cgroups.length === 0
      ? inner
      : [
          '/bin/sh',
          '-c',
          `${target.cgroups.map((procs) => `echo $$ > ${shellQuote(procs)}`).join(' && ')} && exec "$@"`,
          'kubedag-exec',
          ...inner,
        ];
  return { argv, cwd: target.sandboxed ? undefined : target.cwd };
}

/** The exit code a runtime reports for a process that a signal ended: 128 + its number. */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal === null ? 0 : constants.signals[signal]);
}

/** Ends what exec started in a container whose main process has ended, as a runtime does. */
export function killExecs(target: ExecTarget): void {
  for (const pid of target.processes) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Ended by itself.
    }
  }
}

/** Starts the exec's process in a group of its own; resolves once it runs (or fails to start). */
export async function startExec(target: ExecTarget, command: readonly string[], stdin: boolean): Promise<ChildProcess> {
  const { argv, cwd } = execLaunch(target, command);
  const [file = '', ...args] = argv;
  const child = spawn(file, args, {
    env: target.env,
    cwd,
    detached: true,
    stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  return child;
}

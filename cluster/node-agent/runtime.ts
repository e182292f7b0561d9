/**
 * Runs one container as a local process group: the container's command and args (the image is
 * only recorded), its environment, its volumes bound at their mount paths inside a private
 * mount namespace, stdout and stderr into a CRI log file.
 */
import { spawn, spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { quoteWord } from '../../core/dag/command.ts';
import type { Clock } from '../../core/kube/time.ts';
import { LogWriter } from './logs.ts';

export interface Mount {
  readonly hostPath: string;
  readonly mountPath: string;
  readonly readOnly: boolean;
  /** A single file (the termination log) rather than a directory. */
  readonly file?: boolean;
}

export interface Launch {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly workingDir: string | undefined;
  readonly mounts: readonly Mount[];
  readonly logPath: string;
  /** Without a private mount namespace, volumes cannot be placed at their mount paths. */
  readonly mountNamespace: boolean;
  /** Gives the start and end times of the container and the time of each log line. */
  readonly clock: Clock;
}

export interface Exit {
  readonly exitCode: number;
  readonly signal: NodeJS.Signals | null;
  readonly finishedAt: Date;
}

export interface RunningContainer {
  readonly pid: number;
  readonly startedAt: Date;
  readonly exited: Promise<Exit>;
  /** Signals the main process (SIGKILL: the whole group); a no-op once it has exited. */
  readonly signal: (signal: NodeJS.Signals) => void;
}

let namespacesAvailable: boolean | undefined;

/** Whether this machine lets us create mount namespaces (root, unshare present). */
export function mountNamespacesAvailable(): boolean {
  namespacesAvailable ??= spawnSync('unshare', ['--mount', '--propagation', 'private', 'true']).status === 0;
  return namespacesAvailable;
}

/**
 * The shell prologue that runs inside the new mount namespace: mount points are created and
 * bound, read-only mounts remounted, then the container's own argv is exec'd.
 */
export function prologue(mounts: readonly Mount[], workingDir: string | undefined): string {
  const lines = ['set -e'];
  for (const mount of mounts) {
    const target = quoteWord(mount.mountPath);
    // A bind mount needs its target to exist; created once on the host, it stays empty there.
    if (mount.file === true) lines.push(`mkdir -p "$(dirname ${target})"`, `[ -e ${target} ] || : > ${target}`);
    else lines.push(`mkdir -p ${target}`);
    lines.push(`mount --bind ${quoteWord(mount.hostPath)} ${target}`);
    if (mount.readOnly) lines.push(`mount -o remount,bind,ro ${target}`);
  }
  if (workingDir !== undefined) lines.push(`mkdir -p ${quoteWord(workingDir)}`, `cd ${quoteWord(workingDir)}`);
  lines.push('exec "$@"');
  return lines.join('\n');
}

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGUSR1: 10, SIGUSR2: 12, SIGTERM: 15 };

export async function launch(spec: Launch): Promise<RunningContainer> {
  const wrapped = spec.mountNamespace && (spec.mounts.length > 0 || spec.workingDir !== undefined);
  const [command, args] = wrapped
    ? ['unshare', ['--mount', '--propagation', 'private', '--', '/bin/sh', '-c', prologue(spec.mounts, spec.workingDir), 'kubedag-container', ...spec.argv]]
    : [spec.argv[0] ?? '', spec.argv.slice(1)];
  const log = new LogWriter(spec.logPath, spec.clock);
  const child = spawn(command, args, {
    detached: true,
    env: spec.env,
    cwd: wrapped ? undefined : spec.workingDir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  log.attach(child.stdout, 'stdout');
  log.attach(child.stderr, 'stderr');
  const pid = await new Promise<number>((resolve, reject) => {
    child.once('spawn', () => {
      resolve(child.pid ?? -1);
    });
    child.once('error', reject);
  }).catch(async (error: unknown) => {
    await log.close();
    throw error;
  });
  const startedAt = spec.clock.now();
  let done = false;
  const closed = new Promise<void>((resolve) => child.once('close', () => { resolve(); }));
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      const exit = { exitCode: code ?? 128 + (SIGNALS[signal ?? ''] ?? 0), signal, finishedAt: spec.clock.now() };
      // Like a runtime tearing down a container: when its main process ends, so does the rest.
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Nothing else was running.
      }
      void Promise.race([closed, sleep(2000)])
        .then(() => log.close())
        .then(() => {
          resolve(exit);
        });
    });
  });
  return {
    pid,
    startedAt,
    exited,
    signal: (signal) => {
      if (done) return;
      try {
        // Like a container runtime: the stop signal goes to the main process only (it decides
        // what its children get); SIGKILL takes the whole group.
        process.kill(signal === 'SIGKILL' ? -pid : pid, signal);
      } catch {
        // Already gone.
      }
    },
  };
}

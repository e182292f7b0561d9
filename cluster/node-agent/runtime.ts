/**
 * Runs one container as a local process group: the argv it is given (the container's command,
 * wrapped by its sandbox), its environment, stdout and stderr into a CRI log file. The
 * wrapper is built here too: a private mount namespace in which one `mount -a` builds the
 * container's root from its fstab, then unshare --root and setpriv give the process its root,
 * working directory, user, groups and capabilities.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../core/kube/time.ts';
import { LogWriter } from './logs.ts';
import { layerPaths, type SandboxMode } from './sandbox.ts';

export interface Launch {
  /** What to spawn: the container's argv, with its sandbox's wrapper in front. */
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Working directory on the host; a sandboxed container gets its own from the wrapper. */
  readonly cwd: string | undefined;
  readonly logPath: string;
  /** The sandbox's setup-error file: exit 128 with a message there means the start failed. */
  readonly setupError?: string;
  /** Gives the start and end times of the container and the time of each log line. */
  readonly clock: Clock;
}

export interface Exit {
  readonly exitCode: number;
  readonly signal: NodeJS.Signals | null;
  readonly finishedAt: Date;
  /** Set when the sandbox could not be set up: the container never ran its command. */
  readonly startError?: string;
}

export interface RunningContainer {
  readonly pid: number;
  readonly startedAt: Date;
  readonly exited: Promise<Exit>;
  /** Signals the main process (SIGKILL: the whole group); a no-op once it has exited. */
  readonly signal: (signal: NodeJS.Signals) => void;
}

/** Always single-quoted: nothing in a path is ever expanded by the wrapper's shell. */
export const shellQuote = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`;

/** The exit code of a wrapper that could not build the container's root, as runc's start errors. */
export const SETUP_FAILED = 128;

export interface Wrapper {
  readonly mode: SandboxMode;
  readonly layer: string;
  /** Working directory inside the container's root. */
  readonly cwd: string;
  /** setpriv's arguments up to and including `--`; empty when the agent cannot change users. */
  readonly setpriv: readonly string[];
  /** cgroup.procs files the process joins before anything else. */
  readonly cgroups: readonly string[];
}

/** The script that runs in the new mount namespace; the container's argv follows as "$@". */
export function wrapperScript(wrapper: Wrapper): string {
  const paths = layerPaths(wrapper.layer);
  const fail = `2>${shellQuote(paths.setupError)} || exit ${String(SETUP_FAILED)}`;
  const lines = wrapper.cgroups.map((procs) => `echo $$ > ${shellQuote(procs)} ${fail}`);
  if (wrapper.mode === 'overlay-tmpfs') {
    lines.push(
      `{ mount -t tmpfs -o mode=0755 tmpfs ${shellQuote(paths.memory)} && cp -a ${shellQuote(paths.upper)} ${shellQuote(paths.work)} ${shellQuote(paths.memory)}/; } ${fail}`,
    );
  }
  lines.push(`mount -a -T ${shellQuote(paths.fstab)} ${fail}`);
  lines.push(
    `exec unshare --root=${shellQuote(paths.root)} --wd=${shellQuote(wrapper.cwd)} ${wrapper.setpriv.length === 0 ? '' : 'setpriv '}"$@"`,
  );
  return lines.join('\n');
}

/** The argv to spawn for a container: wrapped in its sandbox, or only under setpriv without one. */
export function containerArgv(wrapper: Wrapper, argv: readonly string[]): string[] {
  if (wrapper.mode === 'none')
    return wrapper.setpriv.length === 0 ? [...argv] : ['setpriv', ...wrapper.setpriv, ...argv];
  return [
    'unshare',
    '--mount',
    '--propagation',
    'private',
    '--',
    '/bin/sh',
    '-c',
    wrapperScript(wrapper),
    'kubedag-sandbox',
    ...wrapper.setpriv,
    ...argv,
  ];
}

const SIGNALS: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGKILL: 9,
  SIGUSR1: 10,
  SIGUSR2: 12,
  SIGTERM: 15,
};

export async function launch(spec: Launch): Promise<RunningContainer> {
  const [command = '', ...args] = spec.argv;
  const log = new LogWriter(spec.logPath, spec.clock);
  const child = spawn(command, args, {
    detached: true,
    env: spec.env,
    cwd: spec.cwd,
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
  const closed = new Promise<void>((resolve) =>
    child.once('close', () => {
      resolve();
    }),
  );
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      const exitCode = code ?? 128 + (SIGNALS[signal ?? ''] ?? 0);
      const startError = exitCode === SETUP_FAILED ? setupError(spec.setupError) : undefined;
      const exit = {
        exitCode,
        signal,
        finishedAt: spec.clock.now(),
        ...(startError === undefined ? {} : { startError }),
      };
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

function setupError(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  try {
    const text = readFileSync(path, 'utf8').trim();
    return text === '' ? undefined : `setting up the container's root failed: ${text}`;
  } catch {
    return undefined;
  }
}

/**
 * Runs a command in a container of a running Pod through the Kubernetes exec API (the
 * WebSocket channel protocol, with @kubernetes/client-node): stdout and stderr apart, the exit
 * code from the status on the error channel, and a stop.
 *
 * A stop must end the remote command itself: closing the exec connection does not. containerd
 * and CRI-O (and the local node agent, which behaves like them) only close the command's stdin
 * and let it run on. So, unless told the container has no shell, the command runs under a
 * small `sh` wrapper that holds the session's stdin as a lifeline: the client keeps it open and
 * never writes; when it ends (a stop ends it on purpose; a client that dies, or whose Pod is
 * lost, ends it by losing the connection), the wrapper sends the stop signal and, after the
 * grace period, SIGKILL. The remote command thus never outlives the step that runs it.
 */
import { existsSync } from 'node:fs';
import { PassThrough, Writable, type Readable } from 'node:stream';
import { Exec, KubeConfig, type V1Status } from '@kubernetes/client-node';

export interface ContainerRef {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
}

export interface ContainerExecOptions {
  readonly command: readonly string[];
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /** Aborting stops the command: `stopSignal`, then SIGKILL after `graceMs`. */
  readonly signal?: AbortSignal;
  readonly stopSignal?: NodeJS.Signals;
  readonly graceMs?: number;
  /**
   * The container has `sh` (default): the command is tied to the session and can be stopped.
   * Without one (`false`), a stop only closes the connection and the command may run on.
   */
  readonly shell?: boolean;
  /** The command's stdin; only without the shell wrapper, whose stdin is its lifeline. */
  readonly stdin?: Readable;
}

export interface ContainerExecResult {
  readonly exitCode: number;
  /** The command was stopped through the signal. */
  readonly stopped: boolean;
}

/** The exec could not run the command (no such Pod, container not running, refused). */
export class ContainerExecError extends Error {
  override readonly name = 'ContainerExecError';
}

const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

/** In a Pod: its service account; elsewhere: the kubeconfig (`$KUBECONFIG` or ~/.kube/config). */
export function execKubeConfig(env: Readonly<Record<string, string | undefined>>, kubeconfig?: string): KubeConfig {
  const kc = new KubeConfig();
  if (kubeconfig !== undefined) kc.loadFromFile(kubeconfig);
  else if (env.KUBERNETES_SERVICE_HOST !== undefined && existsSync(`${SERVICE_ACCOUNT}/token`)) kc.loadFromCluster();
  else kc.loadFromDefault();
  return kc;
}

/** The exit code a status reports: 0 on success, the ExitCode cause on NonZeroExitCode. */
export function exitCodeOf(status: V1Status): number | { error: string } {
  if (status.status === 'Success') return 0;
  const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode');
  if (status.reason === 'NonZeroExitCode' && cause?.message !== undefined && /^\d+$/.test(cause.message))
    return Number(cause.message);
  return { error: status.message ?? 'the exec failed without a message' };
}

/**
 * The wrapper ($1 grace seconds, $2 signal name, then the command). A watcher holds the
 * session's stdin (saved on fd 3 first: a shell without job control gives background commands
 * /dev/null) until it ends, then sends the stop signal to the process group of `$$` (where the
 * runtime made the exec a group leader, so that what the command started goes too; else to
 * `$$` alone) and SIGKILL after the grace period. It ignores the signal it sends, holds none of
 * the output, and is started from a subshell that exits at once, so that it is no child of the
 * command. The wrapper then execs the command, with /dev/null as stdin: `$$` is the command,
 * its exit status the runtime's to report, and it starts with the signal dispositions the exec
 * gave the wrapper. Run as a background job instead, it would have SIGINT and SIGQUIT ignored
 * (POSIX), which only bash and zsh let a script restore: dash and busybox ash refuse.
 * Stdin ending after the command is gone (the session closes after it exits) is no stop.
 */
const WRAPPER = [
  'grace=$1; sig=$2; shift 2',
  '( exec 3<&0; (',
  '  trap "" "$sig"',
  '  cat <&3 >/dev/null',
  '  kill -0 $$ 2>/dev/null || exit 0',
  // dash wants `--` before a negative pid (and fails on `-PID` before sending anything);
  // busybox signals the group at `-- -PID` but then fails on `--`, so `-PID` comes first,
  // lest the command get the signal twice.
  '  { kill -s "$sig" "-$$" || kill -s "$sig" -- "-$$" || kill -s "$sig" $$; }',
  '  sleep "$grace"',
  '  { kill -s KILL "-$$" || kill -s KILL -- "-$$" || kill -s KILL $$; }',
  ') >/dev/null 2>&1 & )',
  'exec "$@" </dev/null',
].join('\n');

/** The command as started under the wrapper. */
export function wrapCommand(command: readonly string[], stopSignal: NodeJS.Signals, graceMs: number): string[] {
  return [
    '/bin/sh',
    '-c',
    WRAPPER,
    'kubedag-exec',
    String(Math.max(1, Math.ceil(graceMs / 1000))),
    stopSignal.replace(/^SIG/, ''),
    ...command,
  ];
}

/** Passes chunks on: client-node ends the streams it is given, the step's own must stay open. */
const forward = (target: NodeJS.WritableStream): Writable =>
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      target.write(chunk);
      done();
    },
  });

function noStatus(stopped: boolean, shell: boolean): string {
  if (!stopped) return 'the connection ended without a status';
  return shell
    ? 'stopped; the connection closed before the exit code came'
    : 'stopped before the command ended; without a shell to stop it, it may still run in the container';
}

export async function execInContainer(
  kc: KubeConfig,
  ref: ContainerRef,
  options: ContainerExecOptions,
): Promise<ContainerExecResult> {
  const where = `exec in ${ref.namespace}/${ref.pod} container ${ref.container}`;
  const shell = options.shell !== false;
  if (shell && options.stdin !== undefined)
    throw new ContainerExecError(
      `${where}: stdin is taken by the shell wrapper; pass shell: false to give the command a stdin`,
    );
  const lifeline = new PassThrough();
  const command = shell
    ? wrapCommand(options.command, options.stopSignal ?? 'SIGTERM', options.graceMs ?? 10_000)
    : [...options.command];
  // Set from callbacks; objects, so that the compiler does not narrow the fields.
  const state = { stopped: false };
  const reported: { status?: V1Status } = {};
  const ws = await new Exec(kc)
    .exec(
      ref.namespace,
      ref.pod,
      ref.container,
      command,
      forward(options.stdout),
      forward(options.stderr),
      shell ? lifeline : (options.stdin ?? null),
      false,
      (s) => (reported.status = s),
    )
    .catch((error: unknown) => {
      throw new ContainerExecError(`${where}: ${error instanceof Error ? error.message : String(error)}`);
    });
  const closed = new Promise<void>((resolve) =>
    ws.once('close', () => {
      resolve();
    }),
  );
  const stop = (): void => {
    state.stopped = true;
    // v5 sends the end of stdin as a frame and waits for the status; older protocols close.
    if (shell) lifeline.end();
    else ws.close();
  };
  if (options.signal?.aborted === true) stop();
  else options.signal?.addEventListener('abort', stop, { once: true });
  await closed;
  options.signal?.removeEventListener('abort', stop);
  const status = reported.status;
  if (status === undefined) throw new ContainerExecError(`${where}: ${noStatus(state.stopped, shell)}`);
  const code = exitCodeOf(status);
  if (typeof code !== 'number') throw new ContainerExecError(`${where}: ${code.error}`);
  return { exitCode: code, stopped: state.stopped };
}

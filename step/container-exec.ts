/**
 * Runs a command in a container of a running Pod through the Kubernetes exec API (the
 * WebSocket channel protocol, with @kubernetes/client-node): stdout and stderr apart, the exit
 * code from the status on the error channel, stdin if given, and a stop.
 *
 * A stop must end the remote command itself. Closing the exec connection does not: containerd
 * and CRI-O (and the local node agent, which behaves like them) only close the command's stdin
 * and let it run on. So, unless told the container has no shell, the command is started
 * through `sh`, which reports its process id on stderr (one line, taken off before the step's
 * stderr sees it) and then becomes the command; a stop sends the signal to that process with a
 * second exec, and SIGKILL after the grace period.
 */
import { existsSync } from 'node:fs';
import { Writable, type Readable } from 'node:stream';
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
  readonly stdin?: Readable;
  /** Aborting stops the command: `stopSignal`, then SIGKILL after `graceMs`. */
  readonly signal?: AbortSignal;
  readonly stopSignal?: NodeJS.Signals;
  readonly graceMs?: number;
  /**
   * The container has `sh` (and `kill`): the command can be stopped. Without one, a stop only
   * closes the connection and the command runs on in the container.
   */
  readonly shell?: boolean;
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
  if (status.reason === 'NonZeroExitCode' && cause?.message !== undefined && /^\d+$/.test(cause.message)) return Number(cause.message);
  return { error: status.message ?? 'the exec failed without a message' };
}

/** The command as started: through `sh`, which reports its pid on stderr first, then becomes it. */
export const wrapCommand = (command: readonly string[]): string[] => ['/bin/sh', '-c', 'echo "$$" >&2 && exec "$@"', 'kubedag-exec', ...command];

/** A Writable that passes chunks on; with `pidLine`, the first line is taken off and reported. */
export function forward(target: NodeJS.WritableStream, pidLine?: (pid: string) => void): Writable {
  let head: Buffer | undefined = pidLine === undefined ? undefined : Buffer.alloc(0);
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (head === undefined) {
        target.write(chunk);
        done();
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf(10);
      if (end >= 0) {
        pidLine?.(head.subarray(0, end).toString('utf8').trim());
        const rest = head.subarray(end + 1);
        head = undefined;
        if (rest.length > 0) target.write(rest);
      }
      done();
    },
  });
}

export async function execInContainer(kc: KubeConfig, ref: ContainerRef, options: ContainerExecOptions): Promise<ContainerExecResult> {
  const shell = options.shell !== false;
  // Set from callbacks; an object, so that the compiler does not narrow the fields.
  const state: { pid?: string; stopped: boolean } = { stopped: false };
  const reported: { status?: V1Status } = {};
  const exec = new Exec(kc);
  const command = shell ? wrapCommand(options.command) : [...options.command];
  const stderr = forward(options.stderr, shell ? (p) => (state.pid = p) : undefined);
  const ws = await exec
    .exec(ref.namespace, ref.pod, ref.container, command, forward(options.stdout), stderr, options.stdin ?? null, false, (s) => (reported.status = s))
    .catch((error: unknown) => {
      throw new ContainerExecError(`exec in ${ref.namespace}/${ref.pod} container ${ref.container}: ${error instanceof Error ? error.message : String(error)}`);
    });
  const closed = new Promise<void>((resolve) => ws.once('close', () => { resolve(); }));
  const stop = (): void => {
    state.stopped = true;
    void stopRemote(kc, ref, { pid: state.pid, closed, ws, signal: options.stopSignal ?? 'SIGTERM', graceMs: options.graceMs ?? 10_000 });
  };
  if (options.signal?.aborted === true) stop();
  else options.signal?.addEventListener('abort', stop, { once: true });
  await closed;
  options.signal?.removeEventListener('abort', stop);
  const status = reported.status;
  if (status === undefined) {
    const why = state.stopped ? 'stopped before the command ended; without a shell to signal it, it may still run in the container' : 'the connection ended without a status';
    throw new ContainerExecError(`exec in ${ref.namespace}/${ref.pod} container ${ref.container}: ${why}`);
  }
  const code = exitCodeOf(status);
  if (typeof code !== 'number') throw new ContainerExecError(`exec in ${ref.namespace}/${ref.pod} container ${ref.container}: ${code.error}`);
  return { exitCode: code, stopped: state.stopped };
}

/**
 * The group the command leads, where the runtime made it a group leader (what it started in
 * the background would otherwise keep the exec's output open, and the session with it); else
 * the command alone.
 */
const KILL_SCRIPT = 'kill -s "$1" -- "-$2" 2>/dev/null || kill -s "$1" "$2"';

interface Remote {
  readonly pid: string | undefined;
  readonly closed: Promise<void>;
  readonly ws: { close: () => void };
  readonly signal: NodeJS.Signals;
  readonly graceMs: number;
}

/** Signals the remote command, then SIGKILL after the grace period; the session ends with it. */
async function stopRemote(kc: KubeConfig, ref: ContainerRef, remote: Remote): Promise<void> {
  if (remote.pid === undefined || !/^\d+$/.test(remote.pid)) {
    remote.ws.close();
    return;
  }
  const signalWith = (name: string): Promise<unknown> =>
    execInContainer(kc, ref, { command: ['/bin/sh', '-c', KILL_SCRIPT, 'kill', name.replace(/^SIG/, ''), remote.pid ?? ''], stdout: sink(), stderr: sink(), shell: false }).catch(() => undefined);
  await signalWith(remote.signal);
  const ended = await Promise.race([remote.closed.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => { resolve(false); }, remote.graceMs).unref())]);
  if (!ended) await signalWith('SIGKILL');
}

const sink = (): NodeJS.WritableStream => new Writable({ write: (_chunk, _encoding, done) => { done(); } });

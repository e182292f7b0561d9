/**
 * The kubelet's exec endpoint as plain data: what a request asks for
 * (`/exec/{namespace}/{pod}[/{uid}]/{container}?command=..&input=1&output=1&error=1&tty=1`, the
 * URL kube-apiserver builds from PodExecOptions), which WebSocket channel protocol is spoken,
 * and the frames of the channel protocol: one byte of channel number, then the data.
 *
 * Channels: 0 stdin, 1 stdout, 2 stderr, 3 error (the end status), 4 resize. v4 writes a
 * metav1.Status as JSON on the error channel, with the exit code as a cause; v5 adds the
 * stream-close frame (255, channel) a client sends when its stdin ends. Older protocols
 * (`channel.k8s.io`) write only the message of a failure there.
 */

export const STDIN = 0;
export const STDOUT = 1;
export const STDERR = 2;
export const ERROR = 3;
export const RESIZE = 4;
/** v5: `[255, channel]` closes that channel (stdin's end of file). */
export const CLOSE = 255;

export type ChannelProtocol = 'v5.channel.k8s.io' | 'v4.channel.k8s.io' | 'channel.k8s.io';

/** Best first, as the CRI streaming server prefers; base64 variants are not offered. */
const SUPPORTED: readonly ChannelProtocol[] = ['v5.channel.k8s.io', 'v4.channel.k8s.io', 'channel.k8s.io'];

export interface ExecRequest {
  readonly namespace: string;
  readonly pod: string;
  /** Set when the caller pinned the Pod's uid (a newer Pod of the same name must not answer). */
  readonly uid?: string;
  readonly container: string;
  readonly command: readonly string[];
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
  readonly tty: boolean;
}

export type Parsed<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly status: number; readonly message: string };

const fail = (status: number, message: string): Parsed<never> => ({ ok: false, status, message });

/** Reads an exec URL as the kubelet does: `1` turns a stream on; tty takes stderr's place. */
export function parseExecRequest(url: URL): Parsed<ExecRequest> | undefined {
  const parts = url.pathname.split('/').slice(1).map(decodeURIComponent);
  if (parts[0] !== 'exec' || parts.length < 4 || parts.length > 5 || parts.some((p) => p === '')) return undefined;
  const [, namespace = '', pod = '', ...rest] = parts;
  const [uid, container = ''] = rest.length === 2 ? rest : [undefined, rest[0]];
  const request = requestOf(url, { namespace, pod, uid, container });
  if (!request.stdin && !request.stdout && !request.stderr)
    return fail(400, 'you must specify at least 1 of stdin, stdout, stderr');
  if (request.command.length === 0) return fail(400, 'you must specify a command');
  // A pseudo-terminal needs a pty in the container; commands here run with pipes only.
  if (request.tty)
    return fail(
      400,
      'tty is not supported by the kubedag node agent: run the command without a terminal (kubectl exec -i, without -t)',
    );
  return { ok: true, value: request };
}

function requestOf(
  url: URL,
  { namespace, pod, uid, container }: { namespace: string; pod: string; uid: string | undefined; container: string },
): ExecRequest {
  const flag = (name: string): boolean => url.searchParams.get(name) === '1';
  const tty = flag('tty');
  return {
    namespace,
    pod,
    ...(uid === undefined ? {} : { uid }),
    container,
    command: url.searchParams.getAll('command'),
    stdin: flag('input'),
    stdout: flag('output'),
    // With a terminal there is one output stream, as the kubelet bypasses stderr.
    stderr: flag('error') && !tty,
    tty,
  };
}

/** The protocol the server speaks: the best one the client offers; none offered means the oldest. */
export function negotiate(offered: readonly string[]): ChannelProtocol | undefined {
  if (offered.length === 0) return 'channel.k8s.io';
  return SUPPORTED.find((p) => offered.includes(p));
}

export const frame = (channel: number, data: Uint8Array = new Uint8Array()): Buffer =>
  Buffer.concat([Buffer.from([channel]), data]);

export type Incoming =
  | { readonly kind: 'data'; readonly channel: number; readonly data: Buffer }
  | { readonly kind: 'close'; readonly channel: number }
  | { readonly kind: 'invalid'; readonly reason: string };

/** A frame from the client; the close signal counts only in v5, as the CRI server reads it. */
export function readFrame(message: Buffer, protocol: ChannelProtocol): Incoming | undefined {
  if (message.length === 0) return undefined;
  const channel = message[0] ?? 0;
  if (protocol === 'v5.channel.k8s.io' && channel === CLOSE) {
    return message.length === 2
      ? { kind: 'close', channel: message[1] ?? 0 }
      : { kind: 'invalid', reason: 'one channel byte must follow the stream close signal' };
  }
  return { kind: 'data', channel, data: message.subarray(1) };
}

/** How the command ended: its exit code, or a failure before it could run. */
export type Outcome =
  { readonly kind: 'exited'; readonly exitCode: number } | { readonly kind: 'error'; readonly message: string };

/** The error channel's last frame: a metav1.Status (v4, v5), or a failure's message alone (older). */
export function statusMessage(outcome: Outcome, protocol: ChannelProtocol): string | undefined {
  const status = statusObject(outcome);
  if (protocol !== 'channel.k8s.io') return JSON.stringify(status);
  return status.status === 'Success' ? undefined : status.message;
}

interface Status {
  readonly metadata: Record<string, never>;
  readonly status: 'Success' | 'Failure';
  readonly message?: string;
  readonly reason?: string;
  readonly code?: number;
  readonly details?: { readonly causes: readonly { readonly reason: string; readonly message: string }[] };
}

function statusObject(outcome: Outcome): Status {
  if (outcome.kind === 'error')
    return { metadata: {}, status: 'Failure', message: outcome.message, reason: 'InternalError', code: 500 };
  if (outcome.exitCode === 0) return { metadata: {}, status: 'Success' };
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: exit status ${String(outcome.exitCode)}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(outcome.exitCode) }] },
  };
}

/**
 * One exec session over an upgraded WebSocket: the command's stdout and stderr out on their
 * channels, the client's stdin in, and at the end the status on the error channel and a normal
 * close, which is how a client learns that all output has arrived.
 *
 * A client that goes away does not end the command, as with containerd and CRI-O: its stdin
 * closes and its output is read and dropped until it ends by itself (or with its container).
 * Whoever wants it stopped must say so, for example with a second exec that signals it.
 */
import type { ChildProcess } from 'node:child_process';
import type { WebSocket } from 'ws';
import { errorMessage, type Logger } from '../../core/log.ts';
import { exitCodeOf, startExec, type ExecTarget } from './exec.ts';
import {
  ERROR,
  frame,
  readFrame,
  statusMessage,
  STDERR,
  STDIN,
  STDOUT,
  type ChannelProtocol,
  type ExecRequest,
  type Outcome,
} from './exec-protocol.ts';

export interface Session {
  readonly ws: WebSocket;
  readonly protocol: ChannelProtocol;
  readonly request: ExecRequest;
  readonly target: ExecTarget;
  readonly log: Logger;
}

/** Runs the session to its end: resolves once the status is sent (or the client is gone). */
export async function serveExec(session: Session): Promise<void> {
  const { ws, request, log } = session;
  let connected = true;
  ws.on('close', () => (connected = false));
  // A reset connection is a client that left (handled by 'close'), not a failure of the agent.
  ws.on('error', (error) => {
    log.debug({ error: errorMessage(error) }, 'exec connection failed');
  });
  const flow = new Flow();
  const send = (channel: number, data?: Uint8Array): void => {
    if (!connected) return;
    const message = frame(channel, data);
    flow.sent(message.length);
    ws.send(message, () => {
      flow.delivered(message.length);
    });
  };
  // The CRI streaming server's "connection established": an empty frame on the lowest channel it writes.
  send(request.stdout ? STDOUT : request.stderr ? STDERR : ERROR);
  let child: ChildProcess;
  try {
    child = await startExec(session.target, request.command, request.stdin);
  } catch (error) {
    finish(session, { kind: 'error', message: `failed to exec in container: ${errorMessage(error)}` }, connected);
    return;
  }
  const pid = child.pid ?? -1;
  session.target.processes.add(pid);
  log.debug({ pid, command: request.command }, 'exec started');
  wireInput(session, child);
  flow.streams = [child.stdout, child.stderr];
  child.stdout?.on('data', (data: Buffer) => {
    if (request.stdout) send(STDOUT, data);
  });
  child.stderr?.on('data', (data: Buffer) => {
    if (request.stderr) send(STDERR, data);
  });
  const outcome = await new Promise<Outcome>((resolve) => {
    // 'close' comes after the last output: the status must follow everything written.
    child.once('close', (code, signal) => {
      resolve({ kind: 'exited', exitCode: exitCodeOf(code, signal) });
    });
  });
  session.target.processes.delete(pid);
  log.debug({ pid, outcome }, 'exec ended');
  finish(session, outcome, connected);
}

/**
 * Output waits while the client is slow: the command's pipes pause while more than HIGH bytes
 * are queued on the socket, and resume below LOW, so a command that writes faster than the
 * client reads blocks on its pipe as it would with a runtime, instead of filling the agent.
 */
const HIGH = 4 * 1024 * 1024;
const LOW = 1024 * 1024;

class Flow {
  streams: readonly (NodeJS.ReadableStream | null)[] = [];
  private queued = 0;

  sent(bytes: number): void {
    this.queued += bytes;
    if (this.queued > HIGH) for (const s of this.streams) s?.pause();
  }

  delivered(bytes: number): void {
    this.queued -= bytes;
    if (this.queued < LOW) for (const s of this.streams) s?.resume();
  }
}

function wireInput(session: Session, child: ChildProcess): void {
  const { ws, protocol, log } = session;
  const stdin = child.stdin;
  // EPIPE when the command exits before reading all of stdin: nothing to report then.
  stdin?.on('error', () => undefined);
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    const incoming = readFrame(isBinary ? data : Buffer.from(data), protocol);
    if (incoming === undefined) return;
    if (incoming.kind === 'invalid') {
      log.warn({ reason: incoming.reason }, 'exec: protocol error from the client');
      return;
    }
    if (incoming.channel !== STDIN) return;
    if (incoming.kind === 'close') stdin?.end();
    else stdin?.write(incoming.data);
  });
  ws.on('close', () => stdin?.end());
}

function finish(session: Session, outcome: Outcome, connected: boolean): void {
  if (!connected) return;
  const message = statusMessage(outcome, session.protocol);
  if (message !== undefined) session.ws.send(frame(ERROR, Buffer.from(message)));
  session.ws.close(1000);
}

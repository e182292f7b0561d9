/**
 * The kubelet's exec endpoint on the agent's HTTPS server: a WebSocket upgrade of
 * `/exec/{namespace}/{pod}[/{uid}]/{container}`. kube-apiserver sends it unchanged because the
 * Node declares ExtendWebSocketsToKubelet; a SPDY upgrade (older clients, which kube-apiserver
 * passes on as they are) is refused with a message that says what to use instead.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Logger } from '../../core/log.ts';
import { negotiate, parseExecRequest, type ChannelProtocol, type ExecRequest } from './exec-protocol.ts';
import { serveExec } from './exec-session.ts';
import type { PodManager } from './pods.ts';

export interface ExecEndpoint {
  /** Handles the server's 'upgrade' event; false when the path is not the exec endpoint's. */
  readonly upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean;
}

function refuse(socket: Duplex, status: number, message: string): void {
  const reason = status === 404 ? 'Not Found' : status === 400 ? 'Bad Request' : 'Internal Server Error';
  const body = `${message}\n`;
  socket.end(
    `HTTP/1.1 ${String(status)} ${reason}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${String(Buffer.byteLength(body))}\r\nconnection: close\r\n\r\n${body}`,
  );
}

const offeredProtocols = (req: IncomingMessage): string[] =>
  (req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');

export function execEndpoint(pods: PodManager, log: Logger): ExecEndpoint {
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    handleProtocols: (offered) => negotiate([...offered]) ?? false,
  });
  const accept = (
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    session: { request: ExecRequest; protocol: ChannelProtocol; target: Parameters<typeof serveExec>[0]['target'] },
  ): void => {
    wss.handleUpgrade(req, socket, head, (ws) => {
      const { request } = session;
      const sessionLog = log.child({ pod: `${request.namespace}/${request.pod}`, container: request.container });
      serveExec({ ws, ...session, log: sessionLog }).catch((error: unknown) => {
        sessionLog.warn({ err: error }, 'exec session failed');
        ws.terminate();
      });
    });
  };
  return {
    upgrade: (req, socket, head) => {
      // Until ws takes the socket over: a client that resets it must not take the agent down.
      socket.on('error', () => undefined);
      const parsed = parseExecRequest(new URL(req.url ?? '/', 'https://node'));
      if (parsed === undefined) return false;
      if (!parsed.ok) {
        refuse(socket, parsed.status, parsed.message);
        return true;
      }
      if ((req.headers.upgrade ?? '').toLowerCase() !== 'websocket') {
        refuse(
          socket,
          400,
          'the kubedag node agent speaks exec over WebSocket only (v5.channel.k8s.io or v4.channel.k8s.io), not SPDY',
        );
        return true;
      }
      const protocol = negotiate(offeredProtocols(req));
      if (protocol === undefined) {
        refuse(
          socket,
          400,
          `requested protocol(s) are not supported: ${offeredProtocols(req).join(', ')}; supports v5.channel.k8s.io, v4.channel.k8s.io, channel.k8s.io`,
        );
        return true;
      }
      const found = pods.execTarget(parsed.value);
      if (!('target' in found)) {
        refuse(socket, found.status, found.message);
        return true;
      }
      accept(req, socket, head, { request: parsed.value, protocol, target: found.target });
      return true;
    },
  };
}

/**
 * The kubelet's HTTPS endpoint (client certificates): the log endpoint,
 * `GET /containerLogs/{namespace}/{pod}/{container}`, and the exec endpoint (exec-server.ts),
 * so that `kubectl logs`, `kubectl exec` and the Pod log and exec APIs work through
 * kube-apiserver.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { Clock } from '../../core/kube/time.ts';
import type { Logger } from '../../core/log.ts';
import { execEndpoint } from './exec-server.ts';
import { follow, readLogSnapshot, selectLines, type LogQuery } from './logs.ts';
import type { PodManager } from './pods.ts';

export interface ServerOptions {
  readonly port: number;
  readonly cert: string;
  readonly key: string;
  readonly clientCa: string;
  readonly pods: PodManager;
  readonly clock: Clock;
  readonly logger: Logger;
}

function number(value: string | null): number | undefined {
  return value === null || value === '' ? undefined : Number(value);
}

export function startLogServer(options: ServerOptions): Promise<Server> {
  const server = createServer(
    {
      cert: readFileSync(options.cert),
      key: readFileSync(options.key),
      ca: readFileSync(options.clientCa),
      requestCert: true,
      rejectUnauthorized: true,
    },
    (req, res) => {
      const url = new URL(req.url ?? '/', 'https://node');
      const match = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
      if (req.method !== 'GET' || match === null) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      const [namespace = '', pod = '', container = ''] = match.slice(1).map(decodeURIComponent);
      const params = url.searchParams;
      const log = options.pods.logOf(namespace, pod, container, params.get('previous') === 'true');
      if (log === undefined) {
        res
          .writeHead(404, { 'content-type': 'text/plain' })
          .end(`container "${container}" in pod "${pod}" has no log on this node\n`);
        return;
      }
      const query: LogQuery = {
        tailLines: number(params.get('tailLines')),
        sinceSeconds: number(params.get('sinceSeconds')),
        sinceTime: params.get('sinceTime') ?? undefined,
        limitBytes: number(params.get('limitBytes')),
        timestamps: params.get('timestamps') === 'true',
      };
      void (async () => {
        const { lines, size } = await readLogSnapshot(log.path);
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write(selectLines(lines, query, options.clock.now().getTime()));
        if (params.get('follow') === 'true' && query.limitBytes === undefined) {
          let closed = false;
          req.on('close', () => (closed = true));
          await follow({
            path: log.path,
            offset: size,
            timestamps: query.timestamps === true,
            write: (text) => res.write(text),
            done: () => !log.live(),
            closed: () => closed,
          });
        }
        res.end();
      })().catch(() => res.destroy());
    },
  );
  const exec = execEndpoint(options.pods, options.logger);
  server.on('upgrade', (req, socket, head) => {
    if (!exec.upgrade(req, socket, head))
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      resolve(server);
    });
  });
}

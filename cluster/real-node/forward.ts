/**
 * A port on the host's loopback that leads to the API server inside the node's network
 * namespace, so that tests, the operator and kubectl on the host reach it as on the default
 * cluster. The host process listens (the socket belongs to the host's namespace for good) and
 * hands the listening socket to a child started with `nsenter --net=`, which accepts on it and
 * connects to the API server from inside. Run as a program, this file is that child.
 */
import { spawn } from 'node:child_process';
import { open } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { Managed } from '../processes.ts';
import { inNetns } from './netns.ts';

/** Starts the forwarder; resolves with the host port and the child, which outlives this process. */
export async function startForwarder(
  netns: string,
  target: { host: string; port: number },
  log: string,
): Promise<{ port: number; managed: Managed }> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const [command, ...args] = [
    ...inNetns(netns),
    process.execPath,
    import.meta.filename,
    target.host,
    String(target.port),
  ];
  const file = await open(log, 'a');
  try {
    const child = spawn(command, args, { detached: true, stdio: ['ignore', file.fd, file.fd, 'ipc'] });
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      child.send('listen', server, (error) => {
        if (error === null) resolve();
        else reject(error);
      });
    });
    // The child has its own copy of the socket; this one is closed, the port stays the child's.
    server.close();
    await new Promise<void>((resolve) => child.once('disconnect', resolve));
    child.unref();
    return { port, managed: { name: 'api-forwarder', pid: child.pid ?? -1, log, command, args } };
  } finally {
    await file.close();
  }
}

function pipe(client: Socket, host: string, port: number): void {
  const upstream = connect(port, host);
  client.pipe(upstream).pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
}

if (import.meta.main) {
  const [host = '127.0.0.1', port = '0'] = process.argv.slice(2);
  process.once('message', (_message, handle) => {
    const server = handle as Server;
    server.on('connection', (client: Socket) => {
      pipe(client, host, Number(port));
    });
    process.disconnect();
    process.stdout.write(
      `forwarding the host's ${JSON.stringify(server.address())} to ${host}:${port} inside the node's network namespace\n`,
    );
  });
  process.on('SIGTERM', () => process.exit(0));
}

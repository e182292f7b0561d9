/**
 * An HTTP server of a test's own on a free loopback port: its base URL, and a close that does
 * not wait for kept-alive connections (the steps' clients keep them).
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackHttp {
  /** http://127.0.0.1:<port> */
  readonly base: string;
  close(): Promise<void>;
}

export async function serveHttp(handler: RequestListener): Promise<LoopbackHttp> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

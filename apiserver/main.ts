/** The Kubedag API server: `node apiserver/main.ts [flags]` (config.ts lists flags and KUBEDAG_* variables). */
import { readFileSync } from 'node:fs';
import { AuthenticationV1Api, AuthorizationV1Api } from '@kubernetes/client-node';
import { join } from 'node:path';
import { authOptions, registerAuth } from './auth.ts';
import { parseApiConfig } from './config.ts';
import { API_PREFIX } from './paths.ts';
import { registerRemoteNodes } from './remote.ts';
import { startServer } from './server.ts';

const log = (message: string): void => void process.stdout.write(`${new Date().toISOString()} ${message}\n`);
const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '../package.json'), 'utf8')) as { version: string };

const config = parseApiConfig(process.argv.slice(2), process.env);
const server = await startServer({
  config,
  version,
  log,
  plugins: [
    (app, { kc, namespace }) => {
      const kubernetes = { authentication: kc.makeApiClient(AuthenticationV1Api), authorization: kc.makeApiClient(AuthorizationV1Api), namespace };
      registerAuth(app, authOptions(config.auth, kubernetes));
    },
    (app) => {
      registerRemoteNodes(app, config.remoteNodes);
    },
  ],
});
await server.app.listen({ host: config.host, port: config.port });
log(`kubedag API server listening on http://${config.host}:${String(config.port)}${API_PREFIX} (namespace ${server.cache.namespace})`);
const shutdown = (signal: string): void => {
  log(`${signal}: shutting down`);
  void server.close().then(() => process.exit(0));
};
process.once('SIGTERM', () => {
  shutdown('SIGTERM');
});
process.once('SIGINT', () => {
  shutdown('SIGINT');
});

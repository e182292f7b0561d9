/** The Kubedag API server: `node apiserver/main.ts [flags]` (`--help`, or API_SETTINGS and AUTH_SETTINGS in config.ts, list flags and KUBEDAG_* variables). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AuthenticationV1Api, AuthorizationV1Api } from '@kubernetes/client-node';
import { createLogger, errorMessage } from '../core/log.ts';
import { renderHelp } from '../core/settings-help.ts';
import { helpWanted, settingLabel } from '../core/settings.ts';
import { exitWith, startFailure } from '../core/start-failure.ts';
import { openAuditLog } from './audit.ts';
import { authOptions, registerAuth } from './auth.ts';
import { OidcProvider } from './oidc/provider.ts';
import { shareSignOuts, type SignedOutSessions } from './oidc/signed-out.ts';
import { API_HELP, API_SETTINGS, parseApiConfig, type ApiConfig } from './config.ts';
import { API_PREFIX } from './paths.ts';
import { registerRemoteNodes } from './remote.ts';
import { kubeConfig, servedNamespaces, startServer, type Server } from './server.ts';

const argv = process.argv.slice(2);
// Before anything is checked, read or started: help is for when the settings are not known yet.
if (helpWanted(argv)) {
  process.stdout.write(renderHelp(API_HELP));
  process.exit(0);
}
const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '../package.json'), 'utf8')) as {
  version: string;
};

let config: ApiConfig;
try {
  config = parseApiConfig(argv, process.env);
} catch (error) {
  // No logger yet: its own settings may be what is wrong. The message names the setting.
  process.stderr.write(`kubedag API server: ${errorMessage(error)}\n`);
  process.exit(1);
}
const logger = createLogger('apiserver', config.log);
const audit = openAuditLog(config.audit, (error) => {
  logger.error({ err: error }, `cannot write the audit log: ${error.message}`);
});
// logrotate moves the file, then sends SIGHUP: the trail goes on in a new file of the same name.
process.on('SIGHUP', () => {
  audit.reopen();
});
const listen = { port: config.port, setting: settingLabel(API_SETTINGS.port) };
async function start(): Promise<Server> {
  // Discovered before the server starts: a provider that cannot be reached is a start error, not a 500 at sign-in.
  const oidc = config.auth.oidc === undefined ? undefined : await OidcProvider.discover(config.auth.oidc);
  const signOuts = await sharedSignOuts(oidc);
  const started = await startServer({
    config,
    version,
    logger,
    audit,
    plugins: [
      (app, { kc, namespace }) => {
        const kubernetes = {
          authentication: kc.makeApiClient(AuthenticationV1Api),
          authorization: kc.makeApiClient(AuthorizationV1Api),
          namespace,
        };
        registerAuth(app, authOptions(config.auth, kubernetes, oidc));
      },
      (app) => {
        registerRemoteNodes(app, config.remoteNodes);
      },
    ],
  });
  if (signOuts !== undefined) {
    started.app.addHook('onClose', async () => {
      await signOuts.stop();
    });
  }
  await started.app.listen({ host: config.host, port: config.port });
  return started;
}

/** Sign-outs shared with the other replicas, in the namespace of the operator's Lease (the API server's own). */
async function sharedSignOuts(oidc: OidcProvider | undefined): Promise<SignedOutSessions | undefined> {
  if (oidc === undefined) return undefined;
  const kc = kubeConfig(config.kubeconfig);
  return shareSignOuts(oidc, kc, servedNamespaces(config, kc).leaseNamespace, logger);
}
const server = await start().catch((error: unknown) =>
  exitWith(logger, `cannot start: ${startFailure(error, listen)}`),
);
// Port 0 asks for any free port: say the one that was given.
const address = server.app.server.address();
const port = typeof address === 'object' && address !== null ? address.port : config.port;
logger.info(
  { version, namespace: server.cache.namespace, port },
  `kubedag API server listening on http://${config.host}:${String(port)}${API_PREFIX} (namespace ${server.cache.namespace})`,
);
const shutdown = (signal: string): void => {
  logger.info({ signal }, `${signal}: shutting down`);
  void server.close().then(() => {
    logger.flush();
    process.exit(0);
  });
};
process.once('SIGTERM', () => {
  shutdown('SIGTERM');
});
process.once('SIGINT', () => {
  shutdown('SIGINT');
});

/** The Kubedag operator: `node operator/main.ts [flags]` (see config.ts for flags and KUBEDAG_* variables). */
import { createLogger, errorMessage } from '../core/log.ts';
import { exitWith, startFailure } from '../core/start-failure.ts';
import { parseConfig, type OperatorConfig } from './config.ts';
import { Operator } from './operator.ts';

let config: OperatorConfig;
try {
  config = parseConfig(process.argv.slice(2), process.env);
} catch (error) {
  // No logger yet: its own settings may be what is wrong. The message names the setting.
  process.stderr.write(`kubedag operator: ${errorMessage(error)}\n`);
  process.exit(1);
}
const log = createLogger('operator', config.log);
const operator = new Operator({ config, log });
try {
  await operator.start();
  log.info({ namespaces: config.namespaces.length === 0 ? 'all' : config.namespaces.join(','), httpPort: config.httpPort }, `kubedag operator started; health, metrics and logs on port ${String(config.httpPort)}`);
} catch (error) {
  await exitWith(log, `cannot start: ${startFailure(error, { port: config.httpPort, setting: '--http-port or KUBEDAG_HTTP_PORT' })}`);
}
const shutdown = (signal: string): void => {
  log.info({ signal }, 'shutting down');
  void operator.stop().then(() => {
    log.flush();
    process.exit(0);
  });
};
process.once('SIGTERM', () => {
  shutdown('SIGTERM');
});
process.once('SIGINT', () => {
  shutdown('SIGINT');
});

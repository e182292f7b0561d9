/** The Kubedag operator: `node operator/main.ts [flags]` (see config.ts for flags and KUBEDAG_* variables). */
import { createLogger } from '../core/log.ts';
import { parseConfig } from './config.ts';
import { Operator } from './operator.ts';

const config = parseConfig(process.argv.slice(2), process.env);
const log = createLogger('operator', config.log);
const operator = new Operator({ config, log });
await operator.start();
log.info({ namespaces: config.namespaces.length === 0 ? 'all' : config.namespaces.join(',') }, 'kubedag operator started');
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

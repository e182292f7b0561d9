/** The Kubedag operator: `node operator/main.ts [flags]` (see config.ts for flags and KUBEDAG_* variables). */
import { parseConfig } from './config.ts';
import { Operator } from './operator.ts';

const log = (message: string): void => void process.stdout.write(`${new Date().toISOString()} ${message}\n`);

const config = parseConfig(process.argv.slice(2), process.env);
const operator = new Operator({ config, log });
await operator.start();
log(`kubedag operator started (namespaces: ${config.namespaces.length === 0 ? 'all' : config.namespaces.join(',')})`);
const shutdown = (signal: string): void => {
  log(`${signal}: shutting down`);
  void operator.stop().then(() => process.exit(0));
};
process.once('SIGTERM', () => {
  shutdown('SIGTERM');
});
process.once('SIGINT', () => {
  shutdown('SIGINT');
});

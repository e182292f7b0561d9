/** The Kubedag operator: `node operator/main.ts [flags]` (`--help`, or OPERATOR_SETTINGS in config.ts, lists flags and KUBEDAG_* variables). */
import { createLogger, errorMessage } from '../core/log.ts';
import { renderHelp } from '../core/settings-help.ts';
import { helpWanted, settingLabel } from '../core/settings.ts';
import { exitWith, startFailure } from '../core/start-failure.ts';
import { OPERATOR_HELP, OPERATOR_SETTINGS, parseConfig, type OperatorConfig } from './config.ts';
import { Operator } from './operator.ts';

const argv = process.argv.slice(2);
// Before anything is checked or started: help is for when the settings are not known yet.
if (helpWanted(argv)) {
  process.stdout.write(renderHelp(OPERATOR_HELP));
  process.exit(0);
}
let config: OperatorConfig;
try {
  config = parseConfig(argv, process.env);
} catch (error) {
  // No logger yet: its own settings may be what is wrong. The message names the setting.
  process.stderr.write(`kubedag operator: ${errorMessage(error)}\n`);
  process.exit(1);
}
const log = createLogger('operator', config.log);
const operator = new Operator({ config, log });
try {
  await operator.start();
  log.info(
    { namespaces: config.namespaces.length === 0 ? 'all' : config.namespaces.join(','), httpPort: config.httpPort },
    `kubedag operator started; health, metrics and logs on port ${String(config.httpPort)}`,
  );
} catch (error) {
  await exitWith(
    log,
    `cannot start: ${startFailure(error, { port: config.httpPort, setting: settingLabel(OPERATOR_SETTINGS.httpPort) })}`,
  );
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

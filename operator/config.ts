/**
 * The operator's configuration, read once at start from flags and `KUBEDAG_*` variables
 * (flags win). Every setting has a documented default.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_LOG_SETTINGS, LOG_FLAGS, logSettingsFrom, type LogSettings } from '../core/log.ts';

export interface OperatorConfig {
  /** Namespaces to watch; empty means all. */
  readonly namespaces: readonly string[];
  /** Image for steps that name none (their own `container`/docker image wins). */
  readonly defaultStepImage: string;
  /** Directory of the default log store. */
  readonly logDir: string;
  /** Runs reconciled at once. */
  readonly workers: number;
  /** Most running step Pods per run (0: no cap beyond maxActiveSteps). */
  readonly maxPodsPerRun: number;
  /** Most running step Pods of all runs together (0: no cap). */
  readonly maxPods: number;
  /** Events for every step start and end and plain successes too (each costs an API write). */
  readonly routineEvents: boolean;
  /** Where the leader Lease lives. */
  readonly leaseNamespace: string;
  readonly leaseName: string;
  /** How long a leader's Lease lasts without renewal; a successor waits this long after a crash. */
  readonly leaseDurationSeconds: number;
  /** Time zone of schedule expressions without CRON_TZ. */
  readonly scheduleZone: string;
  /** Address of the internal HTTP endpoint (logs, metrics, health). */
  readonly httpPort: number;
  readonly kubeconfig?: string;
  /** Level and format of the operator's own log (JSON lines unless `pretty`). */
  readonly log: LogSettings;
}

const DEFAULTS: OperatorConfig = {
  namespaces: [],
  defaultStepImage: 'busybox:1.36',
  logDir: '/var/lib/kubedag/logs',
  workers: 8,
  maxPodsPerRun: 0,
  maxPods: 0,
  routineEvents: false,
  leaseNamespace: 'default',
  leaseName: 'kubedag-operator',
  leaseDurationSeconds: 10,
  httpPort: 8081,
  scheduleZone: 'UTC',
  log: DEFAULT_LOG_SETTINGS,
};

function zone(name: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
  } catch {
    throw new Error(`schedule-zone: unknown time zone "${name}"`);
  }
  return name;
}

export function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv): OperatorConfig {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      namespaces: { type: 'string' },
      'default-step-image': { type: 'string' },
      'log-dir': { type: 'string' },
      workers: { type: 'string' },
      'max-pods-per-run': { type: 'string' },
      'max-pods': { type: 'string' },
      'routine-events': { type: 'string' },
      'lease-namespace': { type: 'string' },
      'lease-name': { type: 'string' },
      'lease-duration-seconds': { type: 'string' },
      'http-port': { type: 'string' },
      'schedule-zone': { type: 'string' },
      kubeconfig: { type: 'string' },
      ...LOG_FLAGS,
    },
  });
  const pick = (flag: string | undefined, name: string): string | undefined => flag ?? env[`KUBEDAG_${name}`];
  const number = (text: string | undefined, fallback: number, name: string): number => {
    if (text === undefined || text === '') return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, not "${text}"`);
    return value;
  };
  const flag = (text: string | undefined, fallback: boolean, name: string): boolean => {
    if (text === undefined || text === '') return fallback;
    const value = { true: true, yes: true, '1': true, false: false, no: false, '0': false }[text.toLowerCase()];
    if (value === undefined) throw new Error(`${name} must be true or false, not "${text}"`);
    return value;
  };
  const namespaces = pick(values.namespaces, 'NAMESPACES');
  const kubeconfig = pick(values.kubeconfig, 'KUBECONFIG') ?? env.KUBECONFIG;
  return {
    namespaces: namespaces === undefined || namespaces === '' ? DEFAULTS.namespaces : namespaces.split(',').map((n) => n.trim()),
    defaultStepImage: pick(values['default-step-image'], 'DEFAULT_STEP_IMAGE') ?? DEFAULTS.defaultStepImage,
    logDir: pick(values['log-dir'], 'LOG_DIR') ?? DEFAULTS.logDir,
    workers: Math.max(1, number(pick(values.workers, 'WORKERS'), DEFAULTS.workers, 'workers')),
    maxPodsPerRun: number(pick(values['max-pods-per-run'], 'MAX_PODS_PER_RUN'), DEFAULTS.maxPodsPerRun, 'max-pods-per-run'),
    maxPods: number(pick(values['max-pods'], 'MAX_PODS'), DEFAULTS.maxPods, 'max-pods'),
    routineEvents: flag(pick(values['routine-events'], 'ROUTINE_EVENTS'), DEFAULTS.routineEvents, 'routine-events'),
    leaseNamespace: pick(values['lease-namespace'], 'LEASE_NAMESPACE') ?? DEFAULTS.leaseNamespace,
    leaseName: pick(values['lease-name'], 'LEASE_NAME') ?? DEFAULTS.leaseName,
    leaseDurationSeconds: Math.max(1, number(pick(values['lease-duration-seconds'], 'LEASE_DURATION_SECONDS'), DEFAULTS.leaseDurationSeconds, 'lease-duration-seconds')),
    httpPort: number(pick(values['http-port'], 'HTTP_PORT'), DEFAULTS.httpPort, 'http-port'),
    scheduleZone: zone(pick(values['schedule-zone'], 'SCHEDULE_ZONE') ?? DEFAULTS.scheduleZone),
    log: logSettingsFrom(values, env),
    ...(kubeconfig === undefined ? {} : { kubeconfig }),
  };
}

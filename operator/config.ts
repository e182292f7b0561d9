/**
 * The operator's configuration, read once at start from flags and `KUBEDAG_*` variables
 * (flags win). Every setting has a documented default.
 */
import { parseArgs } from 'node:util';
import { isNegative, parseQuantity } from '../core/dag/quantity.ts';
import { DEFAULT_LOG_SETTINGS, LOG_FLAGS, logSettingsFrom, type LogSettings } from '../core/log.ts';
import { DEFAULT_LOG_DIR, LOG_STORE_FLAGS, logStoreFrom, type LogStoreConfig } from './logs/store-config.ts';

export interface OperatorConfig {
  /** Namespaces to watch; empty means all. */
  readonly namespaces: readonly string[];
  /** Where step logs are archived: a directory (the default) or an S3-compatible bucket (logs/store-config.ts). */
  readonly logStore: LogStoreConfig;
  /** Runs reconciled at once. */
  readonly workers: number;
  /** Most running step Pods per run (0: no cap beyond maxActiveSteps). */
  readonly maxPodsPerRun: number;
  /** Most running step Pods of all runs together (0: no cap). */
  readonly maxPods: number;
  /** Events for every step start and end and plain successes too (each costs an API write). */
  readonly routineEvents: boolean;
  /**
   * How long a mail that attaches step logs waits for a log not yet archived, after the run (or,
   * for mailOnError, the step) ended; then it goes with the missing logs named.
   */
  readonly mailLogWaitSeconds: number;
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
  /** What every step Pod gets unless its DAG says otherwise: workspace and security defaults. */
  readonly steps: StepDefaults;
}

/** The per-run workspace claim (issue 12): a DAG's `kubernetes.workspace` overrides each field. */
export interface WorkspaceDefaults {
  readonly enabled: boolean;
  /** Empty: the cluster's default StorageClass. */
  readonly storageClassName: string;
  readonly size: string;
  readonly accessMode: 'ReadWriteOnce' | 'ReadWriteMany';
}

export interface StepDefaults {
  /** Image for steps that name none (their own `kubernetes`, `container` or docker image wins). */
  readonly image: string;
  /** Image of http, jq, mail and ssh steps: Kubedag's own, which has `kubedag-step` on its PATH. */
  readonly runnerImage: string;
  /**
   * The ClusterRole (pods get, pods/exec create and get, pods/log get) that a run's exec
   * ServiceAccount is bound to in the run's namespace, for steps that exec into containers.
   * The operator holds `bind` on this one role only.
   */
  readonly execRole: string;
  readonly workspace: WorkspaceDefaults;
  /**
   * `restricted`: step Pods meet the Pod Security Standard of that name unless their DAG relaxes
   * it (non-root `user`, no privilege escalation, no capabilities, RuntimeDefault seccomp).
   * `none`: the image's own user and the runtime's defaults.
   */
  readonly security: 'restricted' | 'none';
  /** The uid (and gid, fsGroup) restricted step Pods run as when their DAG names none. */
  readonly user: number;
}

const DEFAULTS: OperatorConfig = {
  namespaces: [],
  logStore: { kind: 'directory', dir: DEFAULT_LOG_DIR },
  workers: 8,
  maxPodsPerRun: 0,
  maxPods: 0,
  routineEvents: false,
  mailLogWaitSeconds: 120,
  leaseNamespace: 'default',
  leaseName: 'kubedag-operator',
  leaseDurationSeconds: 10,
  httpPort: 8081,
  scheduleZone: 'UTC',
  log: DEFAULT_LOG_SETTINGS,
  steps: {
    image: 'busybox:1.36',
    // Kubedag's image at the version of this operator (the chart passes its own image).
    runnerImage: 'ghcr.io/kubedag/kubedag:0.1.0',
    execRole: 'kubedag-step-exec',
    workspace: { enabled: true, storageClassName: '', size: '1Gi', accessMode: 'ReadWriteOnce' },
    security: 'restricted',
    user: 1000,
  },
};

function zone(name: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
  } catch {
    throw new Error(`schedule-zone: unknown time zone "${name}"`);
  }
  return name;
}

function oneOf<T extends string>(text: string, allowed: readonly T[], name: string): T {
  if ((allowed as readonly string[]).includes(text)) return text as T;
  throw new Error(`${name} must be one of ${allowed.join(', ')}, not "${text}"`);
}

/** A storage size as Kubernetes writes it (`1Gi`, `500M`, `2e9`); checked here so a typo fails at start. */
function quantity(text: string, name: string): string {
  const parsed = parseQuantity(text);
  if (text === text.trim() && typeof parsed !== 'string' && !isNegative(parsed)) return text;
  throw new Error(`${name} must be a Kubernetes quantity such as 1Gi, not "${text}"`);
}

export function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv): OperatorConfig {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      namespaces: { type: 'string' },
      'default-step-image': { type: 'string' },
      'runner-image': { type: 'string' },
      'step-exec-role': { type: 'string' },
      workers: { type: 'string' },
      'max-pods-per-run': { type: 'string' },
      'max-pods': { type: 'string' },
      'routine-events': { type: 'string' },
      'mail-log-wait-seconds': { type: 'string' },
      'lease-namespace': { type: 'string' },
      'lease-name': { type: 'string' },
      'lease-duration-seconds': { type: 'string' },
      'http-port': { type: 'string' },
      'schedule-zone': { type: 'string' },
      kubeconfig: { type: 'string' },
      workspace: { type: 'string' },
      'workspace-storage-class': { type: 'string' },
      'workspace-size': { type: 'string' },
      'workspace-access-mode': { type: 'string' },
      'step-security': { type: 'string' },
      'step-user': { type: 'string' },
      ...LOG_FLAGS,
      ...LOG_STORE_FLAGS,
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
  const text = (value: string | undefined, name: string, fallback: string): string => pick(value, name) ?? fallback;
  const namespaces = pick(values.namespaces, 'NAMESPACES');
  const kubeconfig = pick(values.kubeconfig, 'KUBECONFIG') ?? env.KUBECONFIG;
  return {
    namespaces: namespaces === undefined || namespaces === '' ? DEFAULTS.namespaces : namespaces.split(',').map((n) => n.trim()),
    logStore: logStoreFrom(values, env),
    workers: Math.max(1, number(pick(values.workers, 'WORKERS'), DEFAULTS.workers, 'workers')),
    maxPodsPerRun: number(pick(values['max-pods-per-run'], 'MAX_PODS_PER_RUN'), DEFAULTS.maxPodsPerRun, 'max-pods-per-run'),
    maxPods: number(pick(values['max-pods'], 'MAX_PODS'), DEFAULTS.maxPods, 'max-pods'),
    routineEvents: flag(pick(values['routine-events'], 'ROUTINE_EVENTS'), DEFAULTS.routineEvents, 'routine-events'),
    mailLogWaitSeconds: number(pick(values['mail-log-wait-seconds'], 'MAIL_LOG_WAIT_SECONDS'), DEFAULTS.mailLogWaitSeconds, 'mail-log-wait-seconds'),
    leaseNamespace: pick(values['lease-namespace'], 'LEASE_NAMESPACE') ?? DEFAULTS.leaseNamespace,
    leaseName: pick(values['lease-name'], 'LEASE_NAME') ?? DEFAULTS.leaseName,
    leaseDurationSeconds: Math.max(1, number(pick(values['lease-duration-seconds'], 'LEASE_DURATION_SECONDS'), DEFAULTS.leaseDurationSeconds, 'lease-duration-seconds')),
    httpPort: number(pick(values['http-port'], 'HTTP_PORT'), DEFAULTS.httpPort, 'http-port'),
    scheduleZone: zone(pick(values['schedule-zone'], 'SCHEDULE_ZONE') ?? DEFAULTS.scheduleZone),
    log: logSettingsFrom(values, env),
    steps: {
      image: pick(values['default-step-image'], 'DEFAULT_STEP_IMAGE') ?? DEFAULTS.steps.image,
      runnerImage: pick(values['runner-image'], 'RUNNER_IMAGE') ?? DEFAULTS.steps.runnerImage,
      execRole: text(values['step-exec-role'], 'STEP_EXEC_ROLE', DEFAULTS.steps.execRole),
      workspace: {
        enabled: flag(pick(values.workspace, 'WORKSPACE'), DEFAULTS.steps.workspace.enabled, 'workspace'),
        storageClassName: pick(values['workspace-storage-class'], 'WORKSPACE_STORAGE_CLASS') ?? DEFAULTS.steps.workspace.storageClassName,
        size: quantity(pick(values['workspace-size'], 'WORKSPACE_SIZE') ?? DEFAULTS.steps.workspace.size, 'workspace-size'),
        accessMode: oneOf(pick(values['workspace-access-mode'], 'WORKSPACE_ACCESS_MODE') ?? DEFAULTS.steps.workspace.accessMode, ['ReadWriteOnce', 'ReadWriteMany'] as const, 'workspace-access-mode'),
      },
      security: oneOf(pick(values['step-security'], 'STEP_SECURITY') ?? DEFAULTS.steps.security, ['restricted', 'none'] as const, 'step-security'),
      user: number(pick(values['step-user'], 'STEP_USER'), DEFAULTS.steps.user, 'step-user'),
    },
    ...(kubeconfig === undefined ? {} : { kubeconfig }),
  };
}

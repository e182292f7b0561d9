/**
 * The operator's configuration, read once at start from flags and `KUBEDAG_*` variables
 * (flags win). Every setting is declared once, in OPERATOR_SETTINGS, with its default and
 * description; `--help` prints that table.
 */
import { durationMs } from '../core/dag/otel.ts';
import { isNegative, parseQuantity } from '../core/dag/quantity.ts';
import type { HistoryStoreConfig } from '../core/history/open.ts';
import { HISTORY_SETTINGS, historyStoreFrom } from '../core/history/settings.ts';
import { POD_POLICY_SETTINGS } from '../core/policy/settings.ts';
import type { PolicyLevel } from '../core/policy/pod-standards.ts';
import { LOG_SETTINGS, type LogSettings } from '../core/log.ts';
import { parseSettings, setting, type SettingName } from '../core/settings.ts';
import type { HelpPage } from '../core/settings-help.ts';
import { ENQUEUE_BATCH } from './run/decide/enqueue-batch.ts';
import { LOG_STORE_SETTINGS, logStoreFrom, type LogStoreConfig } from './logs/store-config.ts';

export interface OperatorConfig {
  /** Namespaces to watch; empty means all. */
  readonly namespaces: readonly string[];
  /** Where step logs are archived: a directory (the default) or an S3-compatible bucket (logs/store-config.ts). */
  readonly logStore: LogStoreConfig;
  /** Where finished runs go once archived; undefined (`none`): they stay DAGRuns until retention. */
  readonly history: HistoryStoreConfig | undefined;
  /** How long after its end a finished run stays a DAGRun before it moves to the history store. */
  readonly archiveAfterMs: number;
  /** Runs reconciled at once. */
  readonly workers: number;
  /** Most running step Pods per run (0: no cap beyond maxActiveSteps). */
  readonly maxPodsPerRun: number;
  /** Most running step Pods of all runs together (0: no cap). */
  readonly maxPods: number;
  /** Most runs a `dag.enqueue` step over `parallel` items creates in one reconcile. */
  readonly enqueueBatch: number;
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
  /** The pod policy of namespaces without the label kubedag.io/pod-policy (docs/pod-policy.md). */
  readonly podPolicy: PolicyLevel;
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

const nonNegative = (text: string, s: SettingName): number => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${s.name} must be a non-negative integer, not "${text}"`);
  return value;
};

const truth = (text: string, s: SettingName): boolean => {
  const value = { true: true, yes: true, '1': true, false: false, no: false, '0': false }[text.toLowerCase()];
  if (value === undefined) throw new Error(`${s.name} must be true or false, not "${text}"`);
  return value;
};

const asIs = (text: string): string => text;

function zone(text: string, s: SettingName): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: text });
  } catch {
    throw new Error(`${s.name}: unknown time zone "${text}"`);
  }
  return text;
}

function oneOf<T extends string>(allowed: readonly T[]): (text: string, s: SettingName) => T {
  return (text, s) => {
    if ((allowed as readonly string[]).includes(text)) return text as T;
    throw new Error(`${s.name} must be one of ${allowed.join(', ')}, not "${text}"`);
  };
}

/** A storage size as Kubernetes writes it (`1Gi`, `500M`, `2e9`); checked here so a typo fails at start. */
function quantity(text: string, s: SettingName): string {
  const parsed = parseQuantity(text);
  if (text === text.trim() && typeof parsed !== 'string' && !isNegative(parsed)) return text;
  throw new Error(`${s.name} must be a Kubernetes quantity such as 1Gi, not "${text}"`);
}

/** A Go duration (`1h`, `30m`, `0s`) in ms; a negative or unreadable one is refused at start. */
function durationOf(text: string, s: SettingName): number {
  const ms = durationMs(text);
  if (ms === undefined) throw new Error(`${s.name} must be a duration such as 1h, 30m or 0s, not "${text}"`);
  return ms;
}

/** Kept as the text given (help shows the default as written); parseConfig converts it. */
function duration(text: string, s: SettingName): string {
  durationOf(text, s);
  return text;
}

const ACCESS_MODES = ['ReadWriteOnce', 'ReadWriteMany'] as const;
const SECURITY = ['restricted', 'none'] as const;

/**
 * Every operator setting, the one place each is declared: parseConfig reads them from it and
 * `--help` prints it (core/settings.ts). The order is the order of the help.
 */
export const OPERATOR_SETTINGS = {
  namespaces: setting<readonly string[]>({
    flag: 'namespaces',
    group: 'Runs',
    value: 'LIST',
    default: [],
    defaultText: 'all',
    description: 'Namespaces to watch, comma-separated.',
    read: (text) => text.split(',').map((n) => n.trim()),
  }),
  workers: setting({
    flag: 'workers',
    group: 'Runs',
    value: 'N',
    default: 8,
    description: 'Runs reconciled at once (at least 1).',
    read: (text, s) => Math.max(1, nonNegative(text, s)),
  }),
  maxPodsPerRun: setting({
    flag: 'max-pods-per-run',
    group: 'Runs',
    value: 'N',
    default: 256,
    description:
      "Most running step Pods per run, whatever its maxActiveSteps (0: no cap). A running step's record stays in the run's status, so this also bounds the DAGRun.",
    read: nonNegative,
  }),
  maxPods: setting({
    flag: 'max-pods',
    group: 'Runs',
    value: 'N',
    default: 0,
    defaultText: '0 (no cap)',
    description: 'Most running step Pods of all runs together.',
    read: nonNegative,
  }),
  enqueueBatch: setting({
    flag: 'enqueue-batch',
    group: 'Runs',
    value: 'N',
    default: ENQUEUE_BATCH,
    description:
      'Most runs a dag.enqueue step over parallel items creates in one reconcile (at least 1); it goes on with the rest in the next ones.',
    read: (text, s) => Math.max(1, nonNegative(text, s)),
  }),
  routineEvents: setting({
    flag: 'routine-events',
    group: 'Runs',
    value: 'true|false',
    default: false,
    description: 'An Event for every step start and end and plain successes too (each costs an API write).',
    read: truth,
  }),
  mailLogWaitSeconds: setting({
    flag: 'mail-log-wait-seconds',
    group: 'Runs',
    value: 'N',
    default: 120,
    description:
      'How long a mail that attaches step logs waits for a log not yet archived, after the run (or the step) ended; then it goes with the missing logs named.',
    read: nonNegative,
  }),
  scheduleZone: setting({
    flag: 'schedule-zone',
    group: 'Runs',
    value: 'ZONE',
    default: 'UTC',
    description: 'Time zone of schedule expressions without CRON_TZ.',
    read: zone,
  }),
  image: setting({
    flag: 'default-step-image',
    group: 'Steps',
    value: 'IMAGE',
    default: 'busybox:1.36',
    description: "Image of steps that name none (a step's own kubernetes, container or docker image wins).",
    read: asIs,
  }),
  // Kubedag's image at the version of this operator (the chart passes its own image).
  runnerImage: setting({
    flag: 'runner-image',
    group: 'Steps',
    value: 'IMAGE',
    default: 'ghcr.io/kubedag/kubedag:0.1.0',
    description: 'Image of http, jq, mail and ssh steps; it must have kubedag-step on its PATH.',
    read: asIs,
  }),
  execRole: setting({
    flag: 'step-exec-role',
    group: 'Steps',
    value: 'ROLE',
    default: 'kubedag-step-exec',
    description: "The ClusterRole a run's exec ServiceAccount is bound to, for steps that exec into containers.",
    read: asIs,
  }),
  security: setting<(typeof SECURITY)[number]>({
    flag: 'step-security',
    group: 'Steps',
    values: SECURITY,
    default: 'restricted',
    description:
      "restricted: step Pods meet that Pod Security Standard unless their DAG relaxes it; none: the image's user and the runtime's defaults.",
    read: oneOf(SECURITY),
  }),
  user: setting({
    flag: 'step-user',
    group: 'Steps',
    value: 'UID',
    default: 1000,
    description: 'The uid (and gid, fsGroup) restricted step Pods run as when their DAG names none.',
    read: nonNegative,
  }),
  ...POD_POLICY_SETTINGS,
  workspace: setting({
    flag: 'workspace',
    group: 'Workspace',
    value: 'true|false',
    default: true,
    description: "A workspace volume claim per run; a DAG's kubernetes.workspace overrides each workspace setting.",
    read: truth,
  }),
  workspaceStorageClass: setting({
    flag: 'workspace-storage-class',
    group: 'Workspace',
    value: 'CLASS',
    default: '',
    defaultText: "the cluster's default StorageClass",
    description: 'StorageClass of the workspace claim.',
    read: asIs,
  }),
  workspaceSize: setting({
    flag: 'workspace-size',
    group: 'Workspace',
    value: 'QUANTITY',
    default: '1Gi',
    description: 'Size of the workspace claim.',
    read: quantity,
  }),
  workspaceAccessMode: setting<(typeof ACCESS_MODES)[number]>({
    flag: 'workspace-access-mode',
    group: 'Workspace',
    values: ACCESS_MODES,
    default: 'ReadWriteOnce',
    description: 'Access mode of the workspace claim.',
    read: oneOf(ACCESS_MODES),
  }),
  ...LOG_STORE_SETTINGS,
  ...HISTORY_SETTINGS,
  archiveAfter: setting({
    flag: 'archive-after',
    group: 'History',
    value: 'DURATION',
    default: '1h',
    description:
      'How long a finished run (with its sub runs) stays a DAGRun before it moves to the history store, once nothing is owed after its end. Unused with history-store none.',
    read: duration,
  }),
  leaseNamespace: setting({
    flag: 'lease-namespace',
    group: 'Leader election',
    value: 'NAMESPACE',
    default: 'default',
    description: 'Namespace of the leader Lease.',
    read: asIs,
  }),
  leaseName: setting({
    flag: 'lease-name',
    group: 'Leader election',
    value: 'NAME',
    default: 'kubedag-operator',
    description: 'Name of the leader Lease.',
    read: asIs,
  }),
  leaseDurationSeconds: setting({
    flag: 'lease-duration-seconds',
    group: 'Leader election',
    value: 'N',
    default: 10,
    description:
      "How long a leader's Lease lasts without renewal (at least 1); a successor waits this long after a crash.",
    read: (text, s) => Math.max(1, nonNegative(text, s)),
  }),
  httpPort: setting({
    flag: 'http-port',
    group: 'Process',
    value: 'PORT',
    default: 8081,
    description: 'Port of the internal HTTP endpoint: step logs for the API server, /metrics, /healthz and /readyz.',
    read: nonNegative,
  }),
  kubeconfig: setting<string | undefined>({
    flag: 'kubeconfig',
    group: 'Process',
    value: 'PATH',
    variables: ['KUBEDAG_KUBECONFIG', 'KUBECONFIG'],
    default: undefined,
    defaultText: 'in-cluster, else ~/.kube/config',
    description: 'The kubeconfig file to reach the cluster with.',
    read: asIs,
  }),
  ...LOG_SETTINGS,
};

/** What `--help` prints. */
export const OPERATOR_HELP: HelpPage = {
  usage: 'node operator/main.ts [--flag=value ...]   (the image: node dist/operator.mjs)',
  about:
    'The Kubedag operator: runs the DAGRuns of the watched namespaces as step Pods, one replica leading at a time.',
  settings: OPERATOR_SETTINGS,
  notes: ['A wrong setting stops the start with a message that names it, and exit status 1.'],
};

export function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv): OperatorConfig {
  const values = parseSettings(OPERATOR_SETTINGS, argv, env);
  return {
    namespaces: values.namespaces,
    logStore: logStoreFrom(values),
    history: historyStoreFrom(values),
    archiveAfterMs: durationOf(values.archiveAfter, OPERATOR_SETTINGS.archiveAfter),
    workers: values.workers,
    maxPodsPerRun: values.maxPodsPerRun,
    maxPods: values.maxPods,
    enqueueBatch: values.enqueueBatch,
    routineEvents: values.routineEvents,
    mailLogWaitSeconds: values.mailLogWaitSeconds,
    leaseNamespace: values.leaseNamespace,
    leaseName: values.leaseName,
    leaseDurationSeconds: values.leaseDurationSeconds,
    httpPort: values.httpPort,
    scheduleZone: values.scheduleZone,
    log: { level: values.logLevel, format: values.logFormat },
    podPolicy: values.podPolicy,
    steps: {
      image: values.image,
      runnerImage: values.runnerImage,
      execRole: values.execRole,
      workspace: {
        enabled: values.workspace,
        storageClassName: values.workspaceStorageClass,
        size: values.workspaceSize,
        accessMode: values.workspaceAccessMode,
      },
      security: values.security,
      user: values.user,
    },
    ...(values.kubeconfig === undefined ? {} : { kubeconfig: values.kubeconfig }),
  };
}

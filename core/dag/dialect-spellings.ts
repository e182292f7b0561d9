/**
 * The one table of Dagu 2.x spellings (v2.15.1) that have a Dagu 1.x counterpart, by the
 * mapping they appear in, the 2.x keys without a twin that are read or refused, and the
 * executor settings 2.x spells otherwise. dialect.ts decides a file's dialect and rewrites a
 * 2.x document into the 1.x shape from these tables; see docs/decisions/2026-11-29-dagu-2x-
 * dialect.md and 2026-11-29-dagu-2x-actions-values.md.
 */

/** The mappings of a DAG document whose keys differ between the dialects. */
export type Scope =
  | 'root'
  | 'step'
  | 'handlerOn'
  | 'retryPolicy'
  | 'repeatPolicy'
  | 'continueOn'
  | 'parallel'
  | 'runConfig'
  | 'mailOn'
  | 'mail'
  | 'container'
  | 'ssh'
  | 'precondition';

const POLICY = { interval_sec: 'intervalSec', exit_code: 'exitCode', max_interval_sec: 'maxIntervalSec' };

/** 2.x key -> 1.x key, per mapping. Keys spelled alike in both dialects are not listed. */
export const SPELLINGS: Readonly<Record<Scope, Readonly<Record<string, string>>>> = {
  root: {
    working_dir: 'workingDir',
    skip_if_successful: 'skipIfSuccessful',
    log_dir: 'logDir',
    handler_on: 'handlerOn',
    mail_on: 'mailOn',
    error_mail: 'errorMail',
    info_mail: 'infoMail',
    wait_mail: 'waitMail',
    timeout_sec: 'timeoutSec',
    delay_sec: 'delaySec',
    restart_wait_sec: 'restartWaitSec',
    hist_retention_days: 'histRetentionDays',
    hist_retention_runs: 'histRetentionRuns',
    retry_policy: 'retryPolicy',
    catchup_window: 'catchupWindow',
    overlap_policy: 'overlapPolicy',
    max_active_runs: 'maxActiveRuns',
    max_active_steps: 'maxActiveSteps',
    max_clean_up_time_sec: 'maxCleanUpTimeSec',
    max_output_size: 'maxOutputSize',
    run_config: 'runConfig',
    worker_selector: 'workerSelector',
    registry_auths: 'registryAuths',
  },
  step: {
    working_dir: 'workingDir',
    shell_packages: 'shellPackages',
    continue_on: 'continueOn',
    retry_policy: 'retryPolicy',
    repeat_policy: 'repeatPolicy',
    mail_on_error: 'mailOnError',
    signal_on_stop: 'signalOnStop',
    worker_selector: 'workerSelector',
    timeout_sec: 'timeoutSec',
  },
  handlerOn: { abort: 'cancel' },
  retryPolicy: POLICY,
  repeatPolicy: POLICY,
  continueOn: { exit_code: 'exitCode', mark_success: 'markSuccess' },
  parallel: { max_concurrent: 'maxConcurrent' },
  runConfig: { disable_param_edit: 'disableParamEdit', disable_run_id_edit: 'disableRunIdEdit' },
  mailOn: {},
  mail: { attach_logs: 'attachLogs' },
  container: {
    pull_policy: 'pullPolicy',
    keep_container: 'keepContainer',
    wait_for: 'waitFor',
    log_pattern: 'logPattern',
    restart_policy: 'restartPolicy',
    working_dir: 'workingDir',
  },
  ssh: { strict_host_key: 'strictHostKey', known_host_file: 'knownHostFile', shell_args: 'shellArgs' },
  precondition: {},
};

/** Under which (1.x-spelled) key of a mapping another mapping of a listed scope sits. */
export const CHILD_SCOPES: Readonly<Partial<Record<Scope, Readonly<Record<string, Scope>>>>> = {
  root: {
    handlerOn: 'handlerOn',
    runConfig: 'runConfig',
    mailOn: 'mailOn',
    errorMail: 'mail',
    infoMail: 'mail',
    waitMail: 'mail',
    container: 'container',
    ssh: 'ssh',
    preconditions: 'precondition',
    retryPolicy: 'retryPolicy',
  },
  step: {
    preconditions: 'precondition',
    retryPolicy: 'retryPolicy',
    repeatPolicy: 'repeatPolicy',
    continueOn: 'continueOn',
    parallel: 'parallel',
  },
};

/** Keys only a 1.x file writes besides the 1.x side of SPELLINGS (2.x removed them). */
export const ONE_X_ONLY: Readonly<Partial<Record<Scope, readonly string[]>>> = {
  root: ['precondition'],
  step: ['executor', 'precondition', 'dir'],
  container: ['workDir'],
};

/** 2.x keys without a 1.x twin that this slice reads (folded into other keys by dialect.ts). */
export const TWO_X_ONLY: Readonly<Partial<Record<Scope, readonly string[]>>> = {
  root: ['shell_args', 'consts', 'defaults', 'labels', 'artifacts', 's3', 'resources', 'log_output'],
  step: [
    'shell_args',
    'action',
    'exec',
    'outputs',
    'approval',
    'enqueue',
    'container',
    'log_output',
    'output_schema',
    'value',
    'routes',
  ],
  precondition: ['negate', 'eval'],
  handlerOn: ['init', 'wait'],
  mailOn: ['wait'],
};

/**
 * 2.x keys Kubedag does not read, each with the feature it stands for. The names are literal
 * types so that dialect.ts can check each has its reason in dialect-refusal.ts DELIBERATE (this
 * file imports nothing: the UI has a copy of it).
 */
export const REFUSED_FEATURES = {
  root: {
    step_types: 'step_types (custom step types)',
    actions: 'actions (custom action packages)',
    webhook: 'webhook',
    llm: 'llm (LLM settings)',
    redis: 'redis',
    harness: 'harness',
    harnesses: 'harnesses',
    tools: 'tools',
    tasks: 'tasks (agent tasks)',
  },
  step: {
    inputs: 'inputs (build inputs)',
    foreach: 'foreach on a handler',
    llm: 'llm (LLM steps)',
    messages: 'messages (LLM chat steps)',
    dependencies: 'dependencies (files beside the DAG)',
  },
  container: {
    exec: 'container.exec (an existing container)',
    healthcheck: 'container.healthcheck',
    shell: "container.shell (a shell around exec'd commands)",
  },
} as const;

/** REFUSED_FEATURES as a table to look keys up in. */
export const REFUSED: Readonly<Partial<Record<Scope, Readonly<Record<string, string>>>>> = REFUSED_FEATURES;

/** 2.x keys that cannot sit beside `run:` (Dagu's rule: run replaces them). */
export const NOT_WITH_RUN = [
  'call',
  'command',
  'config',
  'exec',
  'llm',
  'messages',
  'params',
  'routes',
  'script',
  'shell',
  'shell_args',
  'shell_packages',
  'type',
  'value',
  'action',
];

/** The only keys `with:` takes on a `run:` step. */
export const RUN_WITH_KEYS = ['shell', 'shell_args', 'shell_packages'];

/**
 * 2.x settings keys of an executor (under a typed step's `with:`/`config:`) -> 1.x key, by the
 * executor's canonical type. 2.x spells them in snake_case; Kubedag's 1.x reader matches keys
 * case-insensitively, so only those whose letters differ are listed. The kubernetes executor's
 * settings are read in both spellings by kubernetes-schema.ts.
 */
export const SETTINGS_SPELLINGS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  docker: { container_name: 'containerName', auto_remove: 'autoRemove' },
  ssh: { strict_host_key: 'strictHostKey', known_host_file: 'knownHostFile', shell_args: 'shellArgs' },
  http: { skip_tls_verify: 'skipTLSVerify' },
};

/**
 * The executor types whose settings SETTINGS_SPELLINGS lists, by every name a step may give
 * them (executors.ts ALIASES; a test keeps the two in step). The dialect decision reads these
 * settings without the executor rules, so it has its own small copy.
 */
export const SETTINGS_TYPES: Readonly<Record<string, string>> = {
  docker: 'docker',
  container: 'docker',
  ssh: 'ssh',
  http: 'http',
};

/** 2.x executor settings without a 1.x counterpart, by canonical type, with the feature named. */
export const REFUSED_SETTINGS = {
  docker: { volumes: 'docker with.volumes (bind mounts of the host)' },
} as const;

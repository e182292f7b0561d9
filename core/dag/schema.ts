/**
 * The DAG file format as TypeBox definitions: the one source for the structural validator,
 * the TypeScript types of a file as written, and the JSON Schema that editors use
 * (`make generate` writes schemas/dag.schema.json from here).
 *
 * These types describe the file as a user writes it, with every accepted spelling. The
 * canonical model that the rest of Kubedag works with is in model.ts.
 */
import Type, { type Static, type TObject, type TProperties, type TSchema, type TString, type TBoolean, type TInteger, type TUnion, type TArray, type TRecord } from 'typebox';

function text(description: string): TString {
  return Type.String({ description });
}
function flag(description: string): TBoolean {
  return Type.Boolean({ description });
}
function count(description: string, minimum = 0): TInteger {
  return Type.Integer({ description, minimum });
}
function oneOrMany(description: string): TUnion<[TString, TArray<TString>]> {
  return Type.Union([Type.String(), Type.Array(Type.String())], { description });
}
/** A mapping with a fixed set of keys; any other key is an error. */
function object<P extends TProperties>(properties: P, description: string): TObject<P> {
  return Type.Object(properties, { description, additionalProperties: false });
}
const scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);
function stringMap(description: string): TRecord<'^.*$', typeof scalar> {
  return Type.Record(Type.String(), scalar, { description });
}

/** `[A=1, {B: 2}]` and `{A: 1}`: the two ways env and params list named values. */
const entryList = Type.Array(Type.Union([Type.String(), Type.Record(Type.String(), scalar)]));
const entryMap = Type.Record(Type.String(), scalar);

const envEntries = Type.Union(
  [entryList, entryMap],
  { description: 'Environment variables: a list of `NAME: value` mappings or `NAME=value` strings, or one mapping.' },
);

const condition = object(
  {
    condition: Type.Optional(text('Text to evaluate (variables expanded, backticks run in the step Pod).')),
    expected: Type.Optional(text('Expected value of the condition, exactly or as `re:<regex>`.')),
    command: Type.Optional(text('A command that meets the condition when it exits 0.')),
  },
  'A precondition.',
);
const preconditions = Type.Union([Type.String(), condition, Type.Array(Type.Union([Type.String(), condition]))], {
  description: 'Conditions that must hold before running; a bare string is a command that must exit 0.',
});

const backoff = Type.Union([Type.Boolean(), Type.Number()], {
  description: '`true` doubles the wait each time; a number greater than 1 is the multiplier.',
});
function intOrText(description: string): TUnion<[TInteger, TString]> {
  return Type.Union([Type.Integer(), Type.String()], { description });
}

const retryPolicy = object(
  {
    limit: Type.Optional(intOrText('Retries after the first failure (an integer or a variable).')),
    intervalSec: Type.Optional(intOrText('Seconds to wait before a retry (an integer or a variable).')),
    exitCode: Type.Optional(Type.Array(Type.Integer(), { description: 'Exit codes that are retried (default: any non-zero).' })),
    backoff: Type.Optional(backoff),
    maxIntervalSec: Type.Optional(count('Upper bound of the wait between retries.')),
  },
  'Retry a failed step.',
);

const repeatPolicy = object(
  {
    repeat: Type.Optional(
      Type.Union([Type.Boolean(), Type.Enum(['while', 'until'])], {
        description: '`while` repeats while the condition holds, `until` until it holds; `true` repeats while the step succeeds.',
      }),
    ),
    intervalSec: Type.Optional(count('Seconds between executions.')),
    limit: Type.Optional(count('Maximum number of executions.')),
    condition: Type.Optional(text('Condition checked after each execution.')),
    expected: Type.Optional(text('Expected value of the condition.')),
    exitCode: Type.Optional(Type.Array(Type.Integer(), { description: 'Exit codes that count as the condition holding.' })),
    backoff: Type.Optional(backoff),
    maxIntervalSec: Type.Optional(count('Upper bound of the wait between executions.')),
  },
  'Run a step repeatedly.',
);

const continueOn = Type.Union(
  [
    Type.Enum(['failure', 'failed', 'skipped']),
    object(
      {
        failure: Type.Optional(flag('Continue after any failure.')),
        skipped: Type.Optional(flag('Run dependents of this step even when it was skipped.')),
        exitCode: Type.Optional(
          Type.Union([Type.Integer(), Type.String(), Type.Array(Type.Union([Type.Integer(), Type.String()]))], {
            description: 'Continue when the step exits with one of these codes.',
          }),
        ),
        output: Type.Optional(oneOrMany('Continue when a line of stdout contains this text (or matches `re:<regex>`).')),
        markSuccess: Type.Optional(flag('Record a matched failure as succeeded.')),
      },
      'When dependents run although this step did not succeed.',
    ),
  ],
  { description: 'When dependents run although this step did not succeed.' },
);

const executor = Type.Union(
  [
    Type.String(),
    object(
      {
        type: Type.Optional(text('Executor type: shell, docker, ssh, http, mail, jq, dag, gha.')),
        config: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Executor-specific settings.' })),
      },
      'Executor with settings.',
    ),
  ],
  { description: 'How the step runs: a type name or `{type, config}`.' },
);

const parallel = Type.Union(
  [
    Type.String(),
    Type.Array(Type.Unknown()),
    object(
      {
        items: Type.Optional(Type.Union([Type.String(), Type.Array(Type.Unknown())])),
        maxConcurrent: Type.Optional(count('Most child runs at once (default: no limit).', 1)),
      },
      'Items and concurrency.',
    ),
  ],
  { description: 'Run the called DAG once per item: a list, an expression, or `{items, maxConcurrent}`.' },
);

const commandForm = Type.Union([Type.String(), Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean()]))], {
  description: 'The command: a string (a multi-line string is an inline script) or a list of executable and arguments.',
});
const shellForm = Type.Union([Type.String(), Type.Array(Type.String())], {
  description: 'Shell for commands, as `bash -e` or a list.',
});

const sshProperties = {
  user: Type.Optional(text('SSH user.')),
  host: Type.Optional(text('SSH host.')),
  port: Type.Optional(Type.Union([Type.String(), Type.Integer()], { description: 'SSH port (default 22).' })),
  key: Type.Optional(text('Path of the private key.')),
  password: Type.Optional(text('Password.')),
  strictHostKey: Type.Optional(flag('Check the host key (default true).')),
  knownHostFile: Type.Optional(text('known_hosts file.')),
};

const STEP_DESCRIPTION = 'A step: a command, a script, an executor or a sub-DAG call.';

export const stepSchema = object(
  {
    name: Type.Optional(text('Step name: unique, at most 40 characters; generated when absent.')),
    id: Type.Optional(text('Short identifier for references such as `${id.stdout}`.')),
    description: Type.Optional(text('What the step does.')),
    workingDir: Type.Optional(text('Working directory of the step.')),
    dir: Type.Optional(text('Legacy spelling of workingDir.')),
    executor: Type.Optional(executor),
    command: Type.Optional(commandForm),
    args: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean()]), { description: 'Arguments appended to the command.' })),
    shell: Type.Optional(shellForm),
    shellPackages: Type.Optional(Type.Array(Type.String(), { description: 'Packages for nix-shell.' })),
    script: Type.Optional(text('Inline script; honours a shebang when no shell is set.')),
    stdout: Type.Optional(text('File that receives stdout.')),
    stderr: Type.Optional(text('File that receives stderr.')),
    output: Type.Optional(text('Variable that captures the trimmed stdout.')),
    depends: Type.Optional(oneOrMany('Steps (names or ids) that must finish first; `[]` opts out of chain order.')),
    continueOn: Type.Optional(continueOn),
    retryPolicy: Type.Optional(retryPolicy),
    repeatPolicy: Type.Optional(repeatPolicy),
    mailOnError: Type.Optional(flag('Send mail when the step fails.')),
    precondition: Type.Optional(preconditions),
    preconditions: Type.Optional(preconditions),
    signalOnStop: Type.Optional(text('Signal sent when the run is stopped (default SIGTERM).')),
    call: Type.Optional(text('Name of a DAG to run as a sub-DAG run.')),
    run: Type.Optional(text('Deprecated alias of call.')),
    params: Type.Optional(
      Type.Union([Type.String(), Type.Record(Type.String(), Type.Unknown())], {
        description: 'Parameters of the called DAG, or executor inputs.',
      }),
    ),
    parallel: Type.Optional(parallel),
    workerSelector: Type.Optional(stringMap('Labels a node must carry to run this step.')),
    env: Type.Optional(envEntries),
    timeoutSec: Type.Optional(count('Seconds before the step is killed and fails with exit code 124 (0: none).')),
  },
  STEP_DESCRIPTION,
);

const stepEntry = Type.Union([Type.String(), stepSchema, Type.Array(Type.Union([Type.String(), stepSchema]))], {
  description: 'A step, a bare command, or a list of steps that run in parallel.',
});

const steps = Type.Union([Type.Array(stepEntry), Type.Record(Type.String(), stepSchema)], {
  description: 'The steps, as a list or as a mapping from name to step.',
});

const schedule = Type.Union(
  [
    Type.String(),
    Type.Array(Type.String()),
    object(
      {
        start: Type.Optional(oneOrMany('Cron expressions that start a run.')),
        stop: Type.Optional(oneOrMany('Cron expressions that stop running runs.')),
        restart: Type.Optional(oneOrMany('Cron expressions that restart the run.')),
      },
      'Start, stop and restart schedules.',
    ),
  ],
  { description: 'Cron expression(s) with 5 fields; prefix `CRON_TZ=<zone> ` for a time zone.' },
);

const paramsSchemaForm = object(
  {
    schema: Type.Union([Type.String(), Type.Record(Type.String(), Type.Unknown())], {
      description: 'JSON Schema for the parameters: a URL or file, or the schema itself.',
    }),
    values: Type.Optional(Type.Union([entryList, entryMap])),
  },
  'Parameters validated (and defaulted) by a JSON Schema.',
);
const params = Type.Union(
  [Type.String(), entryList, paramsSchemaForm, entryMap],
  { description: 'Parameters: `NAME=value` text, a list of names or `name: default` mappings, or one mapping.' },
);

const mail = object(
  {
    from: Type.Optional(text('Sender address.')),
    to: Type.Optional(oneOrMany('Recipient address(es).')),
    prefix: Type.Optional(text('Subject prefix.')),
    attachLogs: Type.Optional(flag('Attach step logs.')),
  },
  'Mail settings.',
);

const container = object(
  {
    image: Type.Optional(text('Image of the run container.')),
    pullPolicy: Type.Optional(
      Type.Union([Type.Enum(['always', 'missing', 'never']), Type.Boolean()], { description: 'When to pull the image.' }),
    ),
    env: Type.Optional(envEntries),
    volumes: Type.Optional(Type.Array(Type.String(), { description: 'Volumes as `source:target[:ro|rw]`.' })),
    user: Type.Optional(text('User the container runs as.')),
    workingDir: Type.Optional(text('Working directory inside the container.')),
    workDir: Type.Optional(text('Legacy spelling of workingDir.')),
    platform: Type.Optional(text('Platform such as linux/amd64.')),
    ports: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Integer()]), { description: 'Ports to expose.' })),
    network: Type.Optional(text('Network of the container.')),
    keepContainer: Type.Optional(flag('Keep the container after the run.')),
    startup: Type.Optional(Type.Enum(['keepalive', 'entrypoint', 'command'], { description: 'How the container starts.' })),
    command: Type.Optional(Type.Array(Type.String(), { description: 'Start command when startup is `command`.' })),
    waitFor: Type.Optional(Type.Enum(['running', 'healthy'], { description: 'Readiness to wait for.' })),
    logPattern: Type.Optional(text('Regex to wait for in the container log.')),
    restartPolicy: Type.Optional(
      Type.Enum(['no', 'always', 'unless-stopped'], { description: 'Restart policy.' }),
    ),
  },
  'Container that all steps run in.',
);

const handler = stepSchema;

/** Root keys of a DAG document, shared by the first document and the local DAGs after it. */
export const dagSchema = object(
  {
    name: Type.Optional(text('DAG name: at most 40 characters of `[A-Za-z0-9_.-]`; defaults to the file name.')),
    group: Type.Optional(text('Group shown in listings.')),
    description: Type.Optional(text('What the DAG does.')),
    type: Type.Optional(Type.Enum(['chain', 'graph'], { description: '`chain` (default) runs steps in order; `graph` follows `depends` only.' })),
    shell: Type.Optional(shellForm),
    workingDir: Type.Optional(text('Working directory inherited by steps.')),
    dotenv: Type.Optional(oneOrMany('dotenv files, relative to workingDir; `[]` disables (default `.env`).')),
    schedule: Type.Optional(schedule),
    skipIfSuccessful: Type.Optional(flag('Skip a scheduled start when a run already succeeded today.')),
    logDir: Type.Optional(text('Log directory.')),
    env: Type.Optional(envEntries),
    handlerOn: Type.Optional(
      object(
        {
          success: Type.Optional(handler),
          failure: Type.Optional(handler),
          cancel: Type.Optional(handler),
          exit: Type.Optional(handler),
        },
        'Steps run when the run ends: on success, failure, cancel, and always (exit).',
      ),
    ),
    steps: Type.Optional(steps),
    smtp: Type.Optional(
      object(
        {
          host: Type.Optional(text('SMTP host.')),
          port: Type.Optional(Type.Union([Type.String(), Type.Integer()], { description: 'SMTP port.' })),
          username: Type.Optional(text('SMTP user.')),
          password: Type.Optional(text('SMTP password.')),
        },
        'SMTP server for mail.',
      ),
    ),
    mailOn: Type.Optional(object({ success: Type.Optional(flag('Mail on success.')), failure: Type.Optional(flag('Mail on failure.')) }, 'When to send mail.')),
    errorMail: Type.Optional(mail),
    infoMail: Type.Optional(mail),
    timeoutSec: Type.Optional(count('Seconds before the run is stopped and fails (0: none).')),
    delaySec: Type.Optional(count('Seconds to wait before the first step.')),
    restartWaitSec: Type.Optional(count('Seconds between stop and start on a restart.')),
    histRetentionDays: Type.Optional(count('Days of run history to keep (default 30).')),
    precondition: Type.Optional(preconditions),
    preconditions: Type.Optional(preconditions),
    maxActiveRuns: Type.Optional(Type.Integer({ minimum: -1, description: 'Runs of this DAG at once (default 1; -1: unlimited).' })),
    maxActiveSteps: Type.Optional(count('Steps of one run at once (default: no limit).')),
    params: Type.Optional(params),
    maxCleanUpTimeSec: Type.Optional(count('Grace period in seconds for stopped steps (default 5).')),
    tags: Type.Optional(oneOrMany('Tags: a list, or one comma-separated string.')),
    queue: Type.Optional(text('Queue that runs of this DAG go through.')),
    maxOutputSize: Type.Optional(count('Largest captured output of a step in bytes (default 1048576).', 1)),
    otel: Type.Optional(
      object(
        {
          enabled: Type.Optional(flag('Export traces.')),
          endpoint: Type.Optional(text('Collector endpoint.')),
          headers: Type.Optional(stringMap('Headers sent to the collector.')),
          insecure: Type.Optional(flag('Use plain text to the collector.')),
          timeout: Type.Optional(text('Export timeout as a duration such as `10s`.')),
          resource: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Resource attributes.' })),
        },
        'OpenTelemetry tracing.',
      ),
    ),
    workerSelector: Type.Optional(stringMap('Labels a node must carry to run steps of this DAG.')),
    container: Type.Optional(container),
    runConfig: Type.Optional(
      object(
        {
          disableParamEdit: Type.Optional(flag('Refuse parameter changes when starting.')),
          disableRunIdEdit: Type.Optional(flag('Refuse custom run ids when starting.')),
        },
        'What callers may change when starting a run.',
      ),
    ),
    registryAuths: Type.Optional(
      Type.Union(
        [
          Type.String(),
          Type.Record(
            Type.String(),
            Type.Union([
              Type.String(),
              object(
                { username: Type.Optional(Type.String()), password: Type.Optional(Type.String()), auth: Type.Optional(Type.String()) },
                'Credentials of one registry.',
              ),
            ]),
          ),
        ],
        { description: 'Registry credentials by host, or a JSON text / `${VAR}` holding them.' },
      ),
    ),
    ssh: Type.Optional(object(sshProperties, 'Default SSH settings for ssh steps.')),
    secrets: Type.Optional(
      Type.Array(
        object(
          {
            name: text('Variable that receives the secret.'),
            provider: text('Where the secret comes from: `env` or `file`.'),
            key: text('Environment variable or file path that holds the secret.'),
            options: Type.Optional(stringMap('Provider options.')),
          },
          'A secret injected into steps at run time, never stored.',
        ),
      ),
    ),
  },
  'A Kubedag (Dagu-format) DAG.',
);

/** A step as written in a file (object form), after key spellings were made canonical. */
export type StepFile = Static<typeof stepSchema>;
/** A DAG document as written in a file, after key spellings were made canonical. */
export type DagFile = Static<typeof dagSchema>;

/**
 * The DAG file schema as one plain JSON Schema document: every node a fresh object (the
 * validator's error filtering relies on that) and the step definition stored once under
 * `definitions` instead of at each of its uses.
 */
export function dagJsonSchema(): Record<string, unknown> {
  const plain = (schema: TSchema): Record<string, unknown> =>
    JSON.parse(
      JSON.stringify(schema, (key, value: unknown) => (key !== '' && isStepSchema(value) ? { $ref: '#/definitions/step' } : value)),
    ) as Record<string, unknown>;
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: DAG_SCHEMA_ID,
    title: 'Kubedag DAG file',
    ...plain(dagSchema),
    definitions: { step: plain(stepSchema) },
  };
}

/** TypeBox copies a schema when it wraps it (Optional), so the step is recognised by content. */
function isStepSchema(value: unknown): boolean {
  return value !== null && typeof value === 'object' && (value as { description?: unknown }).description === STEP_DESCRIPTION;
}

export const DAG_SCHEMA_ID = 'https://kubedag.io/schemas/dag.schema.json';

/**
 * The DAG file format as TypeBox definitions: the one source for the structural validator,
 * the TypeScript types of a file as written, and the JSON Schema that editors use
 * (`make generate` writes schemas/dag.schema.json from here).
 *
 * These types describe the file as a user writes it, with every accepted spelling. The
 * canonical model that the rest of Kubedag works with is in model.ts.
 */
import Type, { type Static, type TSchema } from 'typebox';
import { dagKubernetesSchema } from './kubernetes-schema.ts';
import { KUBERNETES_DEFINITIONS } from './kubernetes-pod-schema.ts';
import { count, definitionName, flag, object, oneOrMany, stringMap, text } from './schema-builders.ts';
import { STEP_2X, twoXSchemas } from './schema-2x.ts';
import {
  entryList,
  entryMap,
  envEntries,
  preconditions,
  shellForm,
  sshProperties,
  stepSchema,
  steps,
} from './step-schema.ts';

export { stepSchema } from './step-schema.ts';

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
const params = Type.Union([Type.String(), entryList, paramsSchemaForm, entryMap], {
  description: 'Parameters: `NAME=value` text, a list of names or `name: default` mappings, or one mapping.',
});

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
      Type.Union([Type.Enum(['always', 'missing', 'never']), Type.Boolean()], {
        description: 'When to pull the image.',
      }),
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
    startup: Type.Optional(
      Type.Enum(['keepalive', 'entrypoint', 'command'], { description: 'How the container starts.' }),
    ),
    command: Type.Optional(Type.Array(Type.String(), { description: 'Start command when startup is `command`.' })),
    waitFor: Type.Optional(Type.Enum(['running', 'healthy'], { description: 'Readiness to wait for.' })),
    logPattern: Type.Optional(text('Regex to wait for in the container log.')),
    restartPolicy: Type.Optional(Type.Enum(['no', 'always', 'unless-stopped'], { description: 'Restart policy.' })),
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
    type: Type.Optional(
      Type.Enum(['chain', 'graph'], {
        description: '`chain` (default) runs steps in order; `graph` follows `depends` only.',
      }),
    ),
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
          init: Type.Optional(handler),
          wait: Type.Optional(handler),
          success: Type.Optional(handler),
          failure: Type.Optional(handler),
          cancel: Type.Optional(handler),
          exit: Type.Optional(handler),
        },
        'Steps run before the first step (init, Dagu 2.x), each time the run starts waiting for an approval (wait, Dagu 2.x) and when the run ends: on success, failure, cancel, and always (exit).',
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
    s3: Type.Optional(
      object(
        {
          region: Type.Optional(text('AWS region (default us-east-1).')),
          endpoint: Type.Optional(text('S3-compatible endpoint URL (MinIO, ...); https:// unless disable_ssl.')),
          access_key_id: Type.Optional(text('Access key id; with secret_access_key, else the AWS credential chain.')),
          secret_access_key: Type.Optional(text('Secret access key (write ${VAR} from secrets, not the key).')),
          session_token: Type.Optional(text('Session token of temporary credentials.')),
          profile: Type.Optional(text('AWS shared-config profile for the credential chain.')),
          force_path_style: Type.Optional(flag('Path-style addressing (S3-compatible servers).')),
          disable_ssl: Type.Optional(flag('http:// for an endpoint written without a scheme.')),
          bucket: Type.Optional(text('Default bucket.')),
        },
        'Dagu 2.x: connection defaults of the s3.* actions, which a step overrides key by key.',
      ),
    ),
    mailOn: Type.Optional(
      object(
        {
          success: Type.Optional(flag('Mail on success.')),
          failure: Type.Optional(flag('Mail on failure.')),
          wait: Type.Optional(flag('Mail (waitMail) each time the run starts waiting for an approval (Dagu 2.x).')),
        },
        'When to send mail.',
      ),
    ),
    errorMail: Type.Optional(mail),
    infoMail: Type.Optional(mail),
    waitMail: Type.Optional(mail),
    timeoutSec: Type.Optional(count('Seconds before the run is stopped and fails (0: none).')),
    delaySec: Type.Optional(count('Seconds to wait before the first step.')),
    restartWaitSec: Type.Optional(count('Seconds between stop and start on a restart.')),
    histRetentionDays: Type.Optional(count('Days of run history to keep (default 30).')),
    histRetentionRuns: Type.Optional(
      Type.Integer({ description: 'Runs of history to keep, newest first (Dagu 2.x; instead of histRetentionDays).' }),
    ),
    retryPolicy: Type.Optional(
      object(
        {
          limit: Type.Union([Type.Integer(), Type.String()], { description: 'Most automatic retries (required).' }),
          intervalSec: Type.Optional(
            Type.Union([Type.Integer(), Type.String()], { description: 'Seconds after the end (default 60).' }),
          ),
          backoff: Type.Optional(
            Type.Union([Type.Boolean(), Type.Number()], { description: 'Multiplier per retry (true: 2).' }),
          ),
          maxIntervalSec: Type.Optional(
            Type.Union([Type.Integer(), Type.String()], { description: 'Longest wait (default 3600).' }),
          ),
        },
        'Dagu 2.x: a failed run is retried in place by the operator, up to limit times.',
      ),
    ),
    catchupWindow: Type.Optional(
      Type.String({ description: 'How far back missed scheduled runs are started afterwards (Dagu 2.x; 6h, 2d).' }),
    ),
    overlapPolicy: Type.Optional(
      Type.String({ description: 'Missed runs while a run is active: skip (default), all or latest (Dagu 2.x).' }),
    ),
    artifacts: Type.Optional(
      Type.Object(
        {
          enabled: Type.Optional(
            Type.Boolean({ description: 'Give each step DAG_RUN_ARTIFACTS_DIR and keep its files.' }),
          ),
          dir: Type.Optional(Type.String({ description: "Dagu's host directory for artifacts; refused by Kubedag." })),
        },
        {
          description:
            "Dagu 2.x's run artifacts: files steps leave in DAG_RUN_ARTIFACTS_DIR, kept and served by the API.",
        },
      ),
    ),
    precondition: Type.Optional(preconditions),
    preconditions: Type.Optional(preconditions),
    maxActiveRuns: Type.Optional(
      Type.Integer({ minimum: -1, description: 'Runs of this DAG at once (default 1; -1: unlimited).' }),
    ),
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
    kubernetes: Type.Optional(dagKubernetesSchema),
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
                {
                  username: Type.Optional(Type.String()),
                  password: Type.Optional(Type.String()),
                  auth: Type.Optional(Type.String()),
                },
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
 * The 1.x shape of a DAG document as one plain JSON Schema: what the loader checks a document
 * against once a 2.x one was rewritten into that shape (structure.ts). Every node a fresh
 * object (the validator's error filtering relies on that), and the step and the larger
 * Kubernetes objects stored once under `definitions` instead of at each of their uses. TypeBox
 * copies a schema when it wraps it (Optional), so they are recognised by the definition name
 * they carry.
 */
export function oneXJsonSchema(): Record<string, unknown> {
  const definitions = [stepSchema, ...KUBERNETES_DEFINITIONS].map((schema) => [
    definitionName(schema) ?? '',
    plainSchema(schema),
  ]);
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: DAG_SCHEMA_ID,
    title: 'Kubedag DAG file',
    ...plainSchema(dagSchema),
    definitions: Object.fromEntries(definitions),
  };
}

function plainSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(schema, (key, value: unknown) => {
      const name = key === '' ? undefined : definitionName(value);
      return name === undefined ? value : { $ref: `#/definitions/${name}` };
    }),
  ) as Record<string, unknown>;
}

/** Where the two dialects' DAG documents sit in the published schema. */
export const DIALECT_DEFINITIONS = { '1.x': 'dag', '2.x': 'dag2x' } as const;

/**
 * The published DAG file schema (`kubedag schema`, schemas/dag.schema.json): a document in
 * Dagu 1.x keys or in Dagu 2.x keys (schema-2x.ts makes the second from the first). Editors
 * offer the keys of both; the web UI decides the dialect first, as the loader does, and checks
 * against that one.
 */
export function dagJsonSchema(): Record<string, unknown> {
  const dag = plainSchema(dagSchema);
  const step = plainSchema(stepSchema);
  const twoX = twoXJsonSchemas();
  const kubernetes = KUBERNETES_DEFINITIONS.map((schema) => [definitionName(schema) ?? '', plainSchema(schema)]);
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: DAG_SCHEMA_ID,
    title: 'Kubedag DAG file',
    description: 'A Kubedag (Dagu-format) DAG, written in the keys of Dagu 1.x or of Dagu 2.x (one per document).',
    anyOf: Object.values(DIALECT_DEFINITIONS).map((name) => ({ $ref: `#/definitions/${name}` })),
    definitions: {
      [DIALECT_DEFINITIONS['1.x']]: dag,
      [DIALECT_DEFINITIONS['2.x']]: twoX.dag,
      step,
      [STEP_2X]: twoX.step,
      ...Object.fromEntries(kubernetes),
    },
  };
}

/** The 2.x DAG document and step (the step referred to as `#/definitions/step2x`). */
export function twoXJsonSchemas(): { readonly dag: Record<string, unknown>; readonly step: Record<string, unknown> } {
  return twoXSchemas(plainSchema(dagSchema), plainSchema(stepSchema));
}

export const DAG_SCHEMA_ID = 'https://kubedag.io/schemas/dag.schema.json';

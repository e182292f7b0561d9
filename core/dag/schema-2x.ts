/**
 * The Dagu 2.x dialect of the DAG file format as JSON Schema, made from the 1.x one (schema.ts,
 * step-schema.ts) and the one table of spellings (dialect-spellings.ts): every mapping whose keys
 * differ gets its 2.x keys, the keys 2.x removed go, and the 2.x keys Kubedag reads that have no
 * 1.x twin are added from TWO_X_ADDITIONS. So a spelling is written once, and the two dialects of
 * the published schema cannot drift apart. Keys Kubedag refuses (dialect-spellings.ts REFUSED) are
 * not in it: the schema says what Kubedag accepts. See docs/decisions/2026-11-29-dagu-2x-schema.md.
 */
import Type, { type TSchema } from 'typebox';
import { CHILD_SCOPES, ONE_X_ONLY, SPELLINGS, type Scope } from './dialect-spellings.ts';
import { DEFINITION, object, scalar, text } from './schema-builders.ts';

type Json = Record<string, unknown>;

const STEP_REF = '#/definitions/step';
export const STEP_2X = 'step2x';

const words = Type.Array(Type.String());
const shellArgs = Type.Array(Type.String(), { description: 'Arguments of the shell named by shell.' });
/** Only `separate`, in any letter case (dialect-log-output.ts): `merged` is refused by name. */
const logOutput = Type.Union([Type.String({ pattern: '^\\s*([Ss][Ee][Pp][Aa][Rr][Aa][Tt][Ee])?\\s*$' }), Type.Null()], {
  description: "separate: stdout and stderr kept apart, the layout of Kubedag's log store (merged is refused).",
});

/** 2.x keys without a 1.x twin that Kubedag reads, by mapping; each replaces a 1.x key of the same name. */
const TWO_X_ADDITIONS: Readonly<Partial<Record<Scope, Readonly<Record<string, TSchema>>>>> = {
  root: {
    shell_args: shellArgs,
    log_output: logOutput,
    resources: object(
      {
        limits: Type.Optional(
          object(
            {
              cpu: Type.Optional(
                Type.Union([Type.String(), Type.Number()], { description: 'Cores (1.5) or millicores (500m).' }),
              ),
              memory: Type.Optional(
                Type.Union([Type.String(), Type.Number()], {
                  description: 'Bytes with a suffix: 512Mi, 2G, 512m (mega).',
                }),
              ),
            },
            'The most each step Pod may use.',
          ),
        ),
      },
      "CPU and memory limits of the run's step Pods (the DAG-level kubernetes block's limits).",
    ),
    consts: Type.Array(Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])), {
      description: 'Constants fixed when the file is loaded, read as `${consts.NAME}`: a list of `NAME: value`.',
    }),
    labels: Type.Union(
      [
        Type.String(),
        Type.Record(Type.String(), scalar),
        Type.Array(Type.Union([Type.String(), Type.Record(Type.String(), scalar)])),
      ],
      { description: 'Labels: `key` or `key=value` entries, as a list, a mapping or one comma-separated string.' },
    ),
  },
  step: {
    shell_args: shellArgs,
    log_output: logOutput,
    value: text('A router step (type: router): the value its routes match, such as ${ENVIRONMENT}.'),
    routes: Type.Record(Type.String(), Type.Array(Type.String()), {
      description: 'A router step: pattern (exact, or re:<regex>) to the steps that run when the value matches it.',
    }),
    depends: Type.Union([Type.String(), Type.Number(), Type.Array(Type.Union([Type.String(), Type.Number()]))], {
      description: 'Steps (names or ids) that must finish first; a number names the step it spells; `[]` opts out.',
    }),
    run: Type.Union([Type.String(), words], {
      description: 'A shell command (several lines: an inline script), or a list of one command.',
    }),
    action: text(
      'A built-in action (exec, http.request, dag.run, ssh.run, jq.filter, mail.send, log.write, outputs.write, noop, ...); `with:` holds its inputs.',
    ),
    exec: object(
      {
        command: text('The executable.'),
        args: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean()]))),
      },
      'One executable run with its arguments as given, without a shell.',
    ),
    foreach: object(
      {
        items: Type.Array(Type.Unknown(), { description: 'The items; the body runs once per item.' }),
        as: Type.Optional(text('The name the body reads the item as: `${foreach.<as>}` (default item).')),
        max_concurrent: Type.Optional(Type.Integer({ minimum: 1, description: 'Most items at once.' })),
        key: Type.Optional(
          text('Names each item (`${foreach.<as>.slug}`); non-empty and unique, read as `${foreach.key}`.'),
        ),
        steps: Type.Array(Type.Unknown(), { description: 'The steps run for each item.' }),
        collect: Type.Optional(
          Type.Record(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]*$' }), Type.String(), {
            description: "What each succeeded item contributes to the step's `outputs`: name to expression.",
          }),
        ),
      },
      'Runs a small graph of steps once per item.',
    ),
    container: Type.Union(
      [
        text("A running container to exec into: `<pod>` or `<pod>/<container>` of the run's namespace."),
        object(
          {
            image: Type.Optional(text('Image of a step Pod of its own (exclusive with exec).')),
            exec: Type.Optional(text('A running container to exec into (exclusive with image).')),
            name: Type.Optional(text('With image: a running Pod of this name to exec into instead.')),
            pull_policy: Type.Optional(
              Type.Union([Type.String(), Type.Boolean()], { description: 'always, missing, never or a boolean.' }),
            ),
            env: Type.Optional(
              Type.Union([Type.Array(Type.Unknown()), Type.Record(Type.String(), Type.Unknown())], {
                description: "Variables of the container, after the step's own.",
              }),
            ),
            user: Type.Optional(
              Type.Union([Type.String(), Type.Integer()], { description: 'With image: a numeric uid or uid:gid.' }),
            ),
            working_dir: Type.Optional(text('Where the command runs in the container.')),
            platform: Type.Optional(text('With image: os or os/arch of the node.')),
            shell: Type.Optional(
              Type.Union([Type.String(), Type.Array(Type.String())], {
                description: "With image: the shell the command runs in, as words ([/bin/bash, -e]); the step's shell.",
              }),
            ),
          },
          'The container the step runs in: a Pod of an image, or exec into a running one.',
        ),
      ],
      { description: "The step's own container (docker steps only); it wins over the DAG-level container." },
    ),
    approval: object(
      {
        prompt: Type.Optional(text('What the person deciding is shown.')),
        input: Type.Optional(Type.Array(Type.String(), { description: 'Inputs a person may give.' })),
        required: Type.Optional(Type.Array(Type.String(), { description: 'Inputs a person must give (of input).' })),
        rewind_to: Type.Optional(text('The step (itself or one upstream) a push-back re-runs from.')),
      },
      'Once the command succeeded, the step waits for a person to approve, reject or push it back.',
    ),
  },
};

/** 2.x typed params, a list of `{name, type, default, ...}` (dialect-params.ts). */
const typedParams = Type.Array(
  object(
    {
      name: text('Parameter name.'),
      type: Type.Optional(Type.Enum(['string', 'integer', 'number', 'boolean'], { description: 'Value type.' })),
      default: Type.Optional(scalar),
      description: Type.Optional(text('What the parameter is for.')),
      required: Type.Optional(Type.Boolean({ description: 'A run must give it.' })),
      enum: Type.Optional(Type.Array(scalar, { description: 'The values allowed.' })),
      minimum: Type.Optional(Type.Number()),
      maximum: Type.Optional(Type.Number()),
      min_length: Type.Optional(Type.Integer({ minimum: 0 })),
      max_length: Type.Optional(Type.Integer({ minimum: 0 })),
      pattern: Type.Optional(text('Regular expression a string value must match.')),
    },
    'A typed parameter.',
  ),
  { description: 'Typed parameters.' },
);

/** 2.x params written as a JSON Schema itself (dialect-params.ts schemaParamsAsOneX). */
const inlineSchemaParams = Type.Object(
  { properties: Type.Record(Type.String(), Type.Unknown(), { description: 'The parameters by name.' }) },
  { description: 'Parameters as an inline JSON Schema of an object.' },
);

/** Step settings `defaults:` may give every step (dialect-defaults.ts). */
const DEFAULTS_KEYS = [
  'continue_on',
  'retry_policy',
  'repeat_policy',
  'timeout_sec',
  'mail_on_error',
  'signal_on_stop',
  'env',
  'preconditions',
];

const TWO_X_KEYS = Object.fromEntries(
  (Object.keys(SPELLINGS) as Scope[]).map((scope) => [
    scope,
    Object.fromEntries(Object.entries(SPELLINGS[scope]).map(([twoX, oneX]) => [oneX, twoX])),
  ]),
) as unknown as Record<Scope, Readonly<Record<string, string>>>;

const isJson = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A schema node's object forms (through anyOf and items) with their keys in the 2.x spelling of `scope`. */
function spelled(node: unknown, scope: Scope): unknown {
  if (Array.isArray(node)) return node.map((item: unknown) => spelled(item, scope));
  if (!isJson(node)) return node;
  if (isJson(node.properties)) return spelledMapping(node, scope);
  const out: Json = { ...node };
  for (const key of ['anyOf', 'items'] as const) if (node[key] !== undefined) out[key] = spelled(node[key], scope);
  return out;
}

function spelledMapping(node: Json, scope: Scope): Json {
  const dropped = new Set(ONE_X_ONLY[scope] ?? []);
  const properties: Json = {};
  for (const [key, value] of Object.entries(node.properties as Json)) {
    if (dropped.has(key)) continue;
    const child = CHILD_SCOPES[scope]?.[key];
    properties[TWO_X_KEYS[scope][key] ?? key] = child === undefined ? value : spelled(value, child);
  }
  for (const [key, value] of Object.entries(TWO_X_ADDITIONS[scope] ?? {})) properties[key] = plainCopy(value);
  return { ...node, properties };
}

const plainCopy = (value: unknown): Json => JSON.parse(JSON.stringify(value)) as Json;

/** Every reference to the 1.x step made one to the 2.x step. */
function withStep2x(node: Json): Json {
  return JSON.parse(JSON.stringify(node).replaceAll(`"${STEP_REF}"`, `"#/definitions/${STEP_2X}"`)) as Json;
}

/**
 * The 2.x DAG document and step, from the plain JSON Schema of the 1.x ones (as dagJsonSchema
 * writes them: the step a `$ref`). Pure.
 */
export function twoXSchemas(dag: Json, step: Json): { readonly dag: Json; readonly step: Json } {
  const step2x = withStep2x(spelledMapping(step, 'step'));
  const stepProperties = step2x.properties as Json;
  const defaults = object({}, 'Settings every step takes when it does not write them.') as unknown as Json;
  const dag2x = withStep2x(spelledMapping(dag, 'root'));
  const rootProperties = dag2x.properties as Json;
  rootProperties.defaults = {
    ...plainCopy(defaults),
    properties: Object.fromEntries(DEFAULTS_KEYS.map((key) => [key, stepProperties[key]])),
  };
  const params = rootProperties.params as Json;
  rootProperties.params = {
    ...params,
    anyOf: [...(params.anyOf as unknown[]), plainCopy(typedParams), plainCopy(inlineSchemaParams)],
  };
  return {
    dag: { ...dag2x, description: 'A Kubedag DAG in Dagu 2.x keys.' },
    step: {
      ...step2x,
      description: 'A step in Dagu 2.x keys: a command (run), an action, a typed step or a call.',
      [DEFINITION]: STEP_2X,
    },
  };
}

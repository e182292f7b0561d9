/**
 * The step part of the DAG file format as TypeBox definitions (schema.ts holds the root keys,
 * kubernetes-schema.ts the kubernetes block). One source for the validator, the types of a
 * file as written, and the JSON Schema.
 */
import Type, { type TUnion, type TInteger, type TString } from 'typebox';
import { count, flag, object, oneOrMany, scalar, stringMap, text } from './schema-builders.ts';
import { stepKubernetesSchema } from './kubernetes-schema.ts';

export { count, flag, object, oneOrMany, scalar, stringMap, text } from './schema-builders.ts';

/** `[A=1, {B: 2}]` and `{A: 1}`: the two ways env and params list named values. */
export const entryList = Type.Array(Type.Union([Type.String(), Type.Record(Type.String(), scalar)]));
export const entryMap = Type.Record(Type.String(), scalar);

export const envEntries = Type.Union([entryList, entryMap], {
  description: 'Environment variables: a list of `NAME: value` mappings or `NAME=value` strings, or one mapping.',
});

export const condition = object(
  {
    condition: Type.Optional(text('Text to evaluate (variables expanded, backticks run in the step Pod).')),
    expected: Type.Optional(text('Expected value of the condition, exactly or as `re:<regex>`.')),
    command: Type.Optional(text('A command that meets the condition when it exits 0.')),
    negate: Type.Optional(flag('Dagu 2.x: the precondition holds when the condition is not met.')),
    eval: Type.Optional(
      text(
        'Dagu 2.x: text evaluated (variables expanded, backticks run) and compared with `expected`; a 2.x `condition` with `expected` is compared as written.',
      ),
    ),
  },
  'A precondition.',
);
export const preconditions = Type.Union(
  [Type.String(), condition, Type.Array(Type.Union([Type.String(), condition]))],
  {
    description: 'Conditions that must hold before running; a bare string is a command that must exit 0.',
  },
);

export const backoff = Type.Union([Type.Boolean(), Type.Number()], {
  description: '`true` doubles the wait each time; a number greater than 1 is the multiplier.',
});
export function intOrText(description: string): TUnion<[TInteger, TString]> {
  return Type.Union([Type.Integer(), Type.String()], { description });
}

export const retryPolicy = object(
  {
    limit: Type.Optional(intOrText('Retries after the first failure (an integer or a variable).')),
    intervalSec: Type.Optional(intOrText('Seconds to wait before a retry (an integer or a variable).')),
    exitCode: Type.Optional(
      Type.Array(Type.Integer(), { description: 'Exit codes that are retried (default: any non-zero).' }),
    ),
    backoff: Type.Optional(backoff),
    maxIntervalSec: Type.Optional(count('Upper bound of the wait between retries.')),
  },
  'Retry a failed step.',
);

export const repeatPolicy = object(
  {
    repeat: Type.Optional(
      Type.Union([Type.Boolean(), Type.Enum(['while', 'until'])], {
        description:
          '`while` repeats while the condition holds, `until` until it holds; `true` repeats while the step succeeds.',
      }),
    ),
    intervalSec: Type.Optional(count('Seconds between executions.')),
    limit: Type.Optional(count('Maximum number of executions.')),
    condition: Type.Optional(text('Condition checked after each execution.')),
    expected: Type.Optional(text('Expected value of the condition.')),
    exitCode: Type.Optional(
      Type.Array(Type.Integer(), { description: 'Exit codes that count as the condition holding.' }),
    ),
    backoff: Type.Optional(backoff),
    maxIntervalSec: Type.Optional(count('Upper bound of the wait between executions.')),
  },
  'Run a step repeatedly.',
);

export const continueOn = Type.Union(
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
        output: Type.Optional(
          oneOrMany('Continue when a line of stdout contains this text (or matches `re:<regex>`).'),
        ),
        markSuccess: Type.Optional(flag('Record a matched failure as succeeded.')),
      },
      'When dependents run although this step did not succeed.',
    ),
  ],
  { description: 'When dependents run although this step did not succeed.' },
);

export const executor = Type.Union(
  [
    Type.String(),
    object(
      {
        type: Type.Optional(
          text(
            'Executor type: shell, docker, kubernetes, ssh, http, mail, jq, dag, parallel, wait, file (the command is the operation); gha and archive are refused.',
          ),
        ),
        config: Type.Optional(
          Type.Record(Type.String(), Type.Unknown(), { description: 'Executor-specific settings.' }),
        ),
      },
      'Executor with settings.',
    ),
  ],
  { description: 'How the step runs: a type name or `{type, config}`.' },
);

export const parallel = Type.Union(
  [
    Type.String(),
    Type.Array(Type.Unknown()),
    object(
      {
        items: Type.Optional(Type.Union([Type.String(), Type.Array(Type.Unknown())])),
        maxConcurrent: Type.Optional(count('Most child runs at once (default: no limit).', 1)),
        foreach: Type.Optional(
          flag(
            'Dagu 2.x foreach items: the expression is a JSON array, each item (equal ones too) runs with FOREACH_INDEX and FOREACH_ITEM.',
          ),
        ),
        key: Type.Optional(
          text(
            'Dagu 2.x foreach.key: names each item from its params (FOREACH_ITEM, FOREACH_INDEX); non-empty and unique, passed as FOREACH_KEY.',
          ),
        ),
        collect: Type.Optional(
          Type.Record(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]*$' }), Type.String(), {
            description:
              "Dagu 2.x foreach.collect: output name to an expression read from each succeeded item's run (its outputs, ${steps.<id>.outputs.<name>}).",
          }),
        ),
      },
      'Items and concurrency.',
    ),
  ],
  { description: 'Run the called DAG once per item: a list, an expression, or `{items, maxConcurrent}`.' },
);

export const commandForm = Type.Union(
  [Type.String(), Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean()]))],
  {
    description:
      'The command: a string (a multi-line string is an inline script) or a list of executable and arguments.',
  },
);
export const shellForm = Type.Union([Type.String(), Type.Array(Type.String())], {
  description: 'Shell for commands, as `bash -e` or a list.',
});

export const sshProperties = {
  user: Type.Optional(text('SSH user.')),
  host: Type.Optional(text('SSH host.')),
  port: Type.Optional(Type.Union([Type.String(), Type.Integer()], { description: 'SSH port (default 22).' })),
  key: Type.Optional(
    Type.Union(
      [
        Type.String(),
        object(
          {
            secretKeyRef: object(
              { name: text('Secret name.'), key: text('Key in the Secret that holds the private key.') },
              'The Secret and its key.',
            ),
          },
          "A private key from a Kubernetes Secret in the run's namespace.",
        ),
      ],
      {
        description:
          'Path of the private key in the step container, or {secretKeyRef: {name, key}} for one from a Kubernetes Secret.',
      },
    ),
  ),
  password: Type.Optional(text('Password.')),
  strictHostKey: Type.Optional(flag('Check the host key (default true).')),
  knownHostFile: Type.Optional(text('known_hosts file.')),
  shell: Type.Optional(
    text('Shell the remote command or script runs in, as `bash -e` (Dagu 2.x; default: the login shell).'),
  ),
  shellArgs: Type.Optional(Type.Array(Type.String(), { description: 'Words added after shell (Dagu 2.x).' })),
  timeout: Type.Optional(text('How long connecting may take, a Go duration such as `30s` (Dagu 2.x; default 30s).')),
  bastion: Type.Optional(
    object(
      {
        host: text('Jump host.'),
        port: Type.Optional(Type.Union([Type.String(), Type.Integer()], { description: 'Its port (default 22).' })),
        user: text('User on the jump host.'),
        key: Type.Optional(text('Path of the private key for the jump host, in the step container.')),
        password: Type.Optional(text('Password on the jump host.')),
      },
      "A jump host the connection goes through (Dagu 2.x); its host key is checked like the target's.",
    ),
  ),
};

export const STEP_DESCRIPTION = 'A step: a command, a script, an executor or a sub-DAG call.';

export const stepSchema = object(
  {
    name: Type.Optional(text('Step name: unique, at most 40 characters; generated when absent.')),
    id: Type.Optional(text('Short identifier for references such as `${id.stdout}`.')),
    description: Type.Optional(text('What the step does.')),
    workingDir: Type.Optional(text('Working directory of the step.')),
    dir: Type.Optional(text('Legacy spelling of workingDir.')),
    executor: Type.Optional(executor),
    type: Type.Optional(
      text('Executor type, as Dagu 2.x writes it (the same as executor.type): shell, docker, kubernetes (k8s), ...'),
    ),
    with: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'Settings of the executor named by type (the same as executor.config).',
      }),
    ),
    config: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Older name of with.' })),
    command: Type.Optional(commandForm),
    args: Type.Optional(
      Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
        description: 'Arguments appended to the command.',
      }),
    ),
    shell: Type.Optional(shellForm),
    shellPackages: Type.Optional(Type.Array(Type.String(), { description: 'Packages for nix-shell.' })),
    script: Type.Optional(text('Inline script; honours a shebang when no shell is set.')),
    stdout: Type.Optional(
      Type.Union(
        [
          Type.String(),
          object(
            {
              artifact: Type.Optional(
                text("Dagu 2.x: stdout written to this file of the run's artifacts directory (relative)."),
              ),
              outputs: Type.Optional(
                Type.Unknown({ description: 'A field name, `{field, decode, select}` or `{fields}`.' }),
              ),
            },
            'Dagu 2.x: stdout kept as a run artifact, and/or named values picked out of it once the step succeeded.',
          ),
        ],
        {
          description:
            'File that receives stdout, or (Dagu 2.x) `{artifact, outputs}`: kept as a run artifact, values picked out of it.',
        },
      ),
    ),
    stderr: Type.Optional(
      Type.Union(
        [
          Type.String(),
          object(
            { artifact: text("Dagu 2.x: stderr written to this file of the run's artifacts directory (relative).") },
            'Dagu 2.x: stderr kept as a run artifact.',
          ),
        ],
        { description: 'File that receives stderr, or (Dagu 2.x) `{artifact}`: kept as a run artifact.' },
      ),
    ),
    output: Type.Optional(
      Type.Union([Type.String(), Type.Record(Type.String(), Type.Unknown())], {
        description:
          'Variable that captures the trimmed stdout, or (Dagu 2.x) named values: `{NAME: {from, path, decode, select} | {value}}` (`path` when `from: file`), read as `${steps.<id>.outputs.NAME}`.',
      }),
    ),
    outputs: Type.Optional(
      Type.Array(
        object(
          {
            name: text('Output name: a letter, then letters, digits and _.'),
            type: Type.Optional(
              Type.Union([Type.Literal('string'), Type.Literal('json')], {
                description: 'json: the value must be valid JSON.',
              }),
            ),
          },
          'A value the step writes as `name=value` into the file DAGU_OUTPUT_FILE names.',
        ),
        {
          description:
            'Declared outputs (Dagu 2.x): later steps read them as `${steps.<id>.outputs.<name>}`; the step needs an id.',
        },
      ),
    ),
    output_schema: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          "Dagu 2.x: an inline JSON Schema of an object; a succeeded attempt's stdout must be JSON it accepts, or the step fails.",
      }),
    ),
    approval: Type.Optional(
      object(
        {
          prompt: Type.Optional(text('What the person deciding is shown.')),
          input: Type.Optional(Type.Array(Type.String(), { description: 'Inputs a person may give.' })),
          required: Type.Optional(Type.Array(Type.String(), { description: 'Inputs a person must give (of input).' })),
          rewindTo: Type.Optional(text('The step (itself or one upstream) a push-back re-runs from.')),
        },
        'Dagu 2.x: once the command succeeded, the step waits for a person to approve, reject or push it back.',
      ),
    ),
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
    enqueue: Type.Optional(
      object(
        { queue: Type.Optional(text("The queue the run goes on (default: the called DAG's own).")) },
        "Dagu 2.x's dag.enqueue: the called DAG's run is queued and the step does not wait for it.",
      ),
    ),
    params: Type.Optional(
      Type.Union(
        [
          Type.String(),
          Type.Record(Type.String(), Type.Unknown()),
          Type.Array(Type.Union([Type.String(), Type.Record(Type.String(), Type.Unknown())])),
        ],
        {
          description:
            'Parameters of the called DAG (`A=1 B=2`, a mapping, or a list of `A=1` strings and mappings), or executor inputs.',
        },
      ),
    ),
    parallel: Type.Optional(parallel),
    workerSelector: Type.Optional(stringMap('Labels a node must carry to run this step.')),
    env: Type.Optional(envEntries),
    timeoutSec: Type.Optional(count('Seconds before the step is killed and fails with exit code 124 (0: none).')),
    kubernetes: Type.Optional(stepKubernetesSchema),
  },
  STEP_DESCRIPTION,
  'step',
);

export const stepEntry = Type.Union([Type.String(), stepSchema, Type.Array(Type.Union([Type.String(), stepSchema]))], {
  description: 'A step, a bare command, or a list of steps that run in parallel.',
});

export const steps = Type.Union([Type.Array(stepEntry), Type.Record(Type.String(), stepSchema)], {
  description: 'The steps, as a list or as a mapping from name to step.',
});

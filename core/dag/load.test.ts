import { describe, expect, it } from 'vitest';
import { errorsIn } from '../../test/dag-errors.ts';

const errorsOf = (text: string, fileName = 'example'): string[] => errorsIn(fileName)(text);

describe('loadDag rejects invalid files with located messages', () => {
  const cases: { name: string; yaml: string; want: string[] }[] = [
    {
      name: 'an unknown root key, suggesting the nearest known one',
      yaml: 'stepz: []\nsteps: [echo]',
      want: ['stepz: unknown key; did you mean "steps"?'],
    },
    {
      name: 'an unknown step key, suggesting the nearest known one',
      yaml: 'steps:\n  - comand: echo',
      want: ['steps[0].comand: unknown key; did you mean "command"?'],
    },
    {
      name: 'an unknown key far from any known one, listing the known keys',
      yaml: 'steps:\n  - command: echo\n    retryPolicy: {limit: 1, intervalSec: 1, zzzzzz: 1}',
      want: [
        'steps[0].retryPolicy.zzzzzz: unknown key; known keys are limit, intervalSec, exitCode, backoff, maxIntervalSec',
      ],
    },
    {
      name: 'maskEnv, which the reference also rejects',
      yaml: 'steps:\n  - command: echo\n    maskEnv: true',
      want: [
        'steps[0].maskEnv: unknown key; known keys are name, id, description, workingDir, dir, executor, type, with, config, command, args, shell, shellPackages, script, stdout, stderr, output, outputs, output_schema, approval, depends, continueOn, retryPolicy, repeatPolicy, mailOnError, precondition, preconditions, signalOnStop, call, run, enqueue, params, parallel, workerSelector, env, timeoutSec, kubernetes',
      ],
    },
    {
      name: 'negate on a precondition, which 1.24 files do not have, in a file of 1.x keys',
      yaml: 'steps:\n  - {command: echo, timeoutSec: 1, preconditions: [{condition: a, negate: true}]}',
      want: [
        'steps[0].preconditions[0].negate: "negate" is a Dagu 2.x key, but this file is written in Dagu 1.x keys (the first is "timeoutSec" at steps[0].timeoutSec); a file uses one dialect',
      ],
    },
    {
      name: 'a wrong scalar type',
      yaml: 'timeoutSec: "30"\nsteps: [echo]',
      want: ['timeoutSec: must be an integer, not the string "30"'],
    },
    { name: 'a negative count', yaml: 'delaySec: -1\nsteps: [echo]', want: ['delaySec: must be at least 0'] },
    {
      name: 'maxActiveRuns below -1',
      yaml: 'maxActiveRuns: -2\nsteps: [echo]',
      want: ['maxActiveRuns: must be at least -1'],
    },
    {
      name: 'a value of the wrong polymorphic kind',
      yaml: 'schedule: 5\nsteps: [echo]',
      want: ['schedule: must be a string, a list or a mapping, not 5'],
    },
    {
      name: 'a step that is neither string, mapping nor group',
      yaml: 'steps: [5]',
      want: ['steps[0]: must be a string, a list or a mapping, not 5'],
    },
    {
      name: 'an enum value out of range',
      yaml: 'type: grap\nsteps: [echo]',
      want: ['type: must be one of "chain", "graph", not "grap"'],
    },
    {
      name: 'a handler written as a string',
      yaml: 'steps: [echo]\nhandlerOn: {exit: echo bye}',
      want: ['handlerOn.exit: must be a mapping, not the string "echo bye"'],
    },
    {
      name: 'the same key spelled twice in different case',
      yaml: 'steps: [echo]\nSteps: [echo]',
      want: ['Steps: duplicate key: "steps" and "Steps" are the same key'],
    },
    {
      name: 'a secret without provider and key',
      yaml: 'steps: [echo]\nsecrets: [{name: TOKEN}]',
      want: ['secrets[0]: missing required key "provider"', 'secrets[0]: missing required key "key"'],
    },
    {
      name: 'a DAG name that is too long',
      yaml: `name: ${'a'.repeat(41)}\nsteps: [echo]`,
      want: [`name: "${'a'.repeat(41)}" is 41 characters long; at most 40 are allowed`],
    },
    {
      name: 'a DAG name with forbidden characters',
      yaml: 'name: my dag\nsteps: [echo]',
      want: ['name: "my dag" may only contain letters, digits, "_", "." and "-"'],
    },
    { name: 'a DAG without steps', yaml: 'description: nothing to do', want: ['steps: a DAG needs at least one step'] },
    {
      name: 'duplicate step names',
      yaml: 'steps:\n  - {name: a, command: echo}\n  - {name: a, command: echo}',
      want: ['steps[1].name: "a" is also the name of steps[0]; step names must be unique'],
    },
    {
      name: 'a step name over 40 characters',
      yaml: `steps:\n  - {name: ${'s'.repeat(41)}, command: echo}`,
      want: [`steps[0].name: "${'s'.repeat(41)}" is 41 characters long; at most 40 are allowed`],
    },
    {
      name: 'a malformed step id',
      yaml: 'steps:\n  - {id: 1abc, command: echo}',
      want: ['steps[0].id: "1abc" must start with a letter and hold only letters, digits, "_" and "-"'],
    },
    {
      name: 'a reserved step id',
      yaml: 'steps:\n  - {id: outputs, command: echo}',
      want: ['steps[0].id: "outputs" is reserved'],
    },
    {
      name: 'duplicate step ids',
      yaml: 'steps:\n  - {id: x, command: echo}\n  - {id: x, command: echo}',
      want: ['steps[1].id: "x" is also the id of steps[0]; step ids must be unique'],
    },
    {
      name: 'a step id equal to another step name',
      yaml: 'steps:\n  - {name: a, command: echo}\n  - {id: a, command: echo}',
      want: ['steps[1].id: "a" is the name of another step (steps[0])'],
    },
    {
      name: 'a dependency on an unknown step',
      yaml: 'type: graph\nsteps:\n  - {name: a, command: echo, depends: [ghost]}',
      want: ['steps[0].depends: unknown step "ghost"'],
    },
    {
      name: 'a step depending on itself',
      yaml: 'type: graph\nsteps:\n  - {name: a, command: echo, depends: a}',
      want: ['steps[0].depends: a step cannot depend on itself ("a")'],
    },
    {
      name: 'a dependency cycle, naming it',
      yaml: 'type: graph\nsteps:\n  - {name: a, command: echo, depends: c}\n  - {name: b, command: echo, depends: a}\n  - {name: c, command: echo, depends: b}',
      want: ['steps[0].depends: dependency cycle: a -> c -> b -> a'],
    },
    {
      name: 'an unknown executor type, suggesting one',
      yaml: 'steps:\n  - {command: echo, executor: dockr}',
      want: [
        'steps[0].executor: unknown executor type "dockr"; did you mean "docker"? (known: shell, docker, kubernetes, ssh, http, mail, jq, dag, parallel, gha, archive, wait, file, s3, template, artifact)',
      ],
    },
    {
      name: 'a docker step without image or containerName',
      yaml: 'steps:\n  - {command: echo, executor: {type: docker, config: {pull: always}}}',
      want: ['steps[0].executor.config: the docker executor needs image or containerName'],
    },
    {
      name: 'an archive step without the archive it reads',
      yaml: 'steps:\n  - {command: extract, executor: archive}',
      want: ['steps[0].executor.config.source: is required for archive.extract'],
    },
    {
      name: 'an http command whose method is no HTTP token',
      yaml: 'steps:\n  - {command: "GE(T https://example.test", executor: http}',
      want: ['steps[0].command: "GE(T" is not an HTTP method'],
    },
    {
      name: 'an http step without method and URL',
      yaml: 'steps:\n  - {command: GET, executor: http}',
      want: ['steps[0].command: the http executor needs command "<METHOD> <URL>"'],
    },
    {
      name: 'an ssh step without a host anywhere',
      yaml: 'steps:\n  - {command: uptime, executor: ssh}',
      want: ['steps[0].executor.config: the ssh executor needs host (here or in the DAG ssh block)'],
    },
    {
      name: 'a shell step with nothing to run',
      yaml: 'steps:\n  - {name: empty}',
      want: ['steps[0]: needs a command or a script'],
    },
    {
      name: 'an empty command',
      yaml: 'steps:\n  - {command: "  "}',
      want: ['steps[0].command: is empty', 'steps[0]: needs a command or a script'],
    },
    {
      name: 'an unterminated quote in a command',
      yaml: `steps:\n  - 'echo "open'`,
      want: ['steps[0].command: unterminated quote " in command'],
    },
    {
      name: 'container and ssh together',
      yaml: 'container: {image: alpine}\nssh: {host: h}\nsteps: [echo]',
      want: ['ssh: container and ssh cannot both be set'],
    },
    {
      name: 'a container without image',
      yaml: 'container: {user: root}\nsteps: [echo]',
      want: ['container.image: is required when container is set'],
    },
    {
      name: 'parallel without call',
      yaml: 'steps:\n  - {command: echo, parallel: [a, b]}',
      want: ['steps[0].parallel: needs call: parallel runs a DAG once per item'],
    },
    {
      name: 'a retryPolicy without limit and intervalSec',
      yaml: 'steps:\n  - {command: echo, retryPolicy: {backoff: true}}',
      want: ['steps[0].retryPolicy.limit: is required', 'steps[0].retryPolicy.intervalSec: is required'],
    },
    {
      name: 'a backoff that does not grow',
      yaml: 'steps:\n  - {command: echo, retryPolicy: {limit: 1, intervalSec: 1, backoff: 1}}',
      want: ['steps[0].retryPolicy.backoff: must be greater than 1 (or true for 2), not 1'],
    },
    {
      name: 'repeat while without condition or exit code',
      yaml: 'steps:\n  - {command: echo, repeatPolicy: {repeat: while}}',
      want: ['steps[0].repeatPolicy.repeat: "while" needs condition or exitCode'],
    },
    {
      name: 'a bad cron expression',
      yaml: 'schedule: "0 * * *"\nsteps: [echo]',
      want: [
        'schedule: "0 * * *": a cron expression has exactly 5 fields (minute hour day-of-month month day-of-week), found 4',
      ],
    },
    {
      name: 'a cron descriptor',
      yaml: 'schedule: "@daily"\nsteps: [echo]',
      want: ['schedule: "@daily": descriptors such as @daily are not supported; write the 5 cron fields'],
    },
    {
      name: 'an out-of-range cron field',
      yaml: 'schedule: ["0 * * * *", "61 * * * *"]\nsteps: [echo]',
      want: ['schedule[1]: "61 * * * *": Invalid value for minute: 61'],
    },
    {
      name: 'an unknown time zone',
      yaml: 'schedule: {start: "CRON_TZ=Mars/Base 0 9 * * *"}\nsteps: [echo]',
      want: ['schedule.start: unknown time zone "Mars/Base"'],
    },
    {
      name: 'an unknown signal',
      yaml: 'steps:\n  - {command: sleep 9, signalOnStop: SIGFOO}',
      want: ['steps[0].signalOnStop: unknown signal "SIGFOO"'],
    },
    {
      name: 'an env entry without =',
      yaml: 'env: [JUSTNAME]\nsteps: [echo]',
      want: ['env[0]: must be NAME=value or a NAME: value mapping, not "JUSTNAME"'],
    },
    {
      name: 'an invalid env name',
      yaml: 'env: {1BAD: x}\nsteps: [echo]',
      want: ['env["1BAD"]: "1BAD" is not a valid variable name (letters, digits and _, not starting with a digit)'],
    },
    {
      name: 'an unknown secret provider',
      yaml: 'secrets: [{name: T, provider: vault, key: k}]\nsteps: [echo]',
      want: ['secrets[0].provider: unknown provider "vault"; known providers are env, file'],
    },
    {
      name: 'a params JSON Schema that is not a schema',
      yaml: 'params: {schema: {type: 12}}\nsteps: [echo]',
      want: [
        'params.schema: is not a valid JSON Schema: schema is invalid: data/type must be equal to one of the allowed values, data/type must be array, data/type must match a schema in anyOf',
      ],
    },
    {
      name: 'a parameter defined twice',
      yaml: 'params: A=1 A=2\nsteps: [echo]',
      want: ['params: parameter "A" is defined more than once'],
    },
    {
      name: 'call and run together',
      yaml: 'steps:\n  - {call: a, run: b}',
      want: ['steps[0].run: use either call or run, not both'],
    },
    {
      name: 'a handler with depends',
      yaml: 'steps: [echo]\nhandlerOn: {exit: {command: echo, depends: [cmd_1]}}',
      want: ['handlerOn.exit.depends: handlers run before or after all steps and take no depends'],
    },
    {
      name: 'a local DAG without a name',
      yaml: 'steps: [echo]\n---\nsteps: [echo]',
      want: ['documents[1].name: is required for a DAG after the first document of a file'],
    },
    {
      name: 'two local DAGs with one name',
      yaml: 'steps: [echo]\n---\nname: x\nsteps: [echo]\n---\nname: x\nsteps: [echo]',
      want: ['documents[2].name: "x" names another DAG of this file; local DAG names must be unique'],
    },
    {
      name: 'a document that is not a mapping',
      yaml: '- a\n- b',
      want: ['a DAG document must be a mapping, not a list'],
    },
    {
      name: 'malformed YAML, with its position',
      yaml: 'steps: [echo\nname: x',
      want: ['invalid YAML at line 2, column 1: deficient indentation'],
    },
    {
      name: 'duplicate YAML keys',
      yaml: 'steps: [echo]\nsteps: [ls]',
      want: ['invalid YAML at line 2, column 1: duplicated mapping key'],
    },
    { name: 'an empty file', yaml: '', want: ['the file holds no DAG (it is empty)'] },
    {
      name: 'problems in several steps, each at its own path',
      yaml: 'steps:\n  - [5]\n  - {name: 3}',
      want: ['steps[0][0]: must be a string or a mapping, not 5', 'steps[1].name: must be a string, not 3'],
    },
  ];
  it.each(cases)('reports $name', ({ yaml, want }) => {
    expect(errorsOf(yaml)).toEqual(want);
  });
});

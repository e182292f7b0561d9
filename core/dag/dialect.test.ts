import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decideDialect, twoXPath } from './dialect.ts';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';
import { parseYamlDocuments } from './yaml.ts';

const decide = (text: string): ReturnType<typeof decideDialect> => decideDialect(parseYamlDocuments(text).documents[0]);
const errorsOf = (text: string): string[] => loadDag(text, { fileName: 'example' }).errors.map(formatIssue);

describe('decideDialect', () => {
  const cases: { name: string; yaml: string; dialect: '1.x' | '2.x'; marker?: string }[] = [
    { name: 'a camelCase root key', yaml: 'timeoutSec: 5\nsteps: [echo]', dialect: '1.x', marker: 'timeoutSec' },
    {
      name: 'a 1.x key in another case, as the 1.x reader matches it',
      yaml: 'TimeoutSec: 5\nsteps: [echo]',
      dialect: '1.x',
      marker: 'TimeoutSec',
    },
    { name: 'a snake_case root key', yaml: 'timeout_sec: 5\nsteps: [echo]', dialect: '2.x', marker: 'timeout_sec' },
    {
      name: 'a snake_case step key',
      yaml: 'steps:\n  - {command: echo, retry_policy: {limit: 1}}',
      dialect: '2.x',
      marker: 'steps[0].retry_policy',
    },
    {
      name: 'a snake_case key nested in a step setting',
      yaml: 'steps:\n  - {call: child, parallel: {items: [a], max_concurrent: 1}}',
      dialect: '2.x',
      marker: 'steps[0].parallel.max_concurrent',
    },
    {
      name: 'executor, which 2.x removed',
      yaml: 'steps:\n  - {command: echo, executor: shell}',
      dialect: '1.x',
      marker: 'steps[0].executor',
    },
    {
      name: 'a handler named abort',
      yaml: 'steps: [echo]\nhandler_on: {abort: {command: echo}}',
      dialect: '2.x',
      marker: 'handler_on',
    },
    { name: 'action', yaml: 'steps:\n  - {action: noop}', dialect: '2.x', marker: 'steps[0].action' },
    { name: 'run: with a shell command', yaml: 'steps:\n  - run: echo hello', dialect: '2.x', marker: 'steps[0].run' },
    { name: 'run: with a list', yaml: 'steps:\n  - run: [make]', dialect: '2.x', marker: 'steps[0].run' },
    {
      name: 'a step in a mapping of steps',
      yaml: 'steps:\n  one: {command: echo, timeout_sec: 1}',
      dialect: '2.x',
      marker: 'steps.one.timeout_sec',
    },
    {
      name: 'shell_args, which only 2.x writes',
      yaml: 'shell: bash\nshell_args: [-e]\nsteps: [echo]',
      dialect: '2.x',
      marker: 'shell_args',
    },
    {
      name: 'consts, which only 2.x writes',
      yaml: 'consts: [{a: 1}]\nsteps: [echo]',
      dialect: '2.x',
      marker: 'consts',
    },
  ];
  it.each(cases)('reads $name as $dialect', ({ yaml, dialect, marker }) => {
    const decision = decide(yaml);
    expect(decision.errors).toEqual([]);
    expect(decision.dialect).toBe(dialect);
    expect(decision.marker?.path).toBe(marker);
  });

  it.each([
    ['keys spelled alike in both', 'name: a\nparams: [X=1]\nsteps:\n  - {name: s, command: echo, depends: []}'],
    [
      'type, config and with, which both dialects read alike',
      'steps:\n  - {type: docker, config: {image: alpine}, command: echo}\n  - {type: docker, with: {image: alpine}, command: echo}',
    ],
    ['run: naming a DAG, a 1.x sub-DAG call and a valid 2.x command alike', 'steps:\n  - run: child'],
  ])('reads a file with %s as 1.x, with no marker', (_name, yaml) => {
    expect(decide(yaml)).toEqual({ dialect: '1.x', errors: [] });
  });

  it('names the first key of the other dialect when a 2.x file has a 1.x key', () => {
    expect(
      decide('timeout_sec: 5\nsteps:\n  - {command: echo, workingDir: /tmp, retryPolicy: {limit: 1}}').errors.map(
        formatIssue,
      ),
    ).toEqual([
      'steps[0].workingDir: "workingDir" is a Dagu 1.x key, but this file is written in Dagu 2.x keys (the first is "timeout_sec" at timeout_sec); a file uses one dialect; in Dagu 2.x it is written "working_dir"',
    ]);
  });

  it('names the first key of the other dialect when a 1.x file has a 2.x key', () => {
    expect(
      decide(
        'handlerOn: {exit: {command: echo}}\nsteps:\n  - {command: echo, continueOn: {exit_code: [1]}}',
      ).errors.map(formatIssue),
    ).toEqual([
      'steps[0].continueOn.exit_code: "exit_code" is a Dagu 2.x key, but this file is written in Dagu 1.x keys (the first is "handlerOn" at handlerOn); a file uses one dialect; in Dagu 1.x it is written "exitCode"',
    ]);
  });

  it('never throws on any shape', () => {
    for (const value of [null, 5, 'text', [], [1, [2]], { steps: 5 }, { steps: { a: 1 } }, { handler_on: [1] }])
      expect(() => decideDialect(value)).not.toThrow();
  });
});

describe('loadDag reads a 2.x file as its 1.x spelling', () => {
  const dir = join(import.meta.dirname, '../../test/fixtures/dialect');
  const pairs = readdirSync(dir)
    .filter((f) => f.endsWith('.1x.yaml'))
    .map((f) => f.replace(/\.1x\.yaml$/, ''));
  it('has fixture pairs', () => {
    expect(pairs.length).toBeGreaterThanOrEqual(4);
  });
  it.each(pairs)('builds the same model from %s.1x.yaml and %s.2x.yaml', (pair) => {
    const oneX = loadDag(readFileSync(join(dir, `${pair}.1x.yaml`), 'utf8'), { fileName: pair });
    const twoX = loadDag(readFileSync(join(dir, `${pair}.2x.yaml`), 'utf8'), { fileName: pair });
    expect(oneX.errors.map(formatIssue)).toEqual([]);
    expect(twoX.errors.map(formatIssue)).toEqual([]);
    expect(twoX.warnings).toEqual(oneX.warnings);
    expect(twoX.dag).toEqual(oneX.dag);
  });

  it('joins a root shell_args to the shell', () => {
    expect(loadDag('shell: bash -o pipefail\nshell_args: [-e]\nsteps: [echo]', { fileName: 'a' }).dag.shell).toEqual([
      'bash',
      '-o',
      'pipefail',
      '-e',
    ]);
  });

  it('reads handler_on.init as the init handler, named onInit, and as a 2.x key', () => {
    const loaded = loadDag('steps: [echo]\nhandler_on: {init: {run: setup}}', { fileName: 'a' });
    expect(loaded.errors).toEqual([]);
    expect([loaded.dag.handlerOn.init?.name, loaded.dag.handlerOn.init?.command]).toEqual(['onInit', 'setup']);
    expect(
      errorsOf(
        'steps: [{name: a, command: echo, retryPolicy: {limit: 1, intervalSec: 1}}]\nhandlerOn: {init: {command: x}}',
      ),
    ).toEqual([expect.stringMatching(/^handlerOn\.init: "init" is a Dagu 2\.x key/) as string]);
  });

  it('reads handler_on.wait, mail_on.wait and wait_mail, and takes handlerOn.wait and mailOn.wait as 2.x keys', () => {
    const loaded = loadDag(
      'steps: [echo]\nhandler_on: {wait: {run: notify}}\nmail_on: {wait: true}\nwait_mail: {to: [a@x], attach_logs: true}',
      { fileName: 'a' },
    );
    expect(loaded.errors).toEqual([]);
    expect([loaded.dag.handlerOn.wait?.name, loaded.dag.handlerOn.wait?.command]).toEqual(['onWait', 'notify']);
    expect([loaded.dag.mailOn.wait, loaded.dag.waitMail]).toEqual([true, { to: ['a@x'], attachLogs: true }]);
    expect(errorsOf('steps: [{name: a, command: echo}]\nhandlerOn: {wait: {command: x}}')).toEqual([
      expect.stringMatching(/^handlerOn\.wait: "wait" is a Dagu 2\.x key/) as string,
    ]);
    expect(errorsOf('steps: [{name: a, command: echo}]\nmailOn: {wait: true}')).toEqual([
      expect.stringMatching(/^mailOn\.wait: "wait" is a Dagu 2\.x key/) as string,
    ]);
  });

  it('names a 2.x step without a name by its id, and leaves a 1.x one to the generated name', () => {
    const names = (yaml: string) => loadDag(yaml, { fileName: 'a' }).dag.steps.map((s) => s.name);
    expect(names('steps:\n  - {id: first, run: echo a}\n  - {id: second, name: own, run: echo b}')).toEqual([
      'first',
      'own',
    ]);
    expect(names('steps:\n  - {id: first, command: echo a}')).toEqual(['cmd_1']);
  });

  // Not in the step-keys fixtures: Dagu 2.x takes a step's worker_selector only on a step that
  // runs a DAG, so a fixture with it on a command step fails `dagu validate`; Kubedag reads it on
  // any step as 1.x does, the labels the step's Pod's node must carry.
  it("reads a 2.x step's worker_selector as the 1.x workerSelector", () => {
    const selectorOf = (yaml: string) => loadDag(yaml, { fileName: 'a' }).dag.steps[0]?.workerSelector;
    expect(selectorOf('steps:\n  - {name: s, run: echo a, worker_selector: {zone: a}}')).toEqual({ zone: 'a' });
    expect(selectorOf('steps:\n  - {name: s, command: echo a, workerSelector: {zone: a}}')).toEqual({ zone: 'a' });
  });

  it('keeps run: a sub-DAG call in a 1.x file and a command in a 2.x file', () => {
    const oneX = loadDag('steps:\n  - {name: s, run: child}', { fileName: 'a' }).dag.steps[0];
    const twoX = loadDag('timeout_sec: 1\nsteps:\n  - {name: s, run: child}', { fileName: 'a' }).dag.steps[0];
    expect(oneX?.call).toBe('child');
    expect(twoX?.call).toBeUndefined();
    expect(twoX?.command).toBe('child');
  });

  it('runs a 2.x DAG that names no type as a graph, and a 1.x one as a chain', () => {
    expect(loadDag('timeout_sec: 1\nsteps: [echo a, echo b]', { fileName: 'a' }).dag.type).toBe('graph');
    expect(loadDag('timeoutSec: 1\nsteps: [echo a, echo b]', { fileName: 'a' }).dag.type).toBe('chain');
    expect(loadDag('timeout_sec: 1\ntype: chain\nsteps: [echo a, echo b]', { fileName: 'a' }).dag.type).toBe('chain');
  });

  it('decides each document of a file on its own', () => {
    const load = loadDag(
      'timeout_sec: 5\nsteps:\n  - {name: s, run: echo hi}\n---\nname: child\ntimeoutSec: 5\nsteps:\n  - {name: t, run: child2}\n',
      { fileName: 'a' },
    );
    expect(load.errors).toEqual([]);
    expect(load.dag.steps[0]?.command).toBe('echo');
    expect(load.localDags[0]?.dag.steps[0]?.call).toBe('child2');
  });

  it('reads a multi-line run: as an inline script', () => {
    const step = loadDag('steps:\n  - name: s\n    run: |\n      echo a\n      echo b\n', { fileName: 'a' }).dag
      .steps[0];
    expect(step?.script).toBe('echo a\necho b\n');
  });
});

describe('loadDag refuses what this slice does not read', () => {
  const cases: { name: string; yaml: string; want: string[] }[] = [
    {
      name: 'an action Kubedag does not run',
      yaml: 'steps:\n  - {name: s, action: sftp.upload, with: {path: a}}',
      want: [
        'steps[0].action: Dagu 2.x feature sftp.* actions is not supported: Kubedag runs no SFTP client in its step runner; copy with sftp or scp in a container step that has an SSH client, or move files through object storage with the s3.* actions',
      ],
    },
    {
      name: 'params of a name no variable can have',
      yaml: 'steps:\n  - run: echo ${params.my-region}',
      want: [
        'steps[0].run: Dagu 2.x feature ${params.…} references is not supported: the name after params. is not one a variable can have, and Kubedag passes params to steps as variables; use letters, digits and _',
      ],
    },
    {
      name: 'a path output (a build path), deliberately',
      yaml: 'steps:\n  - {id: a, run: echo, outputs: [{name: f, path: out/f.txt}]}',
      want: [
        'steps[0].outputs[0].path: Dagu 2.x feature outputs path (an output published as a file) is not supported: it is a build path, which only build DAGs (type: build) take, and Kubedag runs no build DAGs; publish a value (type: string) or write the file as a run artifact',
      ],
    },
    {
      name: 'inputs (build paths), deliberately',
      yaml: 'steps:\n  - {id: a, run: echo, inputs: [{name: src, path: src.txt}]}',
      want: [
        'steps[0].inputs: Dagu 2.x feature inputs (build inputs) is not supported: it is a build path, which only build DAGs (type: build) take, and Kubedag runs no build DAGs',
      ],
    },
    {
      name: 'file dependencies, deliberately',
      yaml: 'steps:\n  - {run: ./scripts/a.sh, dependencies: [scripts/**]}',
      want: [
        "steps[0].dependencies: Dagu 2.x feature dependencies (files beside the DAG) is not supported: a DAG in Kubernetes has no directory of files beside it; put the files in the step's image or a volume it mounts, or fetch them in the step",
      ],
    },
    {
      name: 'outputs on an ssh step',
      yaml: 'steps:\n  - {id: a, action: ssh.run, with: {host: h, user: u, command: hostname}, outputs: [{name: h}]}',
      want: [
        "steps[0].outputs: Dagu 2.x feature outputs on a step of type ssh is not supported: the step Pod's runner reads the file back after the command, in its own filesystem, and this command runs elsewhere; print the value and publish it with output: {NAME: {from: stdout}}",
      ],
    },
    {
      name: 'foreach on a handler',
      yaml: 'handler_on:\n  exit: {foreach: {items: [a], steps: [{run: echo}]}}\nsteps:\n  - run: echo a',
      want: [
        'handler_on.exit.foreach: Dagu 2.x feature foreach on a handler is not supported: Kubedag fans out only steps under steps:, and a handler is one step run after them; call a sub-DAG from the handler whose step has the foreach',
      ],
    },
    {
      name: 'an LLM step',
      yaml: 'steps:\n  - {run: echo, llm: {model: x}}',
      want: [
        'steps[0].run: run cannot be used together with llm',
        'steps[0].llm: Dagu 2.x feature llm (LLM steps) is not supported: Kubedag runs no LLM steps',
      ],
    },
    {
      name: "a step's log_output: merged, deliberately",
      yaml: 'steps:\n  - {run: echo, log_output: merged}',
      want: [
        "steps[0].log_output: Dagu 2.x feature log_output: merged is not supported: Kubedag keeps a step's stdout and stderr apart in its log store; merge them in the command (2>&1) instead",
      ],
    },
    {
      name: 'other ${steps.…} references',
      yaml: 'steps:\n  - {id: a, run: echo}\n  - {name: b, run: "echo ${steps.a.stdout}"}',
      want: [
        'steps[1].run: Dagu 2.x feature ${steps.…} references other than ${steps.<id>.outputs.<name>} is not supported: Dagu 2.x resolves only ${steps.<id>.outputs.<name>} and leaves any other form as written; publish the value as an output of step <id> and write that form',
      ],
    },
    {
      name: 'several commands on an ssh step',
      yaml: 'steps:\n  - {name: s, action: ssh.run, with: {host: h, user: u, command: [ls, pwd]}}',
      want: [
        "steps[0].with.command: Dagu 2.x feature multiple commands on a step of type ssh (a list of more than one command) is not supported: Kubedag runs a list of commands as one POSIX shell script through the step Pod's runner shell, which this step type does not run its command through; join them into one command with &&",
      ],
    },
    {
      name: 'agent DAGs',
      yaml: 'type: agent\nsteps:\n  - run: echo a',
      want: ['type: Dagu 2.x feature type: agent (agent DAGs) is not supported: Kubedag runs no LLM agents'],
    },
    {
      name: 'shell_args without a shell',
      yaml: 'steps:\n  - {name: s, run: echo hi, with: {shell_args: [-e]}}',
      want: [
        "steps[0].shell_args: Dagu 2.x feature shell_args without shell (arguments for the default shell) is not supported: Dagu's default shell is its host's ($DAGU_DEFAULT_SHELL, else $SHELL, else sh), which a step Pod does not have; name the shell beside them (shell: sh or shell: bash)",
      ],
    },
  ];
  it.each(cases)('refuses $name', ({ yaml, want }) => {
    const errors = errorsOf(yaml);
    expect(errors).toEqual(want);
  });

  it.each([
    [
      'run beside command',
      'steps:\n  - {name: s, run: echo hi, command: echo}',
      'steps[0].run: run cannot be used together with command',
    ],
    [
      'with keys other than the shell settings on a run step',
      'steps:\n  - {name: s, run: echo hi, with: {image: x}}',
      'steps[0].with.image: run only takes shell, shell_args, shell_packages under with',
    ],
  ])('applies 2.x rules to run: %s', (_name, yaml, want) => {
    expect(errorsOf(yaml)).toContain(want);
  });

  it('reports a mixed file through loadDag', () => {
    expect(errorsOf('steps:\n  - {run: echo hi, timeoutSec: 5}')).toContain(
      'steps[0].timeoutSec: "timeoutSec" is a Dagu 1.x key, but this file is written in Dagu 2.x keys (the first is "run" at steps[0].run); a file uses one dialect; in Dagu 2.x it is written "timeout_sec"',
    );
  });
});

describe('twoXPath', () => {
  it.each([
    ['timeoutSec', 'timeout_sec'],
    ['steps[0].retryPolicy.intervalSec', 'steps[0].retry_policy.interval_sec'],
    ['steps[1][0].continueOn.exitCode[2]', 'steps[1][0].continue_on.exit_code[2]'],
    ['steps.timeoutSec.workingDir', 'steps.timeoutSec.working_dir'],
    ['handlerOn.cancel.timeoutSec', 'handler_on.abort.timeout_sec'],
    ['container.keepContainer', 'container.keep_container'],
    ['env.timeoutSec', 'env.timeoutSec'],
    ['steps[0].with.timeoutSec', 'steps[0].with.timeoutSec'],
    ['steps[0].with.shellArgs', 'steps[0].with.shell_args'],
    ['steps[0].config.containerName', 'steps[0].config.container_name'],
    ['steps[0].with.bastion.shellArgs', 'steps[0].with.bastion.shellArgs'],
    ['ssh.strictHostKey', 'ssh.strict_host_key'],
    ['handler_on.abort.timeout_sec', 'handler_on.abort.timeout_sec'],
    ['', ''],
  ])('spells %s as %s', (path, want) => {
    expect(twoXPath(path)).toBe(want);
  });

  it('is what loadDag reports for a 2.x file', () => {
    expect(
      errorsOf(
        'steps:\n  - {name: s, run: echo hi, retry_policy: {limit: 1, interval_sec: 1, max_interval_sec: -1}}\nhandler_on: {abort: {run: echo hi, timeout_sec: -1}}',
      ),
    ).toEqual([
      'handler_on.abort.timeout_sec: must be at least 0',
      'steps[0].retry_policy.max_interval_sec: must be at least 0',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { ACTIONS, REFUSED_ACTIONS, shellQuotedMessage } from './dialect-actions.ts';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';

const load = (yaml: string): ReturnType<typeof loadDag> => loadDag(yaml, { fileName: 'example' });
const errorsOf = (yaml: string): string[] => load(yaml).errors.map(formatIssue);
const stepOf = (yaml: string): ReturnType<typeof loadDag>['dag']['steps'][number] | undefined => {
  const loaded = load(yaml);
  expect(loaded.errors.map(formatIssue)).toEqual([]);
  return loaded.dag.steps[0];
};

describe('action steps', () => {
  it('names each action Kubedag runs once, and none of them is also refused', () => {
    expect(Object.keys(ACTIONS).filter((name) => Object.hasOwn(REFUSED_ACTIONS, name))).toEqual([]);
  });

  it('ends a log.write message with one newline, and none more when it has one', () => {
    expect(stepOf('steps:\n  - {name: s, action: log.write, with: {message: "a\\n"}}')?.script).toBe(
      `printf '%s' "a\n"\n`,
    );
    expect(stepOf('steps:\n  - {name: s, action: log.write, with: {message: a}}')?.script).toBe(`printf '%s\\n' "a"\n`);
  });

  it.each([
    ['variables', 'hi ${WHO} and $WHO_2, ${R.outputs.x}', 'hi ${WHO} and $WHO_2, ${R.outputs.x}'],
    [
      'what the shell would run or read',
      'a `date` $(date) "q" \\ $1 $ ${}',
      'a \\`date\\` \\$(date) \\"q\\" \\\\ \\$1 \\$ \\${}',
    ],
  ])('leaves only the %s of a log.write message to the shell', (_name, message, quoted) => {
    expect(shellQuotedMessage(message)).toBe(quoted);
  });

  it('reads an http request written as settings on a typed 2.x step too', () => {
    const step = stepOf(
      'steps:\n  - {name: s, type: http, with: {method: POST, url: "https://x.example/a", skip_tls_verify: true}}\nhandler_on: {abort: {run: echo}}',
    );
    expect(step?.cmdWithArgs).toBe('POST https://x.example/a');
    expect(step?.executor).toEqual({ type: 'http', config: { skipTLSVerify: true } });
  });

  it('reads an executor named as an action as a step of that type', () => {
    const step = stepOf(
      'steps:\n  - {name: s, action: http, with: {method: GET, url: "https://x.example", silent: true}}',
    );
    expect([step?.cmdWithArgs, step?.executor]).toEqual([
      'GET https://x.example',
      { type: 'http', config: { silent: true } },
    ]);
  });

  it('reads dag.enqueue as a call the operator completes by queueing a run, on with.queue when given', () => {
    const step = stepOf('steps:\n  - {name: s, action: dag.enqueue, with: {dag: child, params: {A: 1}, queue: slow}}');
    expect([step?.call, step?.enqueue, step?.params]).toEqual(['child', { queue: 'slow' }, { A: 1 }]);
    expect(stepOf('steps:\n  - {name: s, action: dag.enqueue, with: {dag: child}}')?.enqueue).toEqual({});
  });

  it.each([
    [
      'a with key it does not take',
      '{dag: child, wait: true}',
      'steps[0].with.wait: dag.enqueue does not take with.wait (it takes dag, params, queue)',
    ],
    [
      'an empty queue',
      '{dag: child, queue: " "}',
      'steps[0].with.queue: dag.enqueue with.queue must be a non-empty string',
    ],
    ['no dag', '{queue: slow}', 'steps[0].with.dag: is required'],
  ])('refuses dag.enqueue with %s', (_name, withText, want) => {
    expect(errorsOf(`steps:\n  - {name: s, action: dag.enqueue, with: ${withText}}`)).toEqual([want]);
  });

  it('passes a parallel dag.enqueue on as a parallel call the operator queues', () => {
    const step = stepOf(
      'steps:\n  - {name: s, action: dag.enqueue, with: {dag: child, queue: slow, params: "A=${ITEM}"}, parallel: {items: [a, b], max_concurrent: 1}}',
    );
    expect(step).toMatchObject({
      call: 'child',
      enqueue: { queue: 'slow' },
      params: 'A=${ITEM}',
      parallel: { items: ['a', 'b'], maxConcurrent: 1 },
    });
  });

  it('passes a parallel dag.run on as a parallel call', () => {
    const step = stepOf(
      'steps:\n  - {name: s, action: dag.run, with: {dag: child, params: "A=1"}, parallel: {items: [a, b], max_concurrent: 1}}',
    );
    expect(step).toMatchObject({ call: 'child', params: 'A=1', parallel: { items: ['a', 'b'], maxConcurrent: 1 } });
  });

  it('runs several commands on a shell step as subshells that stop at the first failure', () => {
    expect(stepOf('timeout_sec: 1\nsteps:\n  - {name: s, command: [echo a, 7], shell: /bin/bash}')?.script).toBe(
      '(\necho a\n) || exit $?\n(\n7\n) || exit $?\n',
    );
    expect(stepOf('steps:\n  - {name: s, run: [echo a], timeout_sec: 1}')?.command).toBe('echo');
  });

  it.each([
    [
      'an unknown action',
      'steps:\n  - {name: s, action: nope}',
      'steps[0].action: unknown action "nope" (Kubedag runs: exec, docker.run, container.run, k8s.run, kubernetes.run, ssh.run, http.request, jq.filter, mail.send, dag.run, dag.enqueue, noop, outputs.write, log.write, wait.duration, wait.until, wait.file, wait.http, file.stat, file.read, file.write, file.copy, file.move, file.delete, file.mkdir, file.list, s3.upload, s3.download, s3.list, s3.delete, archive.create, archive.extract, archive.list, artifact.list, artifact.read, artifact.write, template.render; a custom action, declared under actions:, is not run by Kubedag)',
    ],
    [
      'an action that is not a string',
      'steps:\n  - {name: s, action: [noop]}',
      'steps[0].action: must be a non-empty string (an action name such as exec or http.request)',
    ],
    [
      'with that is not a mapping',
      'steps:\n  - {name: s, action: dag.run, with: child}',
      'steps[0].with: must be a mapping',
    ],
    [
      'a missing required setting',
      'steps:\n  - {name: s, action: ssh.run, with: {host: h}}',
      'steps[0].with.command: is required',
    ],
    [
      'an empty dag name',
      'steps:\n  - {name: s, action: dag.run, with: {dag: " "}}',
      'steps[0].with.dag: must be a non-empty string',
    ],
    [
      'a key dag.run does not take',
      'steps:\n  - {name: s, action: dag.run, with: {dag: c, queue: q}}',
      'steps[0].with.queue: dag.run does not take with.queue (it takes dag, params)',
    ],
    [
      'with on noop',
      'steps:\n  - {name: s, action: noop, with: {a: 1}}',
      'steps[0].with.a: noop does not take with.a (it takes no with)',
    ],
    [
      'a message that is not a string',
      'steps:\n  - {name: s, action: log.write, with: {message: [a]}}',
      'steps[0].with.message: must be a string',
    ],
    [
      'exec args that are not words',
      'steps:\n  - {name: s, action: exec, with: {command: ls, args: [{a: 1}]}}',
      'steps[0].exec.args: must be a list of strings, numbers or booleans',
    ],
    [
      'jq data beside input',
      'steps:\n  - {name: s, action: jq.filter, with: {filter: ., data: "{}", input: f.json}}',
      'steps[0].with.data: jq.filter takes either with.data or with.input, not both',
    ],
    [
      'action beside command',
      'steps:\n  - {name: s, action: noop, command: echo}',
      'steps[0].action: action cannot be used together with command',
    ],
    [
      'action beside run',
      'steps:\n  - {name: s, action: noop, run: echo}',
      'steps[0].action: action cannot be used together with run',
    ],
    [
      'exec beside a shell',
      'steps:\n  - {name: s, exec: {command: ls}, shell: bash}',
      'steps[0].exec: exec cannot be used together with shell',
    ],
    [
      'an http request both ways',
      'timeout_sec: 1\nsteps:\n  - {name: s, type: http, command: GET x, with: {method: GET, url: x}}',
      'steps[0].with.method: write the request either as the command or as with.method and with.url, not both',
    ],
    [
      'a command list item that is a mapping',
      'steps:\n  - {name: s, run: [echo a, {b: [c]}]}',
      'steps[0].run[1]: must be a string (quote a command that holds ": ")',
    ],
    [
      'several commands beside a script',
      'timeout_sec: 1\nsteps:\n  - {name: s, command: [a, b], script: x}',
      'steps[0].command: a list of several commands cannot go with script',
    ],
  ])('refuses %s', (_name, yaml, want) => {
    expect(errorsOf(yaml)).toContain(want);
  });

  it.each([
    [
      'a data-store family',
      'sftp.upload',
      'steps[0].action: Dagu 2.x feature sftp.* actions is not supported: Kubedag runs no SFTP client in its step runner; copy with sftp or scp in a container step that has an SSH client, or move files through object storage with the s3.* actions',
    ],
    [
      'an LLM chat',
      'chat.completion',
      'steps[0].action: Dagu 2.x feature action chat.completion (LLM chat) is not supported: Kubedag runs no LLM steps',
    ],
    [
      'a git worktree',
      'git.worktree.add',
      "steps[0].action: Dagu 2.x feature action git.worktree.add (git worktrees) is not supported: steps share the run's workspace volume, not git worktrees on one host",
    ],
    [
      'a human task',
      'human.task',
      'steps[0].action: Dagu 2.x feature action human.task (human tasks) is not supported: of the human tasks only approval waits are planned',
    ],
    [
      'a harness',
      'harness.run',
      'steps[0].action: Dagu 2.x feature action harness.run (coding-agent harness) is not supported: Kubedag runs no coding-agent harnesses',
    ],
    [
      'a custom action package',
      'acme/deploy@v1',
      'steps[0].action: Dagu 2.x feature custom action packages (a versioned action reference) is not supported: Kubedag runs only its built-in executors',
    ],
  ])('refuses %s by name, and only that', (_name, action, want) => {
    expect(errorsOf(`steps:\n  - {name: s, action: "${action}", with: {a: 1}}`)).toEqual([want]);
  });

  it.each([
    [
      'docker',
      'type: docker\n    with: {image: alpine, volumes: ["/a:/b"]}\n    command: echo',
      "steps[0].with.volumes: Dagu 2.x feature docker with.volumes (bind mounts of the host) is not supported: a step Pod gets volumes from its kubernetes block, not Docker bind mounts; write volumes and volumeMounts there (a hostPath volume only where the namespace's pod policy allows one), or use the run's workspace",
    ],
  ])('refuses a %s setting without a 1.x counterpart by name', (_type, step, want) => {
    expect(errorsOf(`timeout_sec: 1\nsteps:\n  - name: s\n    ${step}`)).toEqual([want]);
  });

  it("reads ssh's shell, shell_args, timeout and bastion and jq's input, which 1.x does not have", () => {
    const ssh = stepOf(
      'timeout_sec: 1\nsteps:\n  - name: s\n    action: ssh.run\n    with: {host: h, user: u, command: ls, shell: bash, shell_args: [-e], timeout: 5s, bastion: {host: j, user: v}}',
    );
    expect(ssh?.executor.config).toEqual({
      host: 'h',
      user: 'u',
      shell: 'bash',
      shellArgs: ['-e'],
      timeout: '5s',
      bastion: { host: 'j', user: 'v' },
    });
    expect(
      stepOf('timeout_sec: 1\nsteps:\n  - {name: s, action: jq.filter, with: {filter: ., input: a.json}}')?.executor,
    ).toEqual({ type: 'jq', config: { input: 'a.json' } });
    expect(
      errorsOf(
        'timeout_sec: 1\nsteps:\n  - {name: s, action: jq.filter, with: {filter: ., input: a.json, data: {a: 1}}}',
      ),
    ).toEqual(['steps[0].with.data: jq.filter takes either with.data or with.input, not both']);
  });

  it("reads docker's shell as the step's shell, and refuses it where the command is exec'd", () => {
    const step = stepOf(
      'timeout_sec: 1\nsteps:\n  - {name: s, type: docker, with: {image: alpine, shell: [/bin/bash, -o, errexit, -c]}, command: pwd}',
    );
    expect(step?.shell).toEqual(['/bin/bash', '-o', 'errexit']);
    expect(
      errorsOf(
        'timeout_sec: 1\nsteps:\n  - {name: s, type: docker, with: {container_name: web, shell: [bash]}, command: pwd}',
      ),
    ).toEqual([
      "steps[0].with.shell: Dagu 2.x feature docker with.shell with exec is not supported: an exec'd command runs as written, without a shell; write bash -c '...' or a script",
    ]);
    expect(
      errorsOf(
        'timeout_sec: 1\nsteps:\n  - {name: s, type: docker, with: {image: alpine, shell: "bash -e"}, command: pwd}',
      ),
    ).toEqual(['steps[0].with.shell: "bash -e" is one word to Docker; write each word apart: [bash, -e]']);
  });

  it("reads docker's working_dir as the container's working directory, and refuses it beside container's", () => {
    const step = stepOf(
      'timeout_sec: 1\nsteps:\n  - {name: s, type: docker, with: {image: alpine, working_dir: /app}, command: pwd}',
    );
    expect(step?.kubernetes?.workingDir).toBe('/app');
    expect(
      errorsOf(
        'timeout_sec: 1\nsteps:\n  - {name: s, type: docker, with: {image: alpine, working_dir: /app, container: {WorkingDir: /b}}, command: pwd}',
      ),
    ).toEqual(['steps[0].with.working_dir: container sets the working directory already; use one of them']);
  });

  it('refuses several commands where Kubedag cannot run them in turn', () => {
    expect(errorsOf('steps:\n  - {name: s, run: [a, b], with: {shell: python3}}')).toEqual([
      'steps[0].run: Dagu 2.x feature multiple commands with the shell python3 (a list of more than one command) is not supported: Kubedag runs a list of commands as a POSIX shell script of subshells, which python3 cannot read; write one command, or the code as script:',
    ]);
    expect(errorsOf('steps:\n  - {name: s, action: docker.run, with: {image: alpine, command: [a, b]}}')).toEqual([
      "steps[0].with.command: Dagu 2.x feature multiple commands on a step of type docker (a list of more than one command) is not supported: Kubedag runs a list of commands as one POSIX shell script through the step Pod's runner shell, which this step type does not run its command through; join them into one command with &&",
    ]);
  });
});

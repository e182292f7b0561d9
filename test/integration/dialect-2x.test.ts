/**
 * DAGs written in Dagu 2.x's dialect (issue 26), run by the operator on the local control
 * plane: action steps (noop, log.write, exec, http.request, jq.filter on data and on a file,
 * dag.run), a list of commands run in turn, constants, typed params, step defaults, negated
 * preconditions, a router step and declared step outputs read by a later step through
 * \${steps.<id>.outputs.<name>}. The loader's unit tests prove the rewrite into the 1.x
 * shape; these prove that what it rewrites to does the work.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp, type LoopbackHttp } from '../servers/http.ts';
import { clients, createNamespace, deleteNamespace } from './support.ts';
import {
  finishedRun,
  givenDag,
  startOperator,
  stepLog,
  stepStates,
  whenRun,
  type RunningOperator,
} from './operator-support.ts';

const { core } = clients();

let ns = '';
let operator: RunningOperator;
let http: LoopbackHttp;
let base = '';

beforeAll(async () => {
  http = await serveHttp((request, response) => {
    const ok = request.url === '/greeting?lang=en';
    response
      .writeHead(ok ? 200 : 404, { 'content-type': 'application/json' })
      .end(ok ? JSON.stringify({ greeting: 'hello', from: request.headers['x-caller'] }) : '{}');
  });
  base = http.base;
  ns = await createNamespace(core, 'dialect');
  operator = await startOperator(ns);
});

afterAll(async () => {
  await operator.stop();
  await http.close();
  await deleteNamespace(core, ns);
});

/** A log.write message: its variables are substituted, and nothing else is read by a shell. */
const MESSAGE = 'hello ${WHO} and $WHO: \'single\' "double" %s \\ $(echo no) `echo no` $1 $';

describe('a Dagu 2.x DAG', () => {
  it('runs its action steps as the executors they stand for', async () => {
    await givenDag(
      ns,
      'actions',
      `
type: chain
env:
  - WHO: kubedag-test
steps:
  - name: nothing
    action: noop
  - name: say
    action: log.write
    with: {message: ${JSON.stringify(MESSAGE)}}
  - name: direct
    action: exec
    with: {command: printf, args: ["[%s]", two words, 3]}
  - name: fetch
    action: http.request
    with: {method: GET, url: "${base}/greeting", query: {lang: en}, headers: {X-Caller: "\${WHO}"}, silent: true}
    output: RESPONSE
  - name: pick
    action: jq.filter
    with: {filter: '.greeting + " " + .from', data: "\${RESPONSE}", raw: true}
  - name: save
    run: echo '{"greeting":"hi from a file"}' > greeting.json
  - name: pick-file
    action: jq.filter
    with: {filter: .greeting, input: greeting.json, raw: true}
  - name: child
    action: dag.run
    with: {dag: child, params: "NAME=parent"}
    output: CHILD
  - name: after
    run: echo "child said \${CHILD.outputs.GREETING}"
---
name: child
params: "NAME=nobody"
max_active_steps: 1
steps:
  - name: greet
    run: echo "hi $NAME"
    output: GREETING
`,
    );
    await whenRun(ns, 'actions-1', 'actions');
    const done = await finishedRun(ns, 'actions-1', 120_000);
    const steps = ['nothing', 'say', 'direct', 'fetch', 'pick', 'save', 'pick-file', 'child', 'after'];
    expect([done.status?.statusLabel, done.status?.error, stepStates(done)]).toEqual([
      'succeeded',
      undefined,
      Object.fromEntries(steps.map((s) => [s, 'succeeded'])),
    ]);
    expect(await stepLog(operator, done, 'nothing')).toBe('');
    expect(await stepLog(operator, done, 'say')).toBe(
      'hello kubedag-test and kubedag-test: \'single\' "double" %s \\ $(echo no) `echo no` $1 $\n',
    );
    expect(await stepLog(operator, done, 'direct')).toBe('[two words][3]\n');
    expect(await stepLog(operator, done, 'pick')).toBe('hello kubedag-test\n');
    // jq's input file is read in the step's working directory, the run's workspace the step before wrote to.
    expect(await stepLog(operator, done, 'pick-file')).toBe('hi from a file\n');
    expect(await stepLog(operator, done, 'after')).toBe('child said hi parent\n');
  });

  it('runs the wait.* and file.* actions in the step runner, and a wait ends at the step timeout', async () => {
    await givenDag(
      ns,
      'builtin',
      `
type: chain
env:
  - WHO: kubedag
steps:
  - name: write
    action: file.write
    with: {path: work/in/note.txt, content: "hello \${WHO}", create_dirs: true}
  - name: copy
    action: file.copy
    with: {source: work/in, destination: work/out, recursive: true}
  - name: appeared
    action: wait.file
    with: {path: work/out/note.txt, poll_interval: 100ms}
  - name: read
    action: file.read
    with: {path: work/out/note.txt}
    output: NOTE
  - name: list
    action: file.list
    with: {path: work, pattern: "**/*.txt", recursive: true}
  - name: served
    action: wait.http
    with: {url: "${base}/greeting?lang=en", poll_interval: 100ms}
  - name: pause
    action: wait.duration
    with: {duration: 300ms}
  - name: after
    run: echo "read \${NOTE}"
  - name: too-long
    action: wait.duration
    with: {duration: 1h}
    timeout_sec: 3
`,
    );
    await whenRun(ns, 'builtin-1', 'builtin');
    const done = await finishedRun(ns, 'builtin-1', 120_000);
    const states = stepStates(done);
    expect(states).toEqual({
      write: 'succeeded',
      copy: 'succeeded',
      appeared: 'succeeded',
      read: 'succeeded',
      list: 'succeeded',
      served: 'succeeded',
      pause: 'succeeded',
      after: 'succeeded',
      'too-long': 'failed',
    });
    const written = JSON.parse((await stepLog(operator, done, 'write')) ?? '{}') as Record<string, unknown>;
    expect([written.operation, written.bytes, written.created]).toEqual(['write', 13, true]);
    const listed = JSON.parse((await stepLog(operator, done, 'list')) ?? '{}') as { entries: { path: string }[] };
    expect(listed.entries.map((e) => e.path)).toEqual(['in/note.txt', 'out/note.txt']);
    expect(await stepLog(operator, done, 'after')).toBe('read hello kubedag\n');
  });

  it('runs a list of commands in turn, each in its own shell, and stops at the first that fails', async () => {
    await givenDag(
      ns,
      'several',
      `
timeout_sec: 60
steps:
  - name: in-turn
    run: ["A=set; cd /var && pwd", "echo A=\${A:-unset}; pwd", "echo third"]
    with: {shell: sh}
  - name: stops
    run: [echo before, "exit 7", echo never]
`,
    );
    await whenRun(ns, 'several-1', 'several');
    const done = await finishedRun(ns, 'several-1', 120_000);
    expect(stepStates(done)).toEqual({ 'in-turn': 'succeeded', stops: 'failed' });
    const [cd, unset, dir, third] = (await stepLog(operator, done, 'in-turn'))?.split('\n') ?? [];
    // Each command has its own shell: neither the variable nor the directory carries over.
    expect([cd, unset, third]).toEqual(['/var', 'A=unset', 'third']);
    expect(dir).not.toBe('/var');
    expect(await stepLog(operator, done, 'stops')).toBe('before\n');
    expect(done.status?.nodes?.find((n) => n.name === 'stops')?.exitCode).toBe(7);
  });

  it('runs with its constants, typed params, step defaults, negated preconditions and a router, and refuses params its types do not allow', async () => {
    await givenDag(
      ns,
      'values',
      `
consts:
  - {REGION: eu-west-1}
  - {BUCKET: "reports-\${consts.REGION}"}
params:
  - {name: LIMIT, type: integer, default: 10, maximum: 100}
  - {name: MODE, enum: [fast, full], default: fast}
defaults:
  env: [{STAGE: report}]
  timeout_sec: 30
steps:
  - name: show
    run: echo "\${params.LIMIT} \${params.MODE} \${consts.BUCKET} \${env.STAGE}"
  - name: not-fast
    run: echo slow
    preconditions: [{condition: "\${params.MODE}", expected: fast, negate: true}]
  - name: no-file
    run: echo absent
    preconditions: [{condition: "test -e /definitely/absent", negate: true}]
  - id: route
    type: router
    value: \${params.MODE}
    routes: {fast: [fast-path], "re:^fu": [full-path]}
  - {id: fast-path, run: echo fast path}
  - {id: full-path, run: echo full path}
`,
    );
    await whenRun(ns, 'values-1', 'values', { params: 'LIMIT=50' });
    const done = await finishedRun(ns, 'values-1', 120_000);
    expect([done.status?.statusLabel, done.status?.error, stepStates(done)]).toEqual([
      'succeeded',
      undefined,
      {
        show: 'succeeded',
        'not-fast': 'skipped',
        'no-file': 'succeeded',
        route: 'succeeded',
        'fast-path': 'succeeded',
        'full-path': 'skipped',
      },
    ]);
    expect(await stepLog(operator, done, 'show')).toBe('50 fast reports-eu-west-1 report\n');
    expect(await stepLog(operator, done, 'no-file')).toBe('absent\n');
    await whenRun(ns, 'values-2', 'values', { params: 'LIMIT=500' });
    const refused = await finishedRun(ns, 'values-2', 120_000);
    expect([refused.status?.statusLabel, refused.status?.error]).toEqual(['failed', 'params.LIMIT: must be <= 100']);
  });

  it('publishes declared outputs from DAGU_OUTPUT_FILE to later steps, and fails a step whose file breaks the rules', async () => {
    await givenDag(
      ns,
      'outputs',
      `
steps:
  - name: build
    id: build
    run: |
      echo building
      echo "version=1.4.2" >> "$DAGU_OUTPUT_FILE"
      printf 'notes<<END\\nline one\\nline two\\nEND\\n' >> "$DAGU_OUTPUT_FILE"
      echo 'meta={"arch":"amd64"}' >> "$DAGU_OUTPUT_FILE"
    outputs:
      - name: version
      - name: notes
      - {name: meta, type: json}
  - name: publish
    id: publish
    depends: [build]
    run: echo publishing \${steps.build.outputs.version} for '\${steps.build.outputs.meta}'
  - name: notes
    id: notes
    depends: [build]
    run: |
      printf '%s\\n' "\${steps.build.outputs.notes}"
  - name: gated
    depends: [build]
    env: [{V: "v\${steps.build.outputs.version}"}]
    preconditions: [{condition: "\${steps.build.outputs.version}", expected: "1.4.2"}]
    run: echo "$V"
  - name: broken
    id: broken
    run: echo "other=1" >> "$DAGU_OUTPUT_FILE"
    outputs: [{name: wanted}]
`,
    );
    await whenRun(ns, 'outputs-1', 'outputs');
    const done = await finishedRun(ns, 'outputs-1', 120_000);
    expect(stepStates(done)).toEqual({
      build: 'succeeded',
      publish: 'succeeded',
      notes: 'succeeded',
      gated: 'succeeded',
      broken: 'failed',
    });
    // The records are not the step's stdout; the values are the status's, by name.
    expect(await stepLog(operator, done, 'build')).toBe('building\n');
    const node = (name: string) => done.status?.nodes?.find((n) => n.name === name);
    expect(node('build')?.stepOutputs).toEqual({
      version: '1.4.2',
      notes: 'line one\nline two',
      meta: '{"arch":"amd64"}',
    });
    expect(await stepLog(operator, done, 'publish')).toBe('publishing 1.4.2 for {"arch":"amd64"}\n');
    expect(await stepLog(operator, done, 'notes')).toBe('line one\nline two\n');
    expect(await stepLog(operator, done, 'gated')).toBe('v1.4.2\n');
    expect(node('broken')?.error).toBe('failed to parse DAGU_OUTPUT_FILE: undeclared step output "other"');
  });
});
